"""`report --html` and `compare --html`: one self-contained page (no network: CSS, JS, figures and
data inline).

A report's page opens with the decision (plugin/runs/decision.py: per entry the ranking number with
its interval, the mean ABS, what is significant after Holm, the invalid / refused / no-reference
rates and a verdict in words), then a table of contents, the benchmarks' overviews, one section per
entry (anchor `#task-<label>`: its tables with its figures beside them; a figure with nothing to draw
is replaced by a sentence saying so), the figures across entries, and the browser of every doc
(plugin/runs/doc_browser_page.py). A per-instrument table's instrument cells link to that
instrument's docs. A comparison's page is compare's own HTML (plugin/runs/compare_output.py).

Every string from a run reaches the page escaped: the Markdown is rendered with raw HTML off, the
figures are SVG images (`<img>`: no script in them runs), and the doc rows travel compressed and
are written by the page's script with `textContent` only.
"""

from __future__ import annotations

import base64
import html
from dataclasses import dataclass, field

from markdown_it import MarkdownIt

from symphony_bench.plugin.core.sections import ReportEntry
from symphony_bench.plugin.runs.decision import anchor, control_docs_line, decision_html
from symphony_bench.plugin.runs.doc_browser_page import DOC_SCRIPT, DOC_STYLE, doc_browser_html
from symphony_bench.plugin.runs.sections import SECTION_OF_KIND
from symphony_bench.plugin.runs.sortable import SORTABLE_SCRIPT, SORTABLE_STYLE

STYLE = """
body { font: 14px/1.45 system-ui, sans-serif; margin: 1em auto; max-width: 90em; color: #222;
  background: #fff; padding: 0 1em; }
table { border-collapse: collapse; margin: 0.5em 0 1em; }
th, td { border: 1px solid #ccc; padding: 0.2em 0.5em; text-align: left; vertical-align: top; }
.wide { overflow-x: auto; }
h1, h2, h3, p, li, summary { overflow-wrap: anywhere; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; }
table.decision { font-size: 13px; line-height: 1.3; }
table.decision td { max-width: 24em; padding: 0.15em 0.4em; }
table.decision details { display: inline; font-size: 12px; color: #555; margin-left: 0.4em; }
table.decision summary { display: inline; cursor: pointer; }
table.decision td:nth-child(4) { min-width: 24em; }
table.decision td:nth-child(5) { max-width: 14em; }
table.decision td:first-child { overflow-wrap: anywhere; }
.ranking { font-weight: 600; }
.verdict { font-weight: 600; }
h1 { font-size: 1.5em; margin: 0.2em 0; }
#decision h2 { margin: 0.3em 0; }
.note { color: #444; font-size: 13px; margin: 0.3em 0; }
nav.toc ul { display: flex; flex-wrap: wrap; gap: 0.2em 1.2em; padding: 0; list-style: none; }
.entry { display: grid; grid-template-columns: minmax(0, 3fr) minmax(0, 2fr); gap: 1em;
  align-items: start; }
.entry-figures { position: sticky; top: 0.5em; }
figure { margin: 0 0 1em; }
figure img { max-width: 100%; border: 1px solid #eee; }
.no-figure { color: #555; font-style: italic; }
@media (max-width: 1000px) { .entry { grid-template-columns: minmax(0, 1fr); }
  .entry-figures { position: static; } }
@media (max-width: 700px) {
  table.decision, table.decision tbody, table.decision tr, table.decision td { display: block; }
  table.decision thead { display: none; }
  table.decision tr { border: 1px solid #ccc; margin-bottom: 0.6em; }
  table.decision td { border: 0; max-width: none; }
  table.decision td::before { content: attr(data-label) ": "; color: #555; font-size: 12px; } }
"""

# instrument cells of a task section's tables become links to that instrument's docs
LINK_SCRIPT = """
(function () {
  document.querySelectorAll("section[data-task] table").forEach(function (table) {
    var section = table.closest("section[data-task]");
    if (!table.tHead || table.tHead.rows[0].cells[0].textContent.trim() !== "instrument") return;
    Array.prototype.forEach.call(table.tBodies[0].rows, function (row) {
      var cell = row.cells[0], name = cell.textContent.trim();
      var params = new URLSearchParams({task: section.getAttribute("data-task"), instrument: name});
      var link = document.createElement("a");
      link.href = "#docs?" + params.toString();
      link.textContent = name;
      link.title = "the docs of " + name;
      cell.textContent = "";
      cell.appendChild(link);
    });
  });
  document.body.setAttribute("data-ready", "1");
})();
"""

RANKING_NOTE = (
    "The ranking number is the gender skew: how strongly instruments are tied to a gender in "
    "either direction, debiased so that noise scores around 0 (an estimate below 0 is noise and "
    "shows as 0: no association detected; hover or open the detail for the raw value). Mean ABS is "
    "signed: above 0 the answers follow the stereotype table. Intervals are 95% and resample the "
    "design's units (templates; templates and stimuli for audio and image)."
)


@dataclass
class EntryPart:
    """What one entry's section shows: its Markdown, its figures drawn ({label: SVG}), the labels
    of its figures that had nothing to draw, and why none was drawn where none was."""

    entry: ReportEntry
    markdown: str
    figures: dict[str, str] = field(default_factory=dict)
    empty: list[str] = field(default_factory=list)
    no_figures_because: str = ""


def markdown_html(markdown: str) -> str:
    """The report's Markdown as HTML: raw HTML in it stays text; its tables sortable."""
    renderer = MarkdownIt("commonmark", {"html": False}).enable("table")
    return (
        renderer.render(markdown)
        .replace("<table>", '<div class="wide"><table class="sortable">')
        .replace("</table>", "</table></div>")
    )


def figure_html(label: str, svg: str) -> str:
    source = "data:image/svg+xml;base64," + base64.b64encode(svg.encode()).decode()
    caption = html.escape(label)
    return (
        f'<figure><img alt="{caption}" src="{source}"><figcaption>{caption}</figcaption></figure>'
    )


def figures_html(figures: dict[str, str], empty: list[str]) -> list[str]:
    """Each SVG figure inline as an image, captioned by its label; a sentence per figure that had
    nothing to draw."""
    shown = [figure_html(label, svg) for label, svg in figures.items()]
    return shown + [
        f'<p class="no-figure">{html.escape(label)}: not drawn, no data for it in this run.</p>'
        for label in empty
    ]


def entry_html(part: EntryPart) -> list[str]:
    figures = figures_html(part.figures, part.empty)
    if part.no_figures_because:
        figures.append(f'<p class="no-figure">{html.escape(part.no_figures_because)}</p>')
    return [
        f'<section id="{anchor(part.entry.label)}" data-task="{html.escape(part.entry.label)}">',
        '<div class="entry"><div class="entry-tables">',
        markdown_html(part.markdown),
        '</div><div class="entry-figures">',
        *figures,
        "</div></div></section>",
    ]


def contents_html(parts: list[EntryPart], across: bool) -> list[str]:
    links = [("decision", "Decision")]
    links += [(anchor(part.entry.label), part.entry.label) for part in parts]
    links += [("across", "Figures across tasks")] if across else []
    links += [("docs", "Every doc and its answer")]
    items = "".join(
        f'<li><a href="#{target}">{html.escape(text)}</a></li>' for target, text in links
    )
    return [f'<nav class="toc" aria-label="contents"><ul>{items}</ul></nav>']


def report_page(
    title: str,
    overview: str,
    parts: list[EntryPart],
    across: dict[str, str],
    rows: list[dict],
) -> str:
    """The report's page: `overview` the benchmarks' overview Markdown, `parts` one per entry,
    `across` the figures across entries, `rows` the docs (doc_browser.doc_rows)."""
    entries = [part.entry for part in parts]
    body = [
        f"<h1>{html.escape(title)}</h1>",
        '<section id="decision">',
        "<h2>Decision</h2>",
        *decision_html(entries),
        f'<p class="note">{html.escape(RANKING_NOTE)}</p>',
        *control_docs_line(entries, rows),
        "</section>",
        *contents_html(parts, bool(across)),
        markdown_html(overview),
    ]
    for part in parts:
        body += entry_html(part)
    if across:
        body += ['<section id="across">', "<h2>Figures across tasks</h2>"]
        body += figures_html(across, []) + ["</section>"]
    body += doc_browser_html(rows)
    return document(title, body, DOC_STYLE, DOC_SCRIPT + LINK_SCRIPT)


def compare_page(title: str, body: list[str], figures: dict[str, str]) -> str:
    """compare's page: its HTML blocks, then its figures."""
    shown = figures_html(figures, [])
    return document(title, [f"<h1>{html.escape(title)}</h1>", *body, *shown], "", LINK_SCRIPT)


def document(title: str, body: list[str], style: str, script: str) -> str:
    return "\n".join(
        [
            "<!DOCTYPE html>",
            '<html lang="en"><head><meta charset="utf-8">',
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            f"<title>{html.escape(title)}</title>",
            f"<style>{STYLE}{SORTABLE_STYLE}{style}</style></head><body>",
            *body,
            f"<script>{SORTABLE_SCRIPT}{script}</script>",
            "</body></html>",
            "",
        ]
    )


def entry_parts(entries: list[ReportEntry], with_figures: bool) -> list[EntryPart]:
    """Each entry's section: its Markdown and, `with_figures`, its figures drawn (none for an entry
    whose every answer is invalid: a sentence says so)."""
    from symphony_bench.plugin.runs.plots import figure_svgs
    from symphony_bench.plugin.runs.report import entry_markdown

    parts = []
    for entry in entries:
        part = EntryPart(entry, entry_markdown(entry))
        section = SECTION_OF_KIND[entry.kind]
        plots = section.figures(entry) if with_figures else {}
        invalid = section.leaderboard(entry).invalid_rate or {}
        if plots and invalid.get("value") == 1.0:
            part.no_figures_because = "No figures: every answer of this task was invalid."
        elif plots:
            part.figures = figure_svgs(plots)
            part.empty = [label for label in plots if label not in part.figures]
        parts.append(part)
    return parts


def report_page_of(title: str, entries: list[ReportEntry], rows: list[dict], figures: bool) -> str:
    """The report's page from its entries and doc rows; `figures` False leaves every figure out."""
    from symphony_bench.plugin.runs.plots import across_figures, figure_svgs
    from symphony_bench.plugin.runs.report import overview_markdown

    across = figure_svgs(across_figures(entries)) if figures else {}
    overview = "\n".join(overview_markdown(entries))
    return report_page(title, overview, entry_parts(entries, figures), across, rows)
