"""The import rules of docs/architecture.md, checked on the source: every import
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

The rules fail closed: a module of ours in no layer (a new `plugin/<name>/` not in the table
below), an import of such a module, and a record-kind test in `metrics/` or `plugin/runs/` are
failures, so a new package cannot go unchecked.
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
# The benchmarks: each registers its ReportSection (`<package>.report.SECTION`) in
# plugin/runs/sections.py, and its task YAML names its glue. Adding one means adding it here.
BENCHMARKS = ("plugin.symphony_bias", "plugin.grounding")
# the modules holding a registered `SECTION`: each benchmark's report, and the speaker-voice
# benchmark's own inside the Symphony-Bias package
SECTION_MODULES = (*(f"{b}.report" for b in BENCHMARKS), "plugin.symphony_bias.voice.report")
SIDE_BY_SIDE = ("hub_upload", *BENCHMARKS, "plugin.tcav", "plugin.lmms", "plugin.devtools")
LAYERS = (("metrics",), ("plugin.core",), SIDE_BY_SIDE, ("plugin.runs",), ("plugin.cli",))
# Folders whose __init__.py is a docstring and nothing else: no layer, and they import nothing.
NAMESPACES = ("plugin", "tasks")
SOURCE_FOLDERS = ("metrics", "plugin", "hub_upload", "tasks")
FUNCTION_TAG = re.compile(r"!function\s+(\S+)")
CLASS_PATH = re.compile(r"""["']((?:symphony_bench)(?:\.\w+)+)["']""")


def module_name(path: Path, root: Path = ROOT) -> str:
    dotted = ".".join(path.relative_to(root).with_suffix("").parts).removesuffix(".__init__")
    return f"{PACKAGE}.{dotted}" if dotted else PACKAGE


def _resolve_relative(module: str, is_package: bool, node: ast.ImportFrom) -> str:
    base = module.split(".") if is_package else module.split(".")[:-1]
    base = base[: len(base) - (node.level - 1)] if node.level > 1 else base
    return ".".join([*base, node.module] if node.module else base)


def imports_of(path: Path, module: str | None = None) -> set[str]:
    """Every module name the file (the module `module`, by default from its path under ROOT)
    imports, at any depth, relative imports resolved; for `from a import b` both a and a.b (b may
    be a module)."""
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
def source_modules(root: Path = ROOT) -> dict[str, set[str]]:
    """{module: what it imports} for every module of our source folders under `root` (the
    repository, or a copy of it in a test)."""
    modules = {}
    for folder in SOURCE_FOLDERS:
        for path in (root / folder).rglob("*.py"):
            name = module_name(path, root)
            modules[name] = imports_of(path, name)
    return modules


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


def unlisted(module: str) -> bool:
    """A module of ours (without the `symphony_bench.` prefix) in no layer and no namespace."""
    return package_of(module) is None and module not in NAMESPACES


def layer_of(package: str) -> int:
    return next(k for k, layer in enumerate(LAYERS) if package in layer)


def allowed(importer: str, imported: str) -> bool:
    """A package may import itself and the packages of the layers below its own."""
    return importer == imported or layer_of(imported) < layer_of(importer)


def unlayered_modules(root: Path = ROOT) -> list[str]:
    """Our modules that belong to no layer (and are no namespace's docstring-only __init__)."""
    return sorted(module for module in source_modules(root) if unlisted(ours(module) or ""))


def layer_violations(root: Path = ROOT) -> dict[str, list[str]]:
    """{module: what it may not import}: a package of a layer above its own or of no layer (named
    with " (no layer)"); a namespace's __init__ may import nothing of ours."""
    found = {}
    for module, imported in source_modules(root).items():
        name = ours(module) or ""
        importer = package_of(name)
        targets = {target for target in map(ours, imported) if target}
        if name in NAMESPACES:
            bad = sorted(targets)
        elif importer is None:  # reported by unlayered_modules
            continue
        else:
            bad = sorted(
                {f"{t} (no layer)" for t in targets if unlisted(t)}
                | {
                    package
                    for package in map(package_of, targets)
                    if package is not None and not allowed(importer, package)
                }
            )
        if bad:
            found[module] = bad
    return found


def test_every_module_of_ours_has_a_layer():
    """Fails closed: a new `plugin/<name>/` (or any module outside the table) is a failure until
    the layer table above places it."""
    assert unlayered_modules() == []


def test_every_package_imports_only_its_own_and_lower_layers():
    assert layer_violations() == {}


def source_copy(tmp_path: Path) -> Path:
    """A copy of our source folders to plant modules in (the repository is never written)."""
    import shutil

    copy = tmp_path / "copy"
    for folder in SOURCE_FOLDERS:
        shutil.copytree(
            ROOT / folder, copy / folder, ignore=shutil.ignore_patterns("__pycache__", "data")
        )
    return copy


def test_a_new_benchmark_package_outside_the_table_fails_the_rules(tmp_path, monkeypatch):
    """The done-when of issue 33: `plugin/newbench/x.py` importing `plugin.runs` is a failure; an
    import of an unlisted package and an unlisted module under tasks/ are failures too."""
    assert unlayered_modules() == [] and layer_violations() == {}  # the repository passes
    copy = source_copy(tmp_path)
    (copy / "plugin" / "newbench").mkdir()
    (copy / "plugin" / "newbench" / "__init__.py").write_text('"""A new benchmark."""\n')
    (copy / "plugin" / "newbench" / "x.py").write_text(
        "from symphony_bench.plugin.runs import report\n"
    )
    (copy / "plugin" / "core" / "planted.py").write_text("def f():\n    from ..newbench import x\n")
    (copy / "tasks" / "helpers.py").write_text("def fn(doc):\n    return doc\n")
    assert unlayered_modules(copy) == [
        f"{PACKAGE}.plugin.newbench",
        f"{PACKAGE}.plugin.newbench.x",
        f"{PACKAGE}.tasks.helpers",
    ]
    assert layer_violations(copy) == {
        f"{PACKAGE}.plugin.core.planted": [
            "plugin.newbench (no layer)",
            "plugin.newbench.x (no layer)",
        ]
    }
    # placed in the table beside the other benchmarks, its import of plugin.runs is an upward one
    monkeypatch.setitem(
        globals(), "LAYERS", (*LAYERS[:2], (*SIDE_BY_SIDE, "plugin.newbench"), *LAYERS[3:])
    )
    assert unlayered_modules(copy) == [f"{PACKAGE}.tasks.helpers"]
    assert layer_violations(copy) == {
        f"{PACKAGE}.plugin.newbench.x": ["plugin.runs"],
        f"{PACKAGE}.plugin.core.planted": ["plugin.newbench"],
    }


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
    allowed_packages = ("plugin.core", *BENCHMARKS)
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
        *BENCHMARKS,  # a benchmark's lmms-eval models (the grounding floors)
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
    # every benchmark of the table registers its section there, and nothing else does
    assert {m: names for m, names in benchmark_imports.items() if names} == {
        f"{PACKAGE}.plugin.runs.sections": sorted(
            f"{PACKAGE}.{module}{attribute}"
            for module in SECTION_MODULES
            for attribute in ("", ".SECTION")
        )
    }


# `kind ==`, `["kind"] ==`, `.get("kind") ==`, `!= "symphony_bias.likert"`, `.get("grounding")`; a
# kind compared for inequality with another record's (`base.kind != candidate.kind`) is no test
KIND_TESTS = re.compile(
    r"""\bkind["']?\]?\)?\s*=="""
    r"""|[!=]=\s*["']?(symphony_bias|grounding)\."""
    r"""|\.get\(["'](recognition|grounding)["']\)"""
)


def kind_tests(text: str) -> list[str]:
    return [match.group(0) for match in KIND_TESTS.finditer(text)]


def test_the_kind_test_pattern_finds_each_spelling():
    for text in (
        'if record["kind"] == "x":',
        "if kind == KIND:",
        'if r.get("kind") == k:',
        'if name != "symphony_bias.likert":',
        'if row.get("grounding"):',
    ):
        assert kind_tests(text), text
    assert not kind_tests("for kind in section.kinds: order = np.argsort(x, kind='stable')")
    assert not kind_tests('if base.kind != candidate.kind or record["kind"] != kind:')


def kind_test_files(root: Path = ROOT) -> list[Path]:
    """The modules that must not test a record's kind: the run tooling and the statistics."""
    return sorted([*(root / "plugin" / "runs").glob("*.py"), *(root / "metrics").rglob("*.py")])


@pytest.mark.parametrize("path", kind_test_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_run_tooling_and_metrics_test_no_record_kind_and_sniff_no_benchmark_flag(path):
    """Statistics and run tooling know a benchmark only through its section, never by kind."""
    assert kind_tests(path.read_text(encoding="utf-8")) == []


def test_a_kind_test_planted_in_metrics_fails(tmp_path):
    copy = source_copy(tmp_path)
    planted = copy / "metrics" / "sub" / "planted.py"
    planted.parent.mkdir()
    planted.write_text('def f(records):\n    return [r for r in records if r["kind"] == "x"]\n')
    assert planted in kind_test_files(copy)
    assert kind_tests(planted.read_text(encoding="utf-8")) == ['kind"] ==']
