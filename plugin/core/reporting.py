"""Numbers as the run tooling's outputs write them: JSON-ready floats, estimates with intervals,
and the Markdown's number formats."""

from __future__ import annotations

import csv
import html
import io
import math
import statistics

Z95 = statistics.NormalDist().inv_cdf(0.975)  # the two-sided 95% normal quantile


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


def estimate(value, stderr, ci) -> dict:
    """{"value", "stderr", "ci": [low, high]} as a leaderboard row holds a metric; [None, None]
    without an interval."""
    interval = list(ci) if ci and None not in ci else [None, None]
    return {"value": value, "stderr": stderr, "ci": interval}


def normal_estimate(value, stderr) -> dict:
    """A share's estimate with value +- Z95 * stderr, clipped to [0, 1]; no interval without a stderr."""
    if value is None or stderr is None:
        return estimate(value, stderr, None)
    return estimate(value, stderr, [max(0.0, value - Z95 * stderr), min(1.0, value + Z95 * stderr)])


MARKDOWN_SPECIAL = str.maketrans(
    {"|": "\\|", "`": "\\`", "[": "\\[", "]": "\\]", "\n": " ", "\r": " "}
)


def untested_change(change: dict, why: str) -> dict:
    """A paired change given without stderr, interval, p-value or MDE, and `why` as its note: where
    its inference does not hold it is not shown as significant, and a `--fail-on` rule on it
    cannot decide (exit 2)."""
    nan = float("nan")
    withheld = {"stderr": nan, "ci": [nan, nan], "p_value": nan, "mde": nan, "mde_stderr": nan}
    return {**change, **withheld, "note": why}


def md(value) -> str:
    """A value (a model id, a task, instrument or file name: text a user or a run controls) as
    Markdown text that stays inside its table cell, line or heading: HTML escaped, and the
    characters that end a cell, start a code span or a link, or break a line neutralised."""
    return html.escape(str(value), quote=False).translate(MARKDOWN_SPECIAL)


FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def formula_safe(text: str) -> str:
    """Text that a spreadsheet will not run (a licence or credit, wherever it is written: a
    dataset's rows, its card, a CSV): one starting like a formula gets a leading apostrophe."""
    return "'" + text if text.startswith(FORMULA_STARTS) else text


def csv_cell(value):
    """A CSV cell that a spreadsheet will not run (`formula_safe`; numbers stay numbers)."""
    return formula_safe(value) if isinstance(value, str) else value


def csv_text(rows: list[dict], columns: list[str] | None = None) -> str:
    """The CSV of `rows` (columns: those given, else every key in order of appearance), every cell
    through `csv_cell`, None as an empty cell: the one CSV writer of the outputs."""
    columns = columns or list(dict.fromkeys(column for row in rows for column in row))
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=columns, lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow(
            {column: "" if row.get(column) is None else csv_cell(row[column]) for column in columns}
        )
    return buffer.getvalue()


def json_ready(value):
    """A value as JSON takes it: dicts (keys as text) and sequences walked, numpy values as plain
    Python, numbers finite floats or None (JSON has no NaN): the one cleaner of the outputs."""
    if hasattr(value, "tolist") and not isinstance(value, (str, bytes)):
        value = value.tolist()  # a numpy scalar or array
    if isinstance(value, dict):
        return {str(key): json_ready(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_ready(item) for item in value]
    if isinstance(value, float):
        return number(value)
    return value
