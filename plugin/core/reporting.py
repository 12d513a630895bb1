"""What `symphony-bench report` asks of each benchmark, and the number formatting they share.

Each benchmark package registers one `ReportSection` (see plugin/report.py): the record kinds it
owns, how to turn one task's records into report entries, how to link tasks of one model folder
(e.g. a log-prob task with a Likert task), and how to render its entries as Markdown.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class TaskRecords:
    """One task's records from one samples file."""

    task: str
    label: str  # the task name, prefixed by the model folder when several folders ran it
    kind: str
    records: list[dict]
    path: Path


@dataclass(frozen=True)
class ReportSection:
    kinds: tuple[str, ...]
    # (task records, options) -> {label: entry}; options hold the report's command-line options
    entries: Callable[[TaskRecords, dict], dict[str, dict]]
    # (all entries so far, the tasks of one model folder in file order) -> adds linked sections in place
    link: Callable[[dict[str, dict], list[TaskRecords]], None] = lambda entries, tasks: None
    # (label, entry) pairs of this section -> lines printed before every entry (e.g. an overview table)
    overview: Callable[[list[tuple[str, dict]]], list[str]] = lambda entries: []
    # (label, entry) -> Markdown lines
    render: Callable[[str, dict], list[str]] = lambda label, entry: []


def number(value):
    """A float for JSON, or None where it is not finite (JSON has no NaN)."""
    value = float(value)
    return value if math.isfinite(value) else None


def fmt(value, digits: int = 3) -> str:
    return "n/a" if value is None else f"{value:.{digits}f}"


def fmt_se(value) -> str:
    """A standard error with two significant digits, so a small non-zero one never prints as 0.000."""
    if value is None:
        return "n/a"
    return f"{value:.2g}" if value != 0 and abs(value) < 0.01 else f"{value:.3f}"


def fmt_p(value) -> str:
    return "n/a" if value is None else f"{value:.2g}"
