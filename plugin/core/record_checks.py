"""Checks of the per-doc records' fields, one record at a time and a whole column at a time.

A benchmark's `record_problem` names the first field of a record that is missing or of the wrong
kind (`field_problem`); its `records_valid` runs the same checks on whole columns of a file's
records (`columnwise`), which takes a fraction of the time on a full suite's records.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable


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
