"""The leaderboard's static page: one self-contained `index.html` (no network: CSS, JS and plots
inline) for the content of leaderboard.json (plugin/runs/leaderboard.py): per entry (task, or its
prior-adjusted / calibrated variant) a sortable table of the models and a forest plot of each
headline metric and of the invalid rate, models with their 95% intervals; then the provenance.

The plots are SVG written here, not by matplotlib: a 50-model forest plot costs ~0.5 s in
matplotlib and a leaderboard draws dozens. Sorting: plugin/runs/sortable.py
(`index.html#sort=<table id>:<column index>[:desc]` opens the page sorted).
"""

from __future__ import annotations

import html
import json
import math

from symphony_bench.plugin.core.sections import entry_label
from symphony_bench.plugin.runs.sortable import SORTABLE_SCRIPT, SORTABLE_STYLE

STYLE = """
body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5em; color: #222; background: #fff; }
table { border-collapse: collapse; margin: 0.5em 0 1em; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.6em; text-align: left; white-space: nowrap; }
td.number { text-align: right; font-variant-numeric: tabular-nums; }
.wide { overflow-x: auto; }
.tie { color: #8a5a00; }
.plots { display: flex; flex-wrap: wrap; gap: 0.5em; }
svg.forest { border: 1px solid #eee; font: 11px system-ui, sans-serif; }
svg.forest .ci { stroke: #878787; stroke-width: 1.5; }
svg.forest .point { fill: #fff; stroke: #2166ac; stroke-width: 1.5; }
svg.forest .leader { fill: #2166ac; }
svg.forest .axis, svg.forest .zero { stroke: #222; }
svg.forest .grid { stroke: #eee; }
"""

SCRIPT = SORTABLE_SCRIPT + 'document.body.setAttribute("data-ready", "1");\n'


def ranked_by(rank: dict) -> str:
    """ "ranked by gender_skew (lower): <why>" for an entry's table."""
    rule = f"ranked by {rank['metric']} ({rank['better'].replace('_', ' ')})"
    return f"{rule}: {rank['why']}" if rank.get("why") else rule


def page_html(leaderboard: dict) -> str:
    rows = leaderboard["rows"]
    entries = rows_by_entry(rows)
    body = [
        "<h1>symphony-bench leaderboard</h1>",
        (
            f"<p>{len(rows)} rows (model &times; entry). Metrics: value [95% interval]. Ranks: "
            f"{html.escape(leaderboard.get('rank_rule', ''))}. Click a column header to sort.</p>"
        ),
    ]
    for index, (name, entry_rows) in enumerate(entries.items(), start=1):
        body += entry_section(f"entry-{index}", name, entry_rows)
    body += ["<h2>Provenance</h2>", provenance_table(rows)]
    return "\n".join(
        [
            "<!DOCTYPE html>",
            '<html lang="en"><head><meta charset="utf-8">',
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            "<title>symphony-bench leaderboard</title>",
            f"<style>{STYLE}{SORTABLE_STYLE}</style></head><body>",
            *body,
            f"<script>{SCRIPT}</script>",
            "</body></html>",
            "",
        ]
    )


def rows_by_entry(rows: list[dict]) -> dict[str, list[dict]]:
    entries: dict[str, list[dict]] = {}
    for row in rows:
        entries.setdefault(entry_label(row["task"], row.get("variant")), []).append(row)
    return entries


def metric_names(rows: list[dict]) -> list[str]:
    """Every headline metric of these rows, in first-seen order."""
    return list(dict.fromkeys(name for row in rows for name in row["metrics"]))


def entry_section(table_id: str, name: str, rows: list[dict]) -> list[str]:
    metrics = metric_names(rows)
    rank = rows[0]["rank"]
    plots = [
        forest_svg(
            f"{name}: {metric}",
            [row["model"] for row in rows],
            [row["metrics"].get(metric) for row in rows],
            leaders(rows),
            share=metric in rows[0].get("shares", ()),
        )
        for metric in metrics
    ]
    plots.append(
        forest_svg(
            f"{name}: invalid rate",
            [row["model"] for row in rows],
            [row.get("invalid_rate") for row in rows],
            leaders(rows),
            share=True,
        )
    )
    return [
        f"<h2>{html.escape(name)}</h2>",
        (
            f"<p>{html.escape(ranked_by(rank))}; "
            '<span class="tie">=</span> marks a rank shared with another model</p>'
        ),
        results_table(table_id, rows, metrics),
        '<div class="plots">',
        *(svg for svg in plots if svg),
        "</div>",
    ]


def leaders(rows: list[dict]) -> list[bool]:
    return [row["rank"]["position"] == 1 for row in rows]


def results_table(table_id: str, rows: list[dict], metrics: list[str]) -> str:
    headers = ["rank", "model", *metrics, "invalid rate", "n", "config hash"]
    lines = [_table_head(table_id, headers)]
    for row in rows:
        rank = _words_cell(ALL_INVALID) if all_answers_invalid(row) else _rank_cell(row["rank"])
        cells = [rank, _cell(row["model"])]
        cells += [_estimate_cell(row["metrics"].get(name)) for name in metrics]
        cells += [
            _estimate_cell(row.get("invalid_rate")),
            _cell(row["n"], number=True),
            _cell((row["provenance"].get("config_hash") or "")[:12] or None),
        ]
        lines.append("<tr>" + "".join(cells) + "</tr>")
    return "\n".join(lines + ["</tbody></table></div>"])


def provenance_table(rows: list[dict]) -> str:
    """One row per run folder and task, one column per provenance fact (nested keys joined by '.')."""
    seen, flat = set(), []
    for row in rows:
        if (row.get("run"), row["task"]) not in seen:
            seen.add((row.get("run"), row["task"]))
            flat.append((row, flatten(row.get("provenance") or {})))
    keys = list(dict.fromkeys(key for _, facts in flat for key in facts))
    lines = [_table_head("provenance", ["model", "task", *keys])]
    for row, facts in flat:
        cells = [_cell(row["model"]), _cell(row["task"]), *(_cell(facts.get(key)) for key in keys)]
        lines.append("<tr>" + "".join(cells) + "</tr>")
    return "\n".join(lines + ["</tbody></table></div>"])


def flatten(value, prefix: str = "") -> dict:
    if not isinstance(value, dict):
        return {prefix: value}
    flat = {}
    for key, inner in value.items():
        flat.update(flatten(inner, f"{prefix}.{key}" if prefix else str(key)))
    return flat


def _table_head(table_id: str, headers: list[str]) -> str:
    cells = "".join(f'<th scope="col">{html.escape(header)}</th>' for header in headers)
    return f'<div class="wide"><table class="sortable" id="{table_id}"><thead><tr>{cells}</tr></thead><tbody>'


def _cell(value, number: bool = False) -> str:
    text = "null" if value is None else value if isinstance(value, str) else json.dumps(value)
    sort = "" if value is None else text
    css = ' class="number"' if number else ""
    return f'<td{css} data-sort="{html.escape(sort)}">{html.escape(text)}</td>'


def _estimate_cell(estimate: dict | None) -> str:
    """value [low, high], sorting by value; n/a without a value."""
    if estimate is None or estimate.get("value") is None:
        return _words_cell("n/a")
    low, high = estimate.get("ci") or (None, None)
    text = f"{estimate['value']:.3f}" + (
        "" if low is None or high is None else f" [{low:.3f}, {high:.3f}]"
    )
    return f'<td class="number" data-sort="{estimate["value"]!r}">{html.escape(text)}</td>'


ALL_INVALID = "all answers invalid"


def all_answers_invalid(row: dict) -> bool:
    """No valid answer: the invalid rate 1 and no value of the ranking metric."""
    invalid = row.get("invalid_rate")
    ranked = row["metrics"].get(row["rank"]["metric"])
    return bool(
        invalid and invalid.get("value") == 1.0 and (ranked is None or ranked.get("value") is None)
    )


def _words_cell(text: str) -> str:
    """A cell that says why there is no number (sorts last)."""
    return f'<td class="number" data-sort="">{html.escape(text)}</td>'


def _rank_cell(rank: dict) -> str:
    position = rank.get("position")
    if position is None:
        return _words_cell("unranked")
    tie = '<span class="tie">=</span>' if rank.get("tied") else ""
    title = (
        f' title="tied with {html.escape(", ".join(rank["tied_with"]))}"'
        if rank.get("tied_with")
        else ""
    )
    return f'<td class="number" data-sort="{position}"{title}>{tie}{position}</td>'


# ---- forest plot as SVG ------------------------------------------------------------------------
WIDTH, ROW, TOP, BOTTOM, RIGHT = 560, 20, 28, 34, 16


LABEL_ROOM = 260  # px left of a forest plot's axis for the row labels
CHAR_WIDTH = 6.6  # px per character of a label (12 px sans-serif, wide letters included)


def fitted(label: str) -> str:
    """A label cut to the room left of the axis (the full one is the element's <title>): the end
    is kept, where model names differ."""
    room = int((LABEL_ROOM - 18) / CHAR_WIDTH)
    return label if len(label) <= room else "…" + label[-(room - 1) :]


def forest_svg(
    title: str,
    labels: list[str],
    estimates: list[dict | None],
    leader: list[bool],
    share: bool = False,
) -> str | None:
    """Each label's value (circle, filled for rank 1) and 95% interval (line), top to bottom in the
    given order; labels without a value are left out. Ticks carry their values in data-value, so
    the drawing can be read back. A `share` (a rate) keeps its axis inside [0, 1]. None when
    nothing has a value."""
    kept = [
        (label, estimate, first)
        for label, estimate, first in zip(labels, estimates, leader, strict=True)
        if estimate and estimate.get("value") is not None and math.isfinite(estimate["value"])
    ]
    if not kept:
        return None
    ends = [v for _, e, _ in kept for v in (e["value"], *(e.get("ci") or ())) if v is not None]
    ticks = share_ticks(ends) if share else nice_ticks(min(ends), max(ends))
    left = min(LABEL_ROOM, 12 + CHAR_WIDTH * max(len(label) for label, _, _ in kept))
    height = TOP + ROW * len(kept) + BOTTOM
    x = _scale(ticks[0], ticks[-1], left, WIDTH - RIGHT)
    parts = [
        (
            f'<svg class="forest" xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" '
            f'viewBox="0 0 {WIDTH} {height}" role="img" aria-label="{html.escape(title)}">'
        ),
        f'<text class="title" x="{WIDTH / 2}" y="16" text-anchor="middle">{html.escape(title)}</text>',
    ]
    axis_y = TOP + ROW * len(kept)
    for tick in ticks:
        parts += [
            f'<line class="grid" x1="{x(tick):.2f}" x2="{x(tick):.2f}" y1="{TOP}" y2="{axis_y}"/>',
            (
                f'<text class="tick" data-value="{tick!r}" x="{x(tick):.2f}" y="{axis_y + 14}" '
                f'text-anchor="middle">{_tick_text(tick)}</text>'
            ),
        ]
    parts.append(
        f'<line class="axis" x1="{left}" x2="{WIDTH - RIGHT}" y1="{axis_y}" y2="{axis_y}"/>'
    )
    if ticks[0] <= 0 <= ticks[-1]:
        parts.append(
            f'<line class="zero" x1="{x(0):.2f}" x2="{x(0):.2f}" y1="{TOP}" y2="{axis_y}"/>'
        )
    for k, (label, estimate, first) in enumerate(kept):
        y = TOP + ROW * k + ROW / 2
        parts.append(
            f'<text class="label" x="{left - 6}" y="{y + 4}" text-anchor="end">'
            f"{html.escape(fitted(label))}<title>{html.escape(label)}</title></text>"
        )
        low, high = estimate.get("ci") or (None, None)
        if low is not None and high is not None:
            parts.append(
                f'<line class="ci" x1="{x(low):.2f}" x2="{x(high):.2f}" y1="{y}" y2="{y}"/>'
            )
        css = "point leader" if first else "point"
        parts.append(f'<circle class="{css}" cx="{x(estimate["value"]):.2f}" cy="{y}" r="4"/>')
    return "".join(parts + ["</svg>"])


def share_ticks(ends: list[float]) -> list[float]:
    """Ticks for rates: their range clipped to [0, 1] (the whole of it when they are all one value,
    e.g. every model at 0 or at 1); 1, 2 or 5 x 10^k steps never pass 0 or 1 from inside."""
    low, high = max(0.0, min(ends)), min(1.0, max(ends))
    return nice_ticks(0.0, 1.0) if high - low < 1e-12 else nice_ticks(low, high)


def nice_ticks(low: float, high: float, most: int = 6) -> list[float]:
    """Round tick values (steps of 1, 2 or 5 x 10^k) covering [low, high], at most `most` steps apart."""
    if high - low < 1e-12:
        low, high = low - 0.5 * max(abs(low), 1e-3), high + 0.5 * max(abs(high), 1e-3)
    smallest_step = (high - low) / (most - 1)
    magnitude = 10 ** math.floor(
        math.log10(smallest_step)
    )  # smallest_step / magnitude lies in [1, 10)
    step = next(m * magnitude for m in (1, 2, 5, 10) if m * magnitude >= smallest_step)
    first, last = math.floor(low / step), math.ceil(high / step)
    decimals = max(0, 2 - math.floor(math.log10(step)))
    return [round(k * step, decimals) for k in range(first, last + 1)]


def _scale(low: float, high: float, left: float, right: float):
    return lambda value: left + (value - low) / (high - low) * (right - left)


def _tick_text(value: float) -> str:
    return f"{value:.10g}"
