"""The benchmarks and builders the package knows, read from their entry points.

A benchmark registers itself with one entry point in the group `symphony_bench.benchmarks` (name ->
a `Benchmark`: its package, its `ReportSection`, its report options, its `tasks-path` options); a
builder with one in `symphony_bench.builders` (build kind -> a `BuildKind`: what `publish` checks of
its folders and how its default set is built). The run tooling, `publish`, the command line and the
layer rule read these, so adding a benchmark is its package plus its entry point.

The objects an entry point names live in light modules (standard library and light core modules
only): the command line reads them at start. What is heavy (a section, a builder) is named by a
"module:attribute" path and imported when used.
"""

from __future__ import annotations

import argparse
import importlib
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from importlib.metadata import entry_points
from pathlib import Path

BENCHMARK_GROUP = "symphony_bench.benchmarks"
BUILDER_GROUP = "symphony_bench.builders"


def load(path: str):
    """The object a "module:attribute" path names."""
    module, _, attribute = path.partition(":")
    return getattr(importlib.import_module(module), attribute)


@dataclass(frozen=True)
class ReportOption:
    """A `report` option only this benchmark reads: `--<name with dashes>`, parsed by `type`, given
    to the benchmark's section as `options[name]` (`default` where not given: also in the reports
    `leaderboard` and `compare` build). `input_file`: the value is a file the report reads (an
    output may not replace it)."""

    name: str
    type: Callable[[str], object]
    help: str
    metavar: str | None = None
    input_file: bool = False
    default: object = None

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")


@dataclass(frozen=True)
class TasksPathOptions:
    """What the benchmark adds to `symphony-bench tasks-path`: `add_arguments(parser)` and
    `folder(harness, task folder, parsed arguments) -> the folder to print`."""

    add_arguments: Callable[[argparse.ArgumentParser], None]
    folder: Callable[[str, Path, argparse.Namespace], Path]


@dataclass(frozen=True)
class Benchmark:
    """One benchmark: `package` its import package (the package of plugin/grounding, say),
    `section` the "module:attribute" of its ReportSection."""

    package: str
    section: str
    report_options: tuple[ReportOption, ...] = ()
    tasks_path: TasksPathOptions | None = None

    def load_section(self):
        return load(self.section)


@dataclass(frozen=True)
class BuildKind:
    """What `publish` knows of one build kind: `media` the (column, datasets feature type) its rows
    hold their media in; `card_text` what its card must say (a source's licence); `task_data` a
    task loads it (a task YAML pins its content digest); `licensed_rows` every row names its
    licence; `build_default` the "module:function" that writes its default set into a folder."""

    kind: str
    media: tuple[str, str] | None = None
    card_text: str | None = None
    task_data: bool = False
    licensed_rows: bool = False
    build_default: str | None = None


class NoBenchmarks(ValueError):
    """No benchmark is registered: the installed metadata lacks this package's entry points."""


@cache
def benchmarks() -> dict[str, Benchmark]:
    """{entry point name: Benchmark}, by name; NoBenchmarks if there is none."""
    found = {point.name: point.load() for point in entry_points(group=BENCHMARK_GROUP)}
    if not found:
        raise NoBenchmarks(
            f"no benchmark is registered (entry point group {BENCHMARK_GROUP}): the installed "
            "package metadata is older than the code; reinstall it (pip install -e .)"
        )
    return dict(sorted(found.items()))


@cache
def build_kinds() -> dict[str, BuildKind]:
    """{build kind: BuildKind}, by kind."""
    found = {point.name: point.load() for point in entry_points(group=BUILDER_GROUP)}
    return dict(sorted(found.items()))


def build_kind(kind: str) -> BuildKind | None:
    return build_kinds().get(kind)


def report_options() -> tuple[ReportOption, ...]:
    return tuple(
        option for benchmark in benchmarks().values() for option in benchmark.report_options
    )


def build_default_set(kind: str, out: Path) -> subprocess.CompletedProcess:
    """Writes the default set of a registered build kind into `out`, in a child interpreter (a
    benchmark reaches a builder through the registry, never by import; the child's failure is its
    own). Returns the finished process: its return code and captured output."""
    command = [sys.executable, "-m", "symphony_bench.plugin.core.build_default", kind, str(out)]
    return subprocess.run(command, capture_output=True, text=True, check=False)
