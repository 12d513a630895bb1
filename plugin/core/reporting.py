"""What `symphony-bench report` asks of each benchmark, and the number formatting they share.

Each benchmark package registers one `ReportSection` (see plugin/report.py): the record kinds it
owns, how to turn one task's records into report entries, how to link tasks of one model folder
(e.g. a log-prob task with a Likert task), and how to render its entries as Markdown.
"""

from __future__ import annotations

import itertools
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
    # a record of one of `kinds` -> what is wrong with it, or None (checked before any statistics)
    record_problem: Callable[[dict], str | None] = lambda record: None
    # one file's records -> True only if record_problem finds nothing in any of them, checked field
    # by field over all records at once (see `column`); False sends every record through
    # record_problem, which names the first bad one. The default always does.
    records_valid: Callable[[list[dict]], bool] = lambda records: False


def is_text(value) -> bool:
    return isinstance(value, str)


def is_integer(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def is_finite_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def field_problem(
    record: dict, checks: dict[str, tuple[Callable[[object], bool], str]]
) -> str | None:
    """The first field of `record` that is missing or fails its check, described; None if all pass.
    `checks` maps a field to (check, what the field must be)."""
    for field, (check, expected) in checks.items():
        if field not in record:
            return f"no {field!r} field"
        if not check(record[field]):
            return f"{field!r} is {preview(record[field])}, expected {expected}"
    return None


# ---- whole-column checks (a full suite's records in a fraction of the per-record time) ------------
# Each is a sufficient condition for its per-record twin above: it accepts a column only if every
# value would pass, and may refuse a column the per-record check would accept (an unusual but valid
# type), which costs only the per-record check. Values are tested by exact type, so JSON's
# int/float/str/bool/list/None are all a column can hold to pass.
MISSING = object()  # the value `column` gives for a record without the field (fails every check)


def columnwise(check: Callable[[str, list[dict]], bool]) -> Callable[[list[dict]], bool]:
    """A benchmark's `records_valid` from `check(kind, records)`, its column checks for records of one
    kind: True only if `record_problem` would find nothing in any record; False where any record may
    have a problem (mixed kinds, odd values), and the per-record check then names it."""

    def records_valid(records: list[dict]) -> bool:
        try:
            kinds = set(column(records, "kind"))
            return not records if len(kinds) != 1 else check(kinds.pop(), records)
        except (
            TypeError,
            ValueError,
            OverflowError,
        ):  # unhashable or unusual values: record by record
            return False

    return records_valid


def column(records: list[dict], field: str, default=MISSING) -> list:
    """The field's value in every record, in order (`default` where absent)."""
    return list(map(dict.get, records, itertools.repeat(field), itertools.repeat(default)))


def types_within(values, *types: type) -> bool:
    """Every value's exact type is one of `types` (int does not admit bool: bool is its own type)."""
    return set(map(type, values)) <= set(types)


def all_text(values) -> bool:
    """`is_text` of every value."""
    return types_within(values, str)


def all_integer(values) -> bool:
    """`is_integer` of every value."""
    return types_within(values, int)


def all_finite_numbers(values) -> bool:
    """`is_finite_number` of every value."""
    return types_within(values, int, float) and all(map(math.isfinite, values))


def flattened(lists: list[list]) -> list:
    """The items of every list, in order (the lists' types checked first by the caller)."""
    return list(itertools.chain.from_iterable(lists))


def preview(value, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


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
