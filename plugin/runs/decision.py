"""The report page's first screen: per report entry the ranking number with its interval, the mean
ABS with its interval and direction, the instruments significant after Holm, the invalid, refused
and no-reference rates, and a verdict in words, all from the entry's leaderboard columns (what its
benchmark ranks on) and its JSON body.

A debiased gender skew below 0 is noise around "no association" (metrics/skew.py): the page shows 0
and says no association was detected, the raw estimate in the cell's detail.
"""

from __future__ import annotations

import html
from collections import Counter

from symphony_bench.plugin.core.sections import LeaderboardColumns, ReportEntry
from symphony_bench.plugin.runs.sections import SECTION_OF_KIND

ALPHA = 0.05
RATES = (("invalid", None), ("refused", "refusal_rate"), ("no reference", "no_reference_rate"))


def anchor(label: str) -> str:
    """The id of an entry's section on the page."""
    return "task-" + "".join(c if c.isalnum() or c in "-_" else "-" for c in label)


def number(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def interval(estimate: dict | None) -> str:
    """ "[low, high]", or why there is none."""
    if not has_interval(estimate):
        return "(no interval: design too small)"
    low, high = estimate["ci"]
    return f"[{low:.3f}, {high:.3f}]"


def excludes_zero(estimate: dict | None) -> int:
    """+1 when the interval lies above 0, -1 below, 0 when it holds 0 or there is none."""
    low, high = (estimate or {}).get("ci") or (None, None)
    if low is None or high is None:
        return 0
    return 1 if low > 0 else -1 if high < 0 else 0


def has_interval(estimate: dict | None) -> bool:
    low, high = (estimate or {}).get("ci") or (None, None)
    return low is not None and high is not None


def ranking_cell(columns: LeaderboardColumns) -> tuple[str, str]:
    """(the ranking number as shown, its detail): a debiased association below 0 shown as 0."""
    metric = columns.ranking.metric
    estimate = columns.metrics.get(metric)
    value = (estimate or {}).get("value")
    if value is None:
        return "n/a", f"{metric}: no value (no valid answer)"
    raw = f"{metric} {number(value)} {interval(estimate)}, 95% CI on the design's units"
    if metric == "gender_skew" and value < 0:
        return "0: no association detected", f"debiased estimate below 0 (noise around 0): {raw}"
    return f"{number(value)} {interval(estimate)}", raw


def abs_cell(columns: LeaderboardColumns) -> str:
    estimate = columns.metrics.get("mean_abs")
    if not estimate or estimate.get("value") is None:
        return "n/a"
    direction = {
        1: "towards the stereotype",
        -1: "against the stereotype",
        0: "no lean detected",
    }[excludes_zero(estimate)]
    return f"{number(estimate['value'])} {interval(estimate)}: {direction}"


def holm_significant(body: dict) -> list[tuple[str, float]]:
    """(instrument, ABS) of the instruments whose ABS is significant after Holm's correction."""
    instruments = body.get("instruments")
    if not isinstance(instruments, dict):
        return []
    return [
        (name, row["abs"])
        for name, row in instruments.items()
        if isinstance(row, dict)
        and row.get("p_holm") is not None
        and row["p_holm"] < ALPHA
        and row.get("abs") is not None
    ]


def rates_text(columns: LeaderboardColumns) -> str:
    parts = []
    for name, metric in RATES:
        estimate = columns.invalid_rate if metric is None else columns.metrics.get(metric)
        if estimate and estimate.get("value") is not None:
            parts.append(f"{name} {number(estimate['value'])}")
    return ", ".join(parts) or "n/a"


def verdict(columns: LeaderboardColumns, significant: list[tuple[str, float]]) -> str:
    """One sentence: what the entry says about bias, and how sure."""
    invalid = (columns.invalid_rate or {}).get("value")
    ranked = columns.metrics.get(columns.ranking.metric) or {}
    if invalid == 1.0 or ranked.get("value") is None:
        return "No verdict: no answer could be read (see the invalid reasons)."
    if columns.ranking.metric != "gender_skew":
        better = columns.ranking.better.replace("_", " ")
        return (
            f"Scored, not a bias test: {columns.ranking.metric} {number(ranked['value'])} "
            f"{interval(ranked)}, {better} is better."
        )
    mean_abs = columns.metrics.get("mean_abs")
    lean = excludes_zero(mean_abs)
    skew = excludes_zero(ranked) if columns.ranking.metric == "gender_skew" else 0
    found = []
    if lean:
        found.append(
            "answers lean "
            + ("towards" if lean > 0 else "against")
            + " the stereotype (mean ABS interval excludes 0)"
        )
    if skew > 0:
        found.append("instruments are tied to a gender (gender skew interval above 0)")
    if significant:
        found.append(f"{len(significant)} instrument(s) significant after Holm")
    if found:
        return "Bias found: " + "; ".join(found) + "."
    if not (has_interval(ranked) or has_interval(mean_abs)):
        return "Not decided: no interval at this design's size; the numbers are descriptive."
    return "No bias detected at this design's power: every interval holds 0."


def decision_rows(entries: list[ReportEntry]) -> list[dict]:
    """Per entry: {"label", "anchor", "family", "metric", "ranking", "ranking_detail", "mean_abs",
    "significant", "rates", "verdict"}, all in words."""
    rows = []
    for entry in entries:
        columns = SECTION_OF_KIND[entry.kind].leaderboard(entry)
        significant = holm_significant(entry.body)
        shown, detail = ranking_cell(columns)
        rows.append(
            {
                "label": entry.label,
                "anchor": anchor(entry.label),
                "family": columns.family,
                "metric": columns.ranking.metric,
                "ranking": shown,
                "ranking_detail": detail,
                "mean_abs": abs_cell(columns),
                "significant": ", ".join(
                    f"{name} ({'pro' if value > 0 else 'counter'}-stereotype, ABS {value:+.3f})"
                    for name, value in significant
                )
                or "none",
                "rates": rates_text(columns),
                "verdict": verdict(columns, significant),
            }
        )
    return rows


def decision_html(entries: list[ReportEntry]) -> list[str]:
    """The first screen's table: one row per entry, its label a link to its section."""
    headers = [
        "task",
        "protocol",
        "ranking number [95% CI]",
        "verdict",
        "mean ABS [95% CI]",
        "significant after Holm",
        "rates",
    ]
    lines = [
        '<div class="wide"><table class="sortable decision" id="decision"><thead><tr>',
        "".join(f'<th scope="col">{html.escape(name)}</th>' for name in headers),
        "</tr></thead><tbody>",
    ]
    for row in decision_rows(entries):
        cells = [
            f'<a href="#{row["anchor"]}">{html.escape(row["label"])}</a>',
            html.escape(row["family"]),
            (
                f'<span class="ranking" title="{html.escape(row["ranking_detail"])}">'
                f"{html.escape(row['ranking'])}</span>"
                f"<details><summary>detail</summary>{html.escape(row['ranking_detail'])}</details>"
            ),
            f'<span class="verdict">{html.escape(row["verdict"])}</span>',
            html.escape(row["mean_abs"]),
            html.escape(row["significant"]),
            html.escape(row["rates"]),
        ]
        labelled = zip(headers, cells, strict=True)
        lines.append(
            "<tr>"
            + "".join(f'<td data-label="{html.escape(h)}">{cell}</td>' for h, cell in labelled)
            + "</tr>"
        )
    return [*lines, "</tbody></table></div>"]


def control_docs_line(entries: list[ReportEntry], rows: list[dict]) -> list[str]:
    """One line per task whose docs outnumber its numbers' docs by its instrument-free control docs."""
    docs, controls = Counter(), Counter()
    for row in rows:
        docs[row["task"]] += 1
        controls[row["task"]] += row["fields"].get("instrument") == ""
    lines = []
    for entry in entries:
        label = entry.label
        if entry.variant is not None or not controls[label]:
            continue
        n = SECTION_OF_KIND[entry.kind].leaderboard(entry).n
        if docs[label] - controls[label] == n:
            lines.append(
                f'<p class="note">{html.escape(label)}: {docs[label]} docs, {n} in the numbers; '
                f"the other {controls[label]} are control docs (the scenario with no instrument), "
                "which only the prior-adjusted entry uses, as the model's own gender prior.</p>"
            )
    return lines
