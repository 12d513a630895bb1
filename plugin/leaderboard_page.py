"""The leaderboard's static page: one self-contained `index.html` (no network: CSS, JS and the plots
as SVG inline) with sortable tables of the leaderboard rows, their provenance, and per task a forest
plot of each headline metric by model and the invalid rates.

Sorting is plain JS: a click on a column header sorts by that column (numbers by value, nulls last),
a second click reverses; `index.html#sort=<table id>:<column index>[:desc]` opens the page sorted.
"""

from __future__ import annotations

import html
import json
from pathlib import Path

from symphony_bench.plugin.core.reporting import fmt

STYLE = """
body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5em; color: #222; background: #fff; }
table { border-collapse: collapse; margin: 1em 0; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.6em; text-align: left; white-space: nowrap; }
td.number { text-align: right; font-variant-numeric: tabular-nums; }
th { background: #eef2f7; cursor: pointer; user-select: none; }
th[aria-sort="ascending"]::after { content: " \\25B2"; }
th[aria-sort="descending"]::after { content: " \\25BC"; }
.tie { color: #8a5a00; }
.wide { overflow-x: auto; }
.plots { display: flex; flex-wrap: wrap; gap: 1em; }
.plots svg { max-width: 100%; height: auto; border: 1px solid #eee; }
"""

SCRIPT = """
(function () {
  function sortKey(cell) {
    var raw = cell.getAttribute("data-sort");
    if (raw === null || raw === "") return null;
    var number = Number(raw);
    return isNaN(number) ? raw.toLowerCase() : number;
  }
  function sortTable(table, column, descending) {
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var x = sortKey(a.cells[column]), y = sortKey(b.cells[column]);
      if (x === null || y === null) return (x === null) - (y === null);
      var order = x < y ? -1 : x > y ? 1 : 0;
      return descending ? -order : order;
    });
    rows.forEach(function (row) { body.appendChild(row); });
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (header, index) {
      if (index === column) header.setAttribute("aria-sort", descending ? "descending" : "ascending");
      else header.removeAttribute("aria-sort");
    });
  }
  document.querySelectorAll("table.sortable").forEach(function (table) {
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (header, column) {
      header.addEventListener("click", function () {
        sortTable(table, column, header.getAttribute("aria-sort") === "ascending");
      });
    });
  });
  var wanted = /^#sort=([\\w-]+):(\\d+)(:desc)?$/.exec(window.location.hash);
  var target = wanted && document.getElementById(wanted[1]);
  if (target) sortTable(target, Number(wanted[2]), Boolean(wanted[3]));
  document.body.setAttribute("data-ready", "1");
})();
"""


def write_leaderboard_page(leaderboard: dict, out: Path) -> Path:
    """Writes `out`/index.html for leaderboard.json's content; returns its path."""
    out.mkdir(parents=True, exist_ok=True)
    path = out / "index.html"
    path.write_text(page_html(leaderboard), encoding="utf-8")
    return path


def page_html(leaderboard: dict) -> str:
    rows = leaderboard["rows"]
    metrics = metric_names(rows)
    body = [
        "<h1>symphony-bench leaderboard</h1>",
        f"<p>{len(rows)} rows (model &times; task). Metrics: value [95% CI]. A rank marked "
        "<span class=\"tie\">=</span> is tied with another row of the task (CIs overlap or the paired "
        "difference is not significant). Click a column header to sort.</p>",
        "<h2>Results</h2>",
        results_table(rows, metrics),
        "<h2>Plots</h2>",
        *task_plots(rows, metrics),
        "<h2>Provenance</h2>",
        provenance_table(rows),
    ]
    return "\n".join([
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        "<title>symphony-bench leaderboard</title>",
        f"<style>{STYLE}</style></head><body>",
        *body,
        f"<script>{SCRIPT}</script>",
        "</body></html>",
        "",
    ])


def metric_names(rows: list[dict]) -> list[str]:
    """Every headline metric of any row, in first-seen order."""
    names: dict[str, None] = {}
    for row in rows:
        names.update(dict.fromkeys(row["metrics"]))
    return list(names)


def results_table(rows: list[dict], metrics: list[str]) -> str:
    headers = ["task", "rank", "model", *metrics, "invalid rate", "n"]
    lines = [_table_head("results", headers)]
    for row in rows:
        cells = [_cell(row["task"]), _rank_cell(row), _cell(row["model"])]
        cells += [_interval_cell(row["metrics"].get(name)) for name in metrics]
        cells += [_interval_cell(row.get("invalid_rate")), _cell(row.get("n"), number=True)]
        lines.append("<tr>" + "".join(cells) + "</tr>")
    return "\n".join(lines + ["</tbody></table></div>"])


def provenance_table(rows: list[dict]) -> str:
    """One row per leaderboard row, one column per provenance fact (nested keys joined with '.')."""
    flat = [flatten(row.get("provenance") or {}) for row in rows]
    keys = list(dict.fromkeys(key for facts in flat for key in facts))
    lines = [_table_head("provenance", ["model", "task", *keys])]
    for row, facts in zip(rows, flat, strict=True):
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


def task_plots(rows: list[dict], metrics: list[str]) -> list[str]:
    """Per task: a forest plot per headline metric (models with 95% CIs) and one of invalid rates."""
    from symphony_bench.plugin import plots

    sections = []
    for task in dict.fromkeys(row["task"] for row in rows):
        task_rows = [row for row in rows if row["task"] == task]
        figures = [plots.interval_forest(f"{task}: {name}", [row["model"] for row in task_rows],
                                         [row["metrics"].get(name) for row in task_rows])
                   for name in metrics]
        figures.append(plots.interval_forest(f"{task}: invalid rate", [row["model"] for row in task_rows],
                                             [row.get("invalid_rate") for row in task_rows]))
        svgs = [plots.svg_text(figure) for figure in figures if figure is not None]
        if svgs:
            sections += [f"<h3>{html.escape(task)}</h3>", '<div class="plots">', *svgs, "</div>"]
    return sections


def _table_head(table_id: str, headers: list[str]) -> str:
    cells = "".join(f'<th scope="col">{html.escape(header)}</th>' for header in headers)
    return f'<div class="wide"><table class="sortable" id="{table_id}"><thead><tr>{cells}</tr></thead><tbody>'


def _cell(value, number: bool = False) -> str:
    text = "null" if value is None else value if isinstance(value, str) else json.dumps(value)
    sort = "" if value is None else text
    css = ' class="number"' if number else ""
    return f'<td{css} data-sort="{html.escape(sort)}">{html.escape(text)}</td>'


def _interval_cell(metric: dict | None) -> str:
    """value [low, high]; sorts by value."""
    if metric is None or metric.get("value") is None:
        return '<td class="number" data-sort="">null</td>'
    low, high = metric.get("ci") or (None, None)
    text = fmt(metric["value"]) + ("" if low is None or high is None else f" [{fmt(low)}, {fmt(high)}]")
    return f'<td class="number" data-sort="{metric["value"]!r}">{html.escape(text)}</td>'


def _rank_cell(row: dict) -> str:
    rank = row.get("rank")
    if rank is None:
        return '<td class="number" data-sort="">null</td>'
    tie = '<span class="tie">=</span>' if row.get("tied") else ""
    return f'<td class="number" data-sort="{rank}">{rank}{tie}</td>'
