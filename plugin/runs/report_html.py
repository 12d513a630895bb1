"""`report --html` and `compare --html`: one self-contained page (no network: CSS, JS, figures and
data inline) that opens with what was run, then the report's own Markdown rendered (its tables
sortable: a click on a header sorts by that column, a second click reverses), the figures inline,
and, for a report, a browser of every doc behind the numbers (plugin/runs/doc_browser.py).

Every string from a run reaches the page escaped: the Markdown is rendered with raw HTML off, the
figures are SVG images (`<img>`: no script in them runs), and the doc rows travel as JSON that the
page's script writes with `textContent` only. `#docs?task=...&reason=...` (any filter by its field
name) opens the browser filtered.
"""

from __future__ import annotations

import base64
import html
import json
from collections import Counter

from markdown_it import MarkdownIt

from symphony_bench.plugin.runs.doc_browser import filter_fields

STYLE = """
body { font: 14px/1.45 system-ui, sans-serif; margin: 1.5em auto; max-width: 78em; color: #222;
  background: #fff; padding: 0 1em; }
table { border-collapse: collapse; margin: 0.5em 0 1em; }
th, td { border: 1px solid #ccc; padding: 0.2em 0.5em; text-align: left; vertical-align: top; }
table.sortable th { background: #eef2f7; cursor: pointer; user-select: none; }
th[aria-sort="ascending"]::after { content: " \\25B2"; }
th[aria-sort="descending"]::after { content: " \\25BC"; }
.wide { overflow-x: auto; }
figure { display: inline-block; margin: 0.5em; }
figure img { max-width: 100%; border: 1px solid #eee; }
#doc-filters label { margin-right: 1em; white-space: nowrap; }
#doc-table pre { white-space: pre-wrap; margin: 0; max-width: 40em; font-size: 12px; }
.reason { color: #a40000; }
"""

SCRIPT = """
(function () {
  function sortKey(cell) {
    var text = cell.textContent.trim();
    var number = parseFloat(text.replace(/^[^-+0-9.]*/, ""));
    return isNaN(number) ? text.toLowerCase() : number;
  }
  function sortTable(table, column, descending) {
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var x = sortKey(a.cells[column]), y = sortKey(b.cells[column]);
      if (typeof x !== typeof y) return typeof x === "number" ? -1 : 1;
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
    if (!table.tHead || !table.tBodies.length) return;
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (header, column) {
      header.addEventListener("click", function () {
        sortTable(table, column, header.getAttribute("aria-sort") === "ascending");
      });
    });
  });

  var data = document.getElementById("doc-data");
  if (data) docBrowser(JSON.parse(data.textContent));
  document.body.setAttribute("data-ready", "1");

  function docBrowser(browser) {
    var PAGE = 200, shown = PAGE;
    var rows = browser.rows, filters = browser.filters;
    var controls = document.getElementById("doc-filters");
    var selects = {};
    function value(row, name) {
      if (name === "task" || name === "reason") return row[name];
      var v = row.fields[name];
      return v === undefined ? "" : String(v);
    }
    filters.forEach(function (name) {
      var label = document.createElement("label");
      label.textContent = name + " ";
      var select = document.createElement("select");
      select.setAttribute("data-field", name);
      var all = document.createElement("option");
      all.value = ""; all.textContent = "(all)";
      select.appendChild(all);
      var seen = {};
      rows.forEach(function (row) { seen[value(row, name)] = true; });
      Object.keys(seen).sort().forEach(function (v) {
        var option = document.createElement("option");
        option.value = v; option.textContent = v === "" ? "(none)" : v;
        select.appendChild(option);
      });
      select.addEventListener("change", function () { shown = PAGE; render(); });
      selects[name] = select;
      label.appendChild(select);
      controls.appendChild(label);
    });
    var search = document.createElement("input");
    search.type = "search"; search.placeholder = "text in prompt or answer";
    search.addEventListener("input", function () { shown = PAGE; render(); });
    controls.appendChild(search);
    var wanted = /^#docs\\?(.*)$/.exec(window.location.hash);
    if (wanted) {
      new URLSearchParams(wanted[1]).forEach(function (v, name) {
        if (selects[name]) selects[name].value = v;
        if (name === "q") search.value = v;
      });
      document.getElementById("docs").scrollIntoView();
    }
    document.getElementById("doc-more").addEventListener("click", function () {
      shown += PAGE; render();
    });
    function cell(tr, text, className, pre) {
      var td = document.createElement("td");
      if (className) td.className = className;
      if (pre) {
        var block = document.createElement("pre");
        block.textContent = text;
        td.appendChild(block);
      } else td.textContent = text;
      tr.appendChild(td);
      return td;
    }
    function render() {
      var needle = search.value.toLowerCase();
      var matching = rows.filter(function (row) {
        for (var name in selects) {
          if (selects[name].value !== "" && value(row, name) !== selects[name].value) return false;
        }
        return !needle || (row.prompt + "\\n" + row.answer).toLowerCase().indexOf(needle) >= 0;
      });
      var body = document.getElementById("doc-rows");
      body.textContent = "";
      matching.slice(0, shown).forEach(function (row) {
        var tr = document.createElement("tr");
        cell(tr, row.task);
        cell(tr, String(row.doc_id));
        browser.columns.forEach(function (name) { cell(tr, value(row, name)); });
        cell(tr, row.reason, "reason");
        cell(tr, row.answer, "", true);
        cell(tr, JSON.stringify(row.reading), "", true);
        var prompt = cell(tr, "", "");
        var details = document.createElement("details");
        var summary = document.createElement("summary");
        summary.textContent = "prompt";
        var text = document.createElement("pre");
        text.textContent = row.prompt;
        details.appendChild(summary); details.appendChild(text);
        prompt.appendChild(details);
        body.appendChild(tr);
      });
      document.getElementById("doc-count").textContent =
        matching.length + " of " + rows.length + " docs" +
        (matching.length > shown ? " (first " + shown + " shown)" : "");
      document.getElementById("doc-more").hidden = matching.length <= shown;
    }
    render();
  }
})();
"""


def markdown_html(markdown: str) -> str:
    """The report's Markdown as HTML: raw HTML in it stays text; its tables sortable."""
    renderer = MarkdownIt("commonmark", {"html": False}).enable("table")
    return (
        renderer.render(markdown)
        .replace("<table>", '<div class="wide"><table class="sortable">')
        .replace("</table>", "</table></div>")
    )


def figures_html(figures: dict[str, str]) -> list[str]:
    """Each SVG figure inline as an image, captioned by its label."""
    if not figures:
        return []
    shown = []
    for label, svg in figures.items():
        source = "data:image/svg+xml;base64," + base64.b64encode(svg.encode()).decode()
        caption = html.escape(label)
        shown.append(
            f'<figure><img alt="{caption}" src="{source}"><figcaption>{caption}</figcaption></figure>'
        )
    return ["<h2>Figures</h2>", *shown]


def doc_browser_html(rows: list[dict]) -> list[str]:
    """The doc browser: filters, a count, the table the page's script fills from the JSON."""
    filters = ["task", *filter_fields(rows), "reason"]
    columns = list(dict.fromkeys(name for row in rows for name in row["fields"]))
    headers = ["task", "doc_id", *columns, "no reading because", "answer", "read as", "prompt"]
    # "<" written as \\u003c: no string of the run can close the script element
    payload = json.dumps({"rows": rows, "filters": filters, "columns": columns}).replace(
        "<", "\\u003c"
    )
    return [
        '<h2 id="docs">Docs</h2>',
        "<p>Every doc behind the numbers: what the model was asked, what it answered, what was read "
        "from it, and why nothing was, where nothing was.</p>",
        '<div id="doc-filters"></div>',
        '<p id="doc-count"></p>',
        '<div class="wide"><table id="doc-table"><thead><tr>',
        "".join(f"<th>{html.escape(name)}</th>" for name in headers),
        '</tr></thead><tbody id="doc-rows"></tbody></table></div>',
        '<button id="doc-more" type="button" hidden>show more</button>',
        f'<script type="application/json" id="doc-data">{payload}</script>',
    ]


def overview_html(rows: list[dict]) -> list[str]:
    """Per task: docs, and docs with no reading by reason."""
    docs = Counter(row["task"] for row in rows)
    unread = Counter((row["task"], row["reason"]) for row in rows if row["reason"])
    lines = [
        '<table class="sortable"><thead><tr><th>task</th><th>docs</th><th>no reading</th></tr></thead><tbody>'
    ]
    for task, count in docs.items():
        reasons = ", ".join(
            f"{reason} {n}" for (name, reason), n in sorted(unread.items()) if name == task
        )
        lines.append(
            f"<tr><td>{html.escape(task)}</td><td>{count}</td><td>{html.escape(reasons or '0')}</td></tr>"
        )
    return [*lines, "</tbody></table>"]


def page(title: str, markdown: str, figures: dict[str, str], rows: list[dict] | None) -> str:
    """The page: `rows` the report's docs (doc_browser.doc_rows), None for a comparison."""
    body = [f"<h1>{html.escape(title)}</h1>"]
    if rows is not None:
        body += overview_html(rows)
        body.append('<p><a href="#docs">Every doc and its answer</a></p>')
    body += [markdown_html(markdown), *figures_html(figures)]
    if rows is not None:
        body += doc_browser_html(rows)
    return "\n".join(
        [
            "<!DOCTYPE html>",
            '<html lang="en"><head><meta charset="utf-8">',
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            f"<title>{html.escape(title)}</title>",
            f"<style>{STYLE}</style></head><body>",
            *body,
            f"<script>{SCRIPT}</script>",
            "</body></html>",
            "",
        ]
    )
