"""Every SYMPHONY_* option is read through its `Option` (plugin.core.options): no module names an
option's variable itself, so a renamed option or a metadata key that should win cannot be missed."""

from __future__ import annotations

import ast
from pathlib import Path

import symphony_bench

PACKAGE = Path(symphony_bench.__file__).parent
READER = PACKAGE / "plugin" / "core" / "options.py"
NOT_OPTIONS = {"SYMPHONY_BENCH_CACHE"}  # where the package caches, not a task option


def option_variable_literals(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and node.value.startswith("SYMPHONY_")
        and node.value.split()[0].rstrip(".,:;)") not in NOT_OPTIONS
    ]


def source_modules() -> list[Path]:
    return [
        path
        for folder in ("plugin", "metrics", "hub_upload")
        for path in sorted((PACKAGE / folder).rglob("*.py"))
        if path != READER
    ]


def test_no_module_reads_an_option_variable_by_name():
    found = {
        str(path.relative_to(PACKAGE)): literals
        for path in source_modules()
        if (literals := option_variable_literals(path))
    }
    assert found == {}


def test_the_check_sees_a_variable_named_in_code(tmp_path):
    planted = tmp_path / "reader.py"
    planted.write_text('import os\nvalue = os.environ.get("SYMPHONY_GROUNDING")\n')
    assert option_variable_literals(planted) == ["SYMPHONY_GROUNDING"]
