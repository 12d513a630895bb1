"""compare's outputs: the Markdown summary (short enough for a pull-request comment) and the JSON,
numbers as finite floats or null."""

from __future__ import annotations

import json

from symphony_bench.plugin.core.reporting import fmt, fmt_p, json_ready, md
from symphony_bench.plugin.runs.gate import change_rows
from symphony_bench.plugin.runs.sections import SECTIONS

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
        lines += [
            "",
            f"Gated changes and changes with p < {ALPHA} ({len(shown)} of {len(rows)}):",
            "",
        ]
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
