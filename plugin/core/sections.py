"""What the run tooling (plugin/runs: report, compare, leaderboard, plots) asks of a benchmark.

Each benchmark package defines one `ReportSection` and registers it (plugin.core.registry): the
record kinds it owns and how to check them, the report entries of a task and how tasks of one model
folder link, the Markdown, the figures, the paired comparison of two runs, the leaderboard columns,
and which record fields hold the answer (the rest identify the doc). The run tooling knows a
benchmark only through this protocol, so adding a benchmark is its own package plus its entry point.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path


def entry_label(task_label: str, variant: str | None = None) -> str:
    """How the report names an entry: the task's label, then ":variant" for a variant of it (the
    prior-adjusted or calibrated numbers of the same docs)."""
    return task_label if variant is None else f"{task_label}:{variant}"


@dataclass(frozen=True)
class TaskRecords:
    """One task's checked records from one samples file, in file order."""

    task: str
    label: str  # the task name, prefixed by `folder_label` when several model folders ran the task
    folder_label: str  # the model folder's path under the run folder in the label, or ""
    kind: str
    records: list[dict]
    doc_ids: list[int]  # the harness's doc_id of each record (unique)
    path: Path  # the samples file; its folder is the model folder

    def entry(self, body: dict, variant: str | None = None) -> ReportEntry:
        """A report entry of these records (`variant`: None for the task's own numbers)."""
        label = entry_label(self.label, variant)
        return ReportEntry(label, self.task, self.kind, variant, self.folder_label, self.path, body)


@dataclass
class ReportEntry:
    """One entry of a report: `body` is what `report --json` writes under `label`."""

    label: str
    task: str
    kind: str  # the kind of the records it was computed from
    variant: str | None
    folder_label: str
    path: Path  # the samples file of its records
    body: dict
    # what the benchmark recorded about the entry's docs, for its links and figures (not in --json)
    facts: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Ranking:
    metric: str
    better: str  # "lower", "higher" or "closer_to_zero" (|x| ranked)
    why: str = ""  # one sentence the leaderboard shows beside the rule


@dataclass(frozen=True)
class LeaderboardColumns:
    """What a leaderboard row shows of an entry: {metric: estimate} (see reporting.estimate)."""

    family: str
    metrics: dict[str, dict]
    invalid_rate: dict | None
    ranking: Ranking
    n: int
    shares: tuple[str, ...] = ()  # the metrics that are shares: their plots keep to [0, 1]


@dataclass(frozen=True)
class DesignSize:
    """An entry's design as `plan` scales it: `count` units (`unit`: what is resampled, e.g.
    "templates", "clips") holding `docs` docs; `variants` the unit counts of the benchmark's own
    task variants ({"mini": 5, "full": 86}; empty where none is known); `limit_per_unit` the docs
    per unit in the harness's doc order when every unit's docs are contiguous there, so that
    `--limit n x limit_per_unit` runs the first n units (None otherwise)."""

    unit: str
    count: int
    docs: int
    variants: Mapping[str, int] = field(default_factory=dict)
    limit_per_unit: int | None = None


class CannotReread(ValueError):
    """A samples line that lacks what re-reading its raw answer needs (said as the message)."""


def _no_design(entry: ReportEntry) -> DesignSize | None:
    return None


def _no_lines(*arguments) -> list[str]:
    return []


def _no_figures(*arguments) -> dict[str, Callable]:
    return {}


def _always_read(record: dict) -> str:
    return ""


def _no_links(entries: dict[str, ReportEntry], tasks: list[TaskRecords]) -> None:
    return None


@dataclass(frozen=True)
class ReportSection:
    kinds: tuple[str, ...]
    # a record of one of `kinds` -> what is wrong with it, or None (checked before any statistics)
    record_problem: Callable[[dict], str | None]
    # one file's records -> True only if record_problem finds nothing in any of them, checked field
    # by field over all records at once (see record_checks.columnwise); False sends every record
    # through record_problem, which names the first bad one.
    records_valid: Callable[[list[dict]], bool]
    # (task records, report options) -> the task's entries
    entries: Callable[[TaskRecords, dict], list[ReportEntry]]
    # (entry) -> Markdown lines
    render: Callable[[ReportEntry], list[str]]
    # (entry) -> its leaderboard row's columns
    leaderboard: Callable[[ReportEntry], LeaderboardColumns]
    # (label, BASE records, CANDIDATE records of the same docs in the same order, n_boot, seed) ->
    # {label: comparison}: "kind", "units", "n_paired", "metrics" {metric: change}, "flips"
    # {what: McNemar test}, and what else the benchmark compares (see plugin/runs/compare.py)
    comparisons: Callable[[str, list[dict], list[dict], int, int], dict[str, dict]]
    # record fields that hold the model's answer: every other field (run facts aside) identifies
    # the doc, and must agree between two runs of the same doc
    answer_fields: frozenset[str] = frozenset()
    # (record) -> why nothing could be read from the answer (e.g. "no_json", "refused"), "" when
    # something was: the HTML report's doc browser filters on it
    no_reading_reason: Callable[[dict], str] = _always_read
    # (all entries so far by label, this section's tasks of one model folder in file order) ->
    # adds what links the tasks (e.g. agreement between two protocols) to their entries' bodies
    link: Callable[[dict[str, ReportEntry], list[TaskRecords]], None] = _no_links
    # (this section's entries) -> lines printed before every entry (e.g. an overview table)
    overview: Callable[[list[ReportEntry]], list[str]] = _no_lines
    # (entry) -> {plot label: draw() -> a matplotlib Figure or None}
    figures: Callable[[ReportEntry], dict[str, Callable]] = _no_figures
    # (this section's entries) -> plots across entries, drawn after every entry's own
    run_figures: Callable[[list[ReportEntry]], dict[str, Callable]] = _no_figures
    # ({label: comparison} of this section's tasks) -> lines for compare's Markdown summary
    comparison_notes: Callable[[dict[str, dict]], list[str]] = _no_lines
    # task facts only this benchmark knows, each from a task's records ({fact name: function}):
    # provenance records them and two runs that differ in one are not compared item by item
    task_facts: Mapping[str, Callable[[list[dict]], object]] = field(default_factory=dict)
    # record fields that are run facts only this benchmark's docs carry (copied from its docs, e.g.
    # the scenario set's hash): provenance reads each as the one value a task's records hold and
    # compares it between runs, as the universal run facts (plugin.core.run_facts); not doc identity
    run_fields: tuple[str, ...] = ()
    # (entry) -> its design's size for `plan` (None: plan cannot scale it)
    design: Callable[[ReportEntry], DesignSize | None] = _no_design
    # (a samples line decoded whole, its stored record) -> the record the installed readers make of
    # the line's raw answer (plugin.core.raw_answers), through the code the task's process_results
    # runs, with the reader's version (plugin.core.reader_version); raises CannotReread naming what
    # the line lacks. None: the benchmark's answers cannot be re-read
    rescore: Callable[[dict, dict], dict] | None = None
    # (record kind, metric name, the task's records) -> what the task's aggregation of that metric
    # gives (the results file's value); None for a name no aggregation of the kind has
    aggregate: Callable[[str, str, list[dict]], float | None] | None = None
