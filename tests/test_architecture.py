"""The import rules of the README's Architecture section, checked on the source (every import,
function-level ones included) and, for the builders, in a fresh interpreter."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BENCHMARK_PACKAGES = ("symphony_bias", "grounding", "tcav", "lmms")
HARNESSES = ("lm_eval", "lmms_eval")


def module_name(path: Path) -> str:
    return "symphony_bench." + ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(
        ".__init__"
    )


def imports_of(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names |= {node.module, *(f"{node.module}.{alias.name}" for alias in node.names)}
    return names


def modules_under(folder: str) -> dict[str, set[str]]:
    return {module_name(path): imports_of(path) for path in (ROOT / folder).rglob("*.py")}


def under(name: str, *prefixes: str) -> bool:
    return any(name == prefix or name.startswith(prefix + ".") for prefix in prefixes)


def offending(modules: dict[str, set[str]], *forbidden: str) -> dict[str, list[str]]:
    found = {
        module: sorted(name for name in imported if under(name, *forbidden))
        for module, imported in modules.items()
    }
    return {module: names for module, names in found.items() if names}


def test_metrics_import_no_plugin_tasks_builder_or_harness():
    forbidden = (
        "symphony_bench.plugin",
        "symphony_bench.tasks",
        "symphony_bench.hub_upload",
        *HARNESSES,
    )
    assert offending(modules_under("metrics"), *forbidden) == {}


def test_core_is_a_leaf():
    core = modules_under("plugin/core")
    other_plugin_packages = [
        f"symphony_bench.plugin.{name}"
        for name in (*BENCHMARK_PACKAGES, "report", "cli", "default_model", "tiny_models")
    ]
    assert offending(core, *other_plugin_packages, "symphony_bench.hub_upload", *HARNESSES) == {}


def test_builders_use_only_core_and_metrics():
    builders = modules_under("hub_upload")
    plugin_outside_core = {
        module: sorted(
            name
            for name in imported
            if under(name, "symphony_bench.plugin")
            and not under(name, "symphony_bench.plugin.core")
        )
        for module, imported in builders.items()
    }
    assert {module: names for module, names in plugin_outside_core.items() if names} == {}
    assert offending(builders, *HARNESSES) == {}


@pytest.mark.parametrize("package", BENCHMARK_PACKAGES)
def test_a_benchmark_package_imports_no_builder_and_no_other_benchmark(package):
    others = [f"symphony_bench.plugin.{name}" for name in BENCHMARK_PACKAGES if name != package]
    top_level = [
        f"symphony_bench.plugin.{name}"
        for name in ("report", "cli", "default_model", "tiny_models")
    ]
    forbidden = ("symphony_bench.hub_upload", *top_level, *others)
    assert offending(modules_under(f"plugin/{package}"), *forbidden) == {}


def test_importing_any_builder_loads_no_harness():
    builders = sorted(module_name(path) for path in (ROOT / "hub_upload").rglob("*.py"))
    script = (
        "import importlib, sys\n"
        "for name in sys.argv[1:]:\n"
        "    importlib.import_module(name)\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('lm_eval', 'lmms_eval')))\n"
    )
    completed = subprocess.run(
        [sys.executable, "-c", script, *builders], capture_output=True, text=True, check=True
    )
    assert completed.stdout.strip() == "[]"


def test_the_cli_starts_without_heavy_imports():
    completed = subprocess.run(
        [
            sys.executable,
            "-c",
            "import json, sys, symphony_bench.plugin.cli; print(json.dumps(sorted({m.split('.')[0] for m in sys.modules})))",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    loaded = set(json.loads(completed.stdout))
    assert not loaded & {
        "numpy",
        "scipy",
        "torch",
        "datasets",
        "pandas",
        "lm_eval",
        "lmms_eval",
        "matplotlib",
    }
