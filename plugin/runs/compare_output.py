"""compare's outputs: the Markdown summary (short enough for a pull-request comment), the JSON
(numbers as finite floats or null) and the HTML page's blocks: the gate's verdict and the minimum
detectable effects first, then the changes as real tables, and the docs whose reading flipped
between BASE and CANDIDATE with both answers side by side. No block speaks of significance where no
change has an interval (e.g. runs compared under --allow-mismatch with too few shared units)."""

from __future__ import annotations

import html
import json

from symphony_bench.plugin.core.reporting import fmt, fmt_p, json_ready, md
from symphony_bench.plugin.runs.doc_browser import reading_text
from symphony_bench.plugin.runs.gate import change_rows
from symphony_bench.plugin.runs.sections import SECTIONS

MAX_FLIPPED_SHOWN = 500

ALPHA = 0.05


STATUS_LINE = {
    "pass": "no significant regression beyond the tolerances",
    "regression": "REGRESSION",
    "could_not_compare": "could not compare",
    "underpowered": "UNDERPOWERED (no regression found, but the gate could not have seen one)",
}


def render_markdown(result: dict, gate: dict) -> str:
    lines = [
        f"## symphony-bench compare: {STATUS_LINE[gate['status']]}",
        "",
        (
            f"BASE {md(result['base'])} vs CANDIDATE {md(result['candidate'])}: CANDIDATE - BASE on the docs both ran; "
            "95% intervals and p-values from a paired bootstrap of the design's units."
        ),
    ]
    if result["mismatches"]:
        heading = (
            "Differences overridden by --allow-mismatch:"
            if result["allow_mismatch"]
            else "Refused, the runs differ:"
        )
        lines += ["", heading, *[f"- {md(text)}" for text in result["mismatches"][:10]]]
        lines += (
            [f"- ... and {len(result['mismatches']) - 10} more"]
            if len(result["mismatches"]) > 10
            else []
        )
    lines += _gate_lines(gate)
    if result["tasks"]:
        rows, shown = shown_changes(result, gate)
        lines += ["", shown_heading(rows, shown) + ":", ""]
        lines += _change_table(shown) if shown else ["none"]
        lines += [
            "",
            *_notable_lines(result),
            "",
            f"<details><summary>all {len(rows)} changes</summary>",
            "",
            *_change_table(rows),
            "",
            "</details>",
        ]
    return "\n".join(lines) + "\n"


def shown_changes(result: dict, gate: dict) -> tuple[list[dict], list[dict]]:
    """Every change row, and those a summary shows: the gated ones and those with p < ALPHA."""
    rows = change_rows(result)
    gated = {
        (entry["task"], entry["metric"])
        for key in ("regressions", "undecided", "checked")
        for entry in gate[key]
    }
    shown = [
        row
        for row in rows
        if (row["task"], row["metric"]) in gated or (row["p"] is not None and row["p"] < ALPHA)
    ]
    return rows, shown


def shown_heading(rows: list[dict], shown: list[dict]) -> str:
    """What the short table holds; significance is named only where some change has an interval."""
    if any(row["ci_low"] is not None for row in rows):
        return f"Gated changes and changes with p < {ALPHA} ({len(shown)} of {len(rows)})"
    return (
        f"Gated changes ({len(shown)} of {len(rows)}; no change has an interval, so none is "
        "called significant)"
    )


def _change_table(rows: list[dict]) -> list[str]:
    lines = [
        "| task | metric | base | candidate | change | 95% CI | p | MDE (80% power) |",
        "|---|---|---:|---:|---:|---|---:|---:|",
    ]
    for row in rows:
        ci = "n/a" if row["ci_low"] is None else f"[{fmt(row['ci_low'])}, {fmt(row['ci_high'])}]"
        lines.append(
            f"| {md(row['task'])} | {md(row['metric'])} | {fmt(row['base'])} | {fmt(row['candidate'])} | "
            f"{_signed(row['change'])} | {ci} | {fmt_p(row['p'])} | {fmt(row['mde'])} |"
        )
    return lines


def _signed(value) -> str:
    return "n/a" if value is None else f"{value:+.3f}"


def _gate_lines(gate: dict) -> list[str]:
    lines = []
    for entry in gate["regressions"]:
        lines.append(
            f"- regression ({md(entry['rule'])}): {md(entry['task'])} {md(entry['metric'])} "
            f"{_signed(entry['change'])} "
            f"(95% CI {fmt(entry['ci_low'])} to {fmt(entry['ci_high'])})"
        )
    lines += [
        f"- no interval, cannot gate ({md(entry['rule'])}): {md(entry['task'])} {md(entry['metric'])}"
        for entry in gate["undecided"]
    ]
    lines += [
        f"- --fail-on {md(text)} matches no compared metric defined in either run"
        for text in gate["unmatched"]
    ]
    lines += [
        f"- skipped ({md(entry['rule'])}): {md(entry['task'])} {md(entry['metric'])} is undefined in "
        "both runs (e.g. no valid answer)"
        for entry in gate.get("skipped", [])
    ]
    lines += [
        f"- underpowered ({md(entry['rule'])}): {md(entry['task'])} {md(entry['metric'])} could only "
        f"detect changes >= {fmt(entry['mde'])} (80% power, two-sided 5%); the tolerance is "
        f"{fmt(entry['tolerance'])}"
        + ("" if gate.get("require_power") else " (warning: --require-power makes this exit 3)")
        for entry in gate.get("underpowered", [])
    ]
    return ["", *lines] if lines else []


def _notable_lines(result: dict) -> list[str]:
    """What each benchmark notes about its changes (e.g. per-instrument ABS changes significant after
    Holm), then the items that flip with McNemar p < 0.05."""
    lines, flips = [], []
    for section in SECTIONS:
        compared = {
            label: body for label, body in result["tasks"].items() if body["kind"] in section.kinds
        }
        lines += section.comparison_notes(compared) if compared else []
    for label, body in result["tasks"].items():
        for what, test in body.get("flips", {}).items():
            if test["p_value"] < ALPHA:
                flips.append(
                    f"{md(label)} {what}: {test['lost']} lost, {test['gained']} gained "
                    f"(McNemar p={fmt_p(test['p_value'])})"
                )
    return [
        *lines,
        f"- items that flip more one way than the other: {'; '.join(flips) or 'none'} "
        f"({FLIPS_SCOPE})",
    ]


# The McNemar test holds the docs fixed: failures that shift by template or clip at an equal overall
# rate make it reject 12-57 % of the time, so it speaks of these docs, not of the population of
# templates and clips that the paired bootstrap's intervals are about.
FLIPS_SCOPE = (
    "McNemar, exact about these docs only; unlike the intervals above it does not generalise over "
    "templates, stimuli or clips"
)


def json_text(result: dict, gate: dict) -> str:
    """--json's content: the comparison with its gate."""
    return json.dumps(json_ready({**result, "gate": gate}), indent=2, allow_nan=False) + "\n"


# ---- the HTML page's blocks ------------------------------------------------------------------------
CHANGE_HEADERS = ("task", "metric", "base", "candidate", "change", "95% CI", "p", "MDE (80% power)")


def compare_html(result: dict, gate: dict, flipped: list[dict], markdown_html) -> list[str]:
    """The page's blocks as HTML: the verdict, the gated metrics' MDE, the gate's lines, the
    changes, the benchmarks' notes, every change (in a real <details>), the flipped docs.
    `markdown_html` renders the notes' Markdown with raw HTML off (plugin/runs/report_html.py)."""
    status = gate["status"]
    blocks = [
        f'<section id="verdict" class="status-{html.escape(status)}">',
        f"<h2>{html.escape(STATUS_LINE[status])}</h2>",
        f"<p>BASE {html.escape(str(result['base']))} vs CANDIDATE "
        f"{html.escape(str(result['candidate']))}: CANDIDATE - BASE on the docs both ran; 95% "
        "intervals and p-values from a paired bootstrap of the design's units.</p>",
        *_mde_html(gate),
        *_list_html(markdown_html, _gate_lines(gate)),
        "</section>",
    ]
    if result["mismatches"]:
        heading = (
            "Differences overridden by --allow-mismatch"
            if result["allow_mismatch"]
            else "Refused, the runs differ"
        )
        blocks += [f"<h2>{heading}</h2>", "<ul>"]
        blocks += [f"<li>{html.escape(text)}</li>" for text in result["mismatches"]]
        blocks.append("</ul>")
    if result["tasks"]:
        rows, shown = shown_changes(result, gate)
        blocks += [f"<h2>{html.escape(shown_heading(rows, shown))}</h2>"]
        blocks += [_change_table_html("shown-changes", shown)] if shown else ["<p>none</p>"]
        blocks += _list_html(markdown_html, _notable_lines(result))
        blocks += [
            f"<details><summary>all {len(rows)} changes</summary>",
            _change_table_html("all-changes", rows),
            "</details>",
        ]
    return blocks + flipped_html(flipped)


def _list_html(markdown_html, lines: list[str]) -> list[str]:
    kept = [line for line in lines if line]
    return [markdown_html("\n".join(kept))] if kept else []


def _mde_html(gate: dict) -> list[str]:
    """The gated metrics' minimum detectable effects beside their tolerances."""
    gated = [entry for key in ("regressions", "checked") for entry in gate[key]]
    if not gated:
        return ["<p>No --fail-on rule gated a metric: nothing was gated.</p>"]
    items = []
    for entry in gated:
        mde = "n/a" if entry.get("mde") is None else fmt(entry["mde"])
        items.append(
            f"<li>{html.escape(entry['task'])} {html.escape(entry['metric'])} "
            f"({html.escape(entry['rule'])}): change {_signed(entry.get('change'))}, smallest "
            f"change the gate could see (MDE, 80% power) {mde}</li>"
        )
    return ["<ul>", *items, "</ul>"]


def _change_table_html(table_id: str, rows: list[dict]) -> str:
    head = "".join(f'<th scope="col">{html.escape(name)}</th>' for name in CHANGE_HEADERS)
    lines = [f'<div class="wide"><table class="sortable" id="{table_id}"><thead><tr>{head}</tr>']
    lines.append("</thead><tbody>")
    for row in rows:
        ci = "n/a" if row["ci_low"] is None else f"[{fmt(row['ci_low'])}, {fmt(row['ci_high'])}]"
        cells = [
            row["task"],
            row["metric"],
            fmt(row["base"]),
            fmt(row["candidate"]),
            _signed(row["change"]),
            ci,
            fmt_p(row["p"]),
            fmt(row["mde"]),
        ]
        lines.append("<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in cells) + "</tr>")
    return "".join([*lines, "</tbody></table></div>"])


def flipped_docs(base_rows: list[dict], candidate_rows: list[dict]) -> list[dict]:
    """The docs of both runs (doc_browser.doc_rows, paired by task and doc_id) whose reading or
    reason for no reading differs: {"task", "doc_id", "fields", "base", "candidate"}, each side
    {"read", "reason", "reading", "answer"}."""
    candidates = {(row["task"], row["doc_id"]): row for row in candidate_rows}
    flipped = []
    for base in base_rows:
        candidate = candidates.get((base["task"], base["doc_id"]))
        if candidate is None:
            continue
        if (base["read"], base["reason"]) != (candidate["read"], candidate["reason"]):
            flipped.append(
                {
                    "task": base["task"],
                    "doc_id": base["doc_id"],
                    "fields": base["fields"],
                    "base": _side(base),
                    "candidate": _side(candidate),
                }
            )
    return flipped


def _side(row: dict) -> dict:
    return {
        "read": row["read"],
        "reason": row["reason"],
        "reading": reading_text(row["reading"]),
        "answer": row["answer"],
    }


def flipped_html(flipped: list[dict]) -> list[str]:
    """The flipped docs, BASE and CANDIDATE side by side (the first MAX_FLIPPED_SHOWN)."""
    shown = flipped[:MAX_FLIPPED_SHOWN]
    more = f" (the first {len(shown)} shown)" if len(flipped) > len(shown) else ""
    blocks = [
        '<section id="flipped">',
        f"<h2>Docs whose reading changed: {len(flipped)}{more}</h2>",
    ]
    if not flipped:
        return blocks + ["<p>No doc was read differently by the two runs.</p>", "</section>"]
    head = "".join(f'<th scope="col">{name}</th>' for name in ("doc", "BASE", "CANDIDATE"))
    blocks.append(f'<div class="wide"><table class="sortable flipped"><thead><tr>{head}</tr>')
    blocks.append("</thead><tbody>")
    for doc in shown:
        identity = ", ".join(f"{name} {value}" for name, value in doc["fields"].items())
        blocks.append(
            f"<tr><td>{html.escape(doc['task'])} doc {html.escape(str(doc['doc_id']))}"
            f"<br><small>{html.escape(identity)}</small></td>"
            f"{_side_cell(doc['base'])}{_side_cell(doc['candidate'])}</tr>"
        )
    return blocks + ["</tbody></table></div>", "</section>"]


def _side_cell(side: dict) -> str:
    read = f"no reading: {side['reason']}" if side["reason"] else f"read: {side['read']}"
    return (
        f"<td><strong>{html.escape(read)}</strong><pre>{html.escape(side['reading'])}</pre>"
        f"<pre>{html.escape(side['answer'])}</pre></td>"
    )
