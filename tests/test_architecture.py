"""The import rules of the README's Architecture section, checked on the source: every import
(function-level and relative ones included) and every import by name in a string (task YAML
`!function`, entry points and script in pyproject.toml, lmms-eval manifests' class paths); and, for
the builders and the CLI, in a fresh interpreter.

The layers, lowest first; a package imports only the packages of lower layers (and itself):

    metrics                         pure statistics
    plugin.core                     what everything shares
    builders, benchmarks, adapters  hub_upload | plugin.symphony_bias | plugin.grounding |
                                    plugin.tcav | plugin.lmms | plugin.devtools (none imports another)
    plugin.runs                     the tooling that reads finished runs (benchmarks via sections)
    plugin.cli                      the command line
    tasks                           harness YAML: benchmark glue and plugin.core only
"""

from __future__ import annotations

import ast
import functools
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
import tomllib

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = "symphony_bench"
HARNESSES = ("lm_eval", "lmms_eval")
SIDE_BY_SIDE = (
    "hub_upload",
    "plugin.symphony_bias",
    "plugin.grounding",
    "plugin.tcav",
    "plugin.lmms",
    "plugin.devtools",
)
LAYERS = (("metrics",), ("plugin.core",), SIDE_BY_SIDE, ("plugin.runs",), ("plugin.cli",))
SOURCE_FOLDERS = ("metrics", "plugin", "hub_upload")
FUNCTION_TAG = re.compile(r"!function\s+(\S+)")
CLASS_PATH = re.compile(r"""["']((?:symphony_bench)(?:\.\w+)+)["']""")


def module_name(path: Path) -> str:
    dotted = ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
    return f"{PACKAGE}.{dotted}" if dotted else PACKAGE


def _resolve_relative(module: str, is_package: bool, node: ast.ImportFrom) -> str:
    base = module.split(".") if is_package else module.split(".")[:-1]
    base = base[: len(base) - (node.level - 1)] if node.level > 1 else base
    return ".".join([*base, node.module] if node.module else base)


def imports_of(path: Path, module: str | None = None) -> set[str]:
    """Every module name the file (the module `module`, by default from its path) imports, at any
    depth, relative imports resolved; for `from a import b` both a and a.b (b may be a module)."""
    module, is_package = module or module_name(path), path.name == "__init__.py"
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            source = _resolve_relative(module, is_package, node) if node.level else node.module
            names |= {source, *(f"{source}.{alias.name}" for alias in node.names)}
    return names | class_paths_in(path.read_text(encoding="utf-8"))


def class_paths_in(text: str) -> set[str]:
    """Our modules named in strings ("symphony_bench.plugin.lmms.models.Class" names the module
    symphony_bench.plugin.lmms.models): lmms-eval manifests, entry points."""
    return {path.rsplit(".", 1)[0] for path in CLASS_PATH.findall(text)}


@functools.cache
def source_modules() -> dict[str, set[str]]:
    return {
        module_name(path): imports_of(path)
        for folder in SOURCE_FOLDERS
        for path in (ROOT / folder).rglob("*.py")
    }


def yaml_function_modules() -> dict[str, set[str]]:
    """{task YAML: the modules its `!function` tags name}."""
    found = {}
    for path in (ROOT / "tasks").rglob("*"):
        if path.is_file() and (path.suffix == ".yaml" or path.name.endswith("_yaml")):
            functions = FUNCTION_TAG.findall(path.read_text(encoding="utf-8"))
            found[str(path.relative_to(ROOT))] = {name.rsplit(".", 1)[0] for name in functions}
    return found


def ours(name: str) -> str | None:
    """The part after `symphony_bench.` of one of our module names, else None."""
    return name.removeprefix(f"{PACKAGE}.") if name.startswith(f"{PACKAGE}.") else None


def under(name: str, *prefixes: str) -> bool:
    return any(name == prefix or name.startswith(prefix + ".") for prefix in prefixes)


def package_of(module: str) -> str | None:
    """The layered package a module (without the `symphony_bench.` prefix) belongs to."""
    return next((p for layer in LAYERS for p in layer if under(module, p)), None)


def layer_of(package: str) -> int:
    return next(k for k, layer in enumerate(LAYERS) if package in layer)


def allowed(importer: str, imported: str) -> bool:
    """A package may import itself and the packages of the layers below its own."""
    return importer == imported or layer_of(imported) < layer_of(importer)


def layer_violations() -> dict[str, list[str]]:
    found = {}
    for module, imported in source_modules().items():
        importer = package_of(ours(module) or "")
        if importer is None:  # the package's own __init__ and plugin/__init__: docstrings only
            continue
        targets = {package_of(name) for name in map(ours, imported) if name}
        bad = sorted(t for t in targets - {None} if not allowed(importer, t))
        if bad:
            found[module] = bad
    return found


def test_every_package_imports_only_its_own_and_lower_layers():
    assert layer_violations() == {}


def test_the_layer_rule_sees_string_relative_and_function_level_imports(tmp_path):
    """The reader finds what a plain `import` scan would miss."""
    source = tmp_path / "example.py"
    source.write_text(
        "from . import errors\n"
        "def f():\n    from ..runs import report\n"
        'MANIFEST = "symphony_bench.plugin.grounding.baselines.AlwaysFirst"\n'
    )
    names = imports_of(source, "symphony_bench.plugin.core.example")
    assert {
        "symphony_bench.plugin.core.errors",
        "symphony_bench.plugin.runs.report",
        "symphony_bench.plugin.grounding.baselines",
    } <= names
    assert not allowed("plugin.core", package_of("plugin.runs.report"))
    assert not allowed("plugin.lmms", package_of("plugin.grounding.baselines"))


def test_no_module_of_ours_imports_a_harness_below_the_glue():
    for module, imported in source_modules().items():
        package = package_of(ours(module) or "")
        if package in ("metrics", "plugin.core", "hub_upload"):
            assert not [name for name in imported if under(name, *HARNESSES)], module


def test_task_yaml_functions_name_benchmark_glue_or_core_only():
    allowed_packages = ("plugin.core", "plugin.symphony_bias", "plugin.grounding")
    bad = {
        path: sorted(modules)
        for path, modules in yaml_function_modules().items()
        if any(not under(ours(m) or "", *allowed_packages) for m in modules)
    }
    assert bad == {}


def test_entry_points_and_script_name_the_adapters_and_the_cli():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    entry_points = dict(project["entry-points"])
    # lm-eval's task plugins name the task folder itself (tests/test_task_paths.py loads it)
    assert entry_points.pop("lm_eval.tasks") == {"symphony_bench": f"{PACKAGE}.tasks.lm_eval"}
    targets = {
        value.split(":")[0]
        for group in (project["scripts"], *entry_points.values())
        for value in group.values()
    }
    assert {package_of(ours(target)) for target in targets} <= {
        "plugin.cli",
        "plugin.lmms",
        "plugin.grounding",
    }


def import_cycles() -> list[list[str]]:
    """Strongly connected groups of two or more of our modules in the import graph (every import,
    function-level ones included), found with Tarjan's algorithm."""
    modules = source_modules()
    graph = {
        module: sorted(name for name in imported if name in modules)
        for module, imported in modules.items()
    }
    index, low, stack, on_stack, groups, counter = {}, {}, [], set(), [], [0]

    def visit(node: str) -> None:
        index[node] = low[node] = counter[0]
        counter[0] += 1
        stack.append(node)
        on_stack.add(node)
        for target in graph.get(node, []):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for node in graph:
        if node not in index:
            visit(node)
    return groups


def test_no_import_cycle():
    # a package's __init__ that imports its own submodules lazily (metrics) is not a cycle member
    assert import_cycles() == []


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
            "import json, sys, symphony_bench.plugin.cli; "
            "print(json.dumps(sorted({m.split('.')[0] for m in sys.modules})))",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    loaded = set(json.loads(completed.stdout))
    heavy = {"numpy", "scipy", "torch", "datasets", "pandas", "lm_eval", "lmms_eval", "matplotlib"}
    assert not loaded & heavy


def test_run_tooling_imports_benchmarks_only_in_the_section_registry():
    runs = {m: i for m, i in source_modules().items() if under(ours(m) or "", "plugin.runs")}
    benchmark_imports = {
        m: sorted({name for name in imported if package_of(ours(name) or "") in SIDE_BY_SIDE})
        for m, imported in runs.items()
    }
    assert {m: names for m, names in benchmark_imports.items() if names} == {
        f"{PACKAGE}.plugin.runs.sections": [
            f"{PACKAGE}.plugin.grounding.report",
            f"{PACKAGE}.plugin.grounding.report.SECTION",
            f"{PACKAGE}.plugin.symphony_bias.report",
            f"{PACKAGE}.plugin.symphony_bias.report.SECTION",
        ]
    }


KIND_TESTS = re.compile(
    r"\bkind\s*==|==\s*[\"']?(symphony_bias|grounding)\.|\.get\(\"(recognition|grounding)\"\)"
)


@pytest.mark.parametrize(
    "path", sorted((ROOT / "plugin" / "runs").glob("*.py")), ids=lambda p: p.name
)
def test_run_tooling_tests_no_record_kind_and_sniffs_no_benchmark_flag(path):
    assert not KIND_TESTS.findall(path.read_text(encoding="utf-8"))
