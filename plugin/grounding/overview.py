"""The overview printed before the grounding entries of a report: one row per entry (its score with
a 95% interval, invalid rate, docs) and what a reference floor's invalid answers mean.

The genre-prior floor (plugin/grounding/baselines.py) answers only the genre-prior-reduced
benchmark's docs, the only ones with a prior prediction; on every other benchmark it gives no answer
by design, so its docs there read "no option read" and its invalid rate is 1.
"""

from __future__ import annotations

from symphony_bench.plugin.core.reporting import fmt, md
from symphony_bench.plugin.core.sections import LeaderboardColumns, ReportEntry

GENRE_PRIOR_FLOOR = "genre_prior"


def score_text(columns: LeaderboardColumns) -> str:
    metric = columns.ranking.metric
    estimate = columns.metrics.get(metric) or {}
    if estimate.get("value") is None:
        return "n/a"
    low, high = estimate.get("ci") or (None, None)
    interval = "" if low is None or high is None else f" (95% CI {fmt(low)} to {fmt(high)})"
    return f"{metric} {fmt(estimate['value'])}{interval}"


def overview(entries: list[ReportEntry], leaderboard) -> list[str]:
    """The overview's Markdown lines (none for fewer than two entries); `leaderboard` the section's
    entry -> LeaderboardColumns."""
    if len(entries) < 2:
        return []
    lines = [
        "## Instrument grounding: overview",
        "",
        "| task | score (higher is better) | invalid rate | docs |",
        "|---|---|---:|---:|",
    ]
    floors = []
    for entry in entries:
        columns = leaderboard(entry)
        invalid = (columns.invalid_rate or {}).get("value")
        lines.append(
            f"| {md(entry.label)} | {score_text(columns)} | {fmt(invalid)} | {columns.n} |"
        )
        if GENRE_PRIOR_FLOOR in str(entry.path) and invalid == 1.0:
            floors.append(entry.label)
    lines.append("")
    if floors:
        lines += [
            "The genre-prior floor answers only the genre-prior-reduced benchmark (the only docs "
            "with a prior prediction); on the other benchmarks it gives no answer by design, so "
            f'their docs read "no option read" and the invalid rate is 1.000 ({len(floors)} '
            "entries above). That is the floor working, not a failure.",
            "",
        ]
    return lines
