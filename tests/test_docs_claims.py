"""Claims docs/architecture.md and the package docstrings make about the code, checked on it."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import tomllib

from symphony_bench.metrics.association import DESCRIPTIVE_HEADLINES, analyse
from symphony_bench.metrics.association_data import build_association_data
from symphony_bench.plugin.core import registry

ROOT = Path(__file__).resolve().parents[1]
ARCHITECTURE = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")


def words(text: str) -> set[str]:
    return set(re.findall(r"\w+", text))


def test_the_metrics_map_names_every_metrics_module():
    start = ARCHITECTURE.index("metrics/            pure statistics")
    described = words(ARCHITECTURE[start : ARCHITECTURE.index("```", start)])
    modules = {path.stem for path in (ROOT / "metrics").glob("*.py")} - {"__init__"}
    assert modules - described == set()


def test_the_run_tooling_docstring_names_only_its_modules():
    import symphony_bench.plugin.runs as runs

    named = set(re.findall(r"`([a-z_]+)`", runs.__doc__))
    modules = {path.stem for path in (ROOT / "plugin" / "runs").glob("*.py")}
    assert named and named <= modules


def test_the_tests_folders_are_the_ones_the_page_lists():
    listed = ARCHITECTURE[ARCHITECTURE.index("| `tests/` |") :].splitlines()[0]
    folders = {p.name for p in (ROOT / "tests").iterdir() if p.is_dir() and p.name != "__pycache__"}
    assert folders - {"support"} == set(re.findall(r"`(\w+)/`", listed)) - {"tests", "support"}


def test_adding_a_benchmark_is_the_entry_point_group_the_registry_reads():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    for group in (registry.BENCHMARK_GROUP, registry.BUILDER_GROUP):
        assert f"`{group}`" in ARCHITECTURE and project["entry-points"][group]
    assert f'[project.entry-points."{registry.BENCHMARK_GROUP}"]' in ARCHITECTURE


def test_every_headline_metric_with_an_interval_has_its_stderr_twin():
    rng = np.random.default_rng(0)
    templates = np.repeat(np.arange(5), 4)
    instruments = np.tile(np.arange(4), 5)
    data = build_association_data(
        [f"t{t}" for t in templates],
        [f"i{i}" for i in instruments],
        np.array(["male", "female", "male", "female"])[instruments],
        rng.uniform(1, 5, (templates.size, 3)),
        np.ones(templates.size, dtype=bool),
        template_ids=templates,
    )
    headline = analyse(data, n_boot=50).headline
    intervals = {name.removesuffix("_ci") for name in headline if name.endswith("_ci")}
    assert intervals and all(f"{name}_stderr" in headline for name in intervals)
    assert all(f"{name}_stderr" not in headline for name in DESCRIPTIVE_HEADLINES)
