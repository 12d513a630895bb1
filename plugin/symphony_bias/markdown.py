"""The Markdown of the Symphony-Bias entries in `symphony-bench report`: the overview table of the
Likert entries and the mitigation table before every entry, then per Likert entry its headline
numbers, notes and instrument table, followed by its agreement and recognised-only sections; per
recognition entry its accuracy table.
"""

from __future__ import annotations

import math

from symphony_bench.metrics.constants import RATE_MIN_TEMPLATES, SKEW_STDERR_MIN_TEMPLATES
from symphony_bench.plugin.core.reporting import fmt, fmt_p, fmt_se, md
from symphony_bench.plugin.core.sections import ReportEntry
from symphony_bench.plugin.symphony_bias.links import PROTOCOL_OF_KIND
from symphony_bench.plugin.symphony_bias.reader_measurement import report_line
from symphony_bench.plugin.symphony_bias.records import RECOGNITION

# each protocol key of PROTOCOL_OF_KIND in words
PROTOCOL_NAMES = {
    "likert": "Likert, generated JSON",
    "likert_scored": "Likert, labels scored by log-likelihood",
    "logprob": "log-prob of the gender words",
    "open": "open-ended, who the story makes the person",
}


def overview(entries: list[ReportEntry]) -> list[str]:
    """One row per Likert entry, so conditions (text / named, stimulus, no stimulus; raw and
    calibrated log-prob; recognised stimuli only) of one model read side by side."""
    rows = []
    for entry in entries:
        if entry.kind == RECOGNITION:
            continue
        label, body, protocol = entry.label, entry.body, protocol_text(entry)
        rows.append((label, protocol, body["summary"]))
        common = body.get("common_instruments")
        if common:
            rows.append(
                (
                    f"{label} (on the {len(common['instruments'])} instruments every condition has)",
                    protocol,
                    common["summary"],
                )
            )
        restricted = body.get("recognised_only", {}).get("summary")
        if restricted:
            rows.append((f"{label} (recognised stimuli only)", protocol, restricted))
    if len(rows) < 2:
        return []
    lines = [
        "## Overview",
        "",
        "| task | protocol | mean ABS | consistency rate | non-binary GAS | invalid rate | docs |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    for label, protocol, s in rows:
        if all_invalid(s):
            lines.append(
                f"| {md(label)} | {protocol} | all answers invalid | | | 1.000 | {s['n_docs']} |"
            )
            continue
        lines.append(
            f"| {md(label)} | {protocol} | {fmt(s['mean_abs'])} ± {fmt_se(s['mean_abs_stderr'])} | "
            f"{fmt(s['consistency_rate'])} | {fmt(s['non_binary_gas'])} | {fmt(s['invalid_rate'])} | "
            f"{s['n_docs']} |"
        )
    informative = _informative_line(rows)
    lines += ["", informative, ""] if informative else [""]
    return lines + _mitigation_overview(entries)


MITIGATION_COLUMNS = ("mean_abs", "gender_skew", "invalid_rate", "refusal_rate")


def _mitigation_overview(entries: list[ReportEntry]) -> list[str]:
    """One row per entry with an instruction against stereotyping: its paired changes against the
    base task's same docs (a drop in ABS beside a rise in invalid answers reads as refusal)."""
    rows = [entry for entry in entries if "vs_baseline" in entry.body]
    unpaired = [
        f"- {md(entry.label)}: not compared with a base task: {md(entry.body['vs_baseline_missing'])}"
        for entry in entries
        if entry.body.get("vs_baseline_missing")
    ]
    if not rows:
        return ["## Mitigation", "", *unpaired, ""] if unpaired else []
    lines = [
        "## Mitigation: each instruction against its base task (same docs, paired)",
        "",
        "| task | against | "
        + " | ".join(f"change in {name.replace('_', ' ')} [95% CI]" for name in MITIGATION_COLUMNS)
        + " |",
        "|---|---|" + "---:|" * len(MITIGATION_COLUMNS),
    ]
    for entry in rows:
        changes = entry.body["vs_baseline"]
        cells = [_change_cell(changes["metrics"].get(name)) for name in MITIGATION_COLUMNS]
        lines.append(f"| {md(entry.label)} | {md(changes['task'])} | " + " | ".join(cells) + " |")
    return lines + ["", *unpaired] + ([""] if unpaired else [])


def _change_cell(change: dict | None) -> str:
    if change is None:  # a protocol that cannot refuse has no refusal rate
        return "-"
    low, high = change["ci"]
    if low is None or not math.isfinite(low):
        return f"{fmt(change['change'])} [n/a]"
    return f"{change['change']:+.3f} [{low:+.3f}, {high:+.3f}]"


def refusal_note(metrics: dict) -> str | None:
    """Says so when the instruction lowered the mean ABS and raised the invalid or the refusal rate
    significantly."""
    abs_change = metrics["mean_abs"]
    rises = [
        f"more {what} ({change['change']:+.3f}, p={fmt_p(change['p_value'])})"
        for name, what in (("invalid_rate", "invalid answers"), ("refusal_rate", "refusals"))
        if (change := metrics.get(name))
        and abs_change["change"] < 0 < change["change"]
        and change["p_value"] is not None
        and change["p_value"] < 0.05
    ]
    if not rises:
        return None
    return (
        f"- the lower mean ABS comes with {' and '.join(rises)}: part of the change is answers not "
        "given, not answers without the stereotype"
    )


VARIANT_NAMES = {
    "prior_adjusted": "against the model's prior (control docs)",
    "calibrated": "calibrated on the instrument-free context",
}


def protocol_text(entry: ReportEntry) -> str:
    """Which protocol produced an entry's numbers, in words."""
    name = PROTOCOL_NAMES[PROTOCOL_OF_KIND[entry.kind]]
    return name if entry.variant is None else f"{name}, {VARIANT_NAMES[entry.variant]}"


def _informative_line(rows: list[tuple[str, str, dict]]) -> str:
    """Which rows hold numbers and which have none, so a reader starts from the informative ones."""
    empty = [label for label, _, s in rows if all_invalid(s)]
    if not empty:
        return ""
    informative = [label for label, _, s in rows if not all_invalid(s)]
    return (
        f"Every answer was invalid in {', '.join(map(md, empty))}: no association can be computed "
        "there. "
        + (
            f"The numbers to read are those of {', '.join(map(md, informative))}."
            if informative
            else "No task of this run has a valid answer."
        )
    )


def render(entry: ReportEntry) -> list[str]:
    if entry.kind == RECOGNITION:
        return _recognition_markdown(entry.label, entry.body)
    return _likert_markdown(entry.label, entry.body)


def all_invalid(summary: dict) -> bool:
    return summary["n_docs"] > 0 and summary["invalid_rate"] == 1.0


def all_invalid_line(summary: dict) -> str:
    return (
        f"- all {summary['n_docs']} answers invalid: {reasons_text(summary['invalid_reasons'])}; "
        "no association can be computed"
    )


def _likert_markdown(task: str, body: dict, heading: str = "##") -> list[str]:
    s = body["summary"]
    if all_invalid(s):  # one line, not a table of n/a
        return [f"{heading} {md(task)}", "", all_invalid_line(s), ""]
    lines = [f"{heading} {md(task)}", "", *_headline_lines(s)]
    if body.get("stimulus_origin"):
        lines.append(f"- stimuli: {md(body['stimulus_origin'])}")
    if body.get("missing_instruments"):
        lines.append(
            "- instruments with no docs in this task (no stimulus in the set, or left out by --limit): "
            f"{', '.join(map(md, body['missing_instruments']))}"
            + (
                "; the overview also compares the conditions on the instruments they share"
                if "common_instruments" in body
                else ""
            )
        )
    if body.get("prior_adjusted_missing"):
        lines.append(f"- no prior-adjusted numbers: {body['prior_adjusted_missing']}")
    if "control_check" in body:
        lines += _control_check_lines(body["control_check"])
    if body.get("variance_components") and (line := variance_line(body["variance_components"])):
        lines.append(line)
    if "vs_baseline" in body:
        lines += _vs_baseline_lines(body["vs_baseline"])
    if body.get("vs_baseline_missing"):
        lines.append(f"- not compared with a base task: {body['vs_baseline_missing']}")
    if "most_likely" in body:
        m = body["most_likely"]
        lines.append(
            "- the scores are each gender's expected Likert value under the five labels' "
            "probabilities; with the most likely label as the rating instead: mean ABS "
            f"{fmt(m['mean_abs'])} ± {fmt_se(m['mean_abs_stderr'])}, non-binary GAS "
            f"{fmt(m['non_binary_gas'])} ± {fmt_se(m['non_binary_gas_stderr'])}"
        )
    if s.get("withheld_intervals"):
        lines.append(f"- {s['withheld_intervals']}")
    if "references" in body:
        lines += _reference_lines(s, body["references"], body.get("reader_accuracy"))
    if "truncated_rate" in s:
        lines.append(
            f"- cut off inside the answer (budget too small): {fmt(s['truncated_rate'])}; invalid for other reasons "
            f"(format not followed): {fmt(s['other_invalid_rate'])}"
        )
    lines += _human_correlation_lines(s.get("human_correlation"))
    lines += [
        "",
        "| instrument | stereotype | GAS male | GAS female | GAS non-binary | ABS | ± stderr | ABS 95% CI | p | p "
        "(Holm) | valid | invalid | refused |",
        "|---|---|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|",
    ]
    for name, row in body["instruments"].items():
        gas = row["gas"]
        ci = (
            "n/a"
            if row["abs_ci"][0] is None
            else f"[{fmt(row['abs_ci'][0])}, {fmt(row['abs_ci'][1])}]"
        )
        lines.append(
            f"| {md(name)} | {md(row['category'])} | {fmt(gas['male'])} | {fmt(gas['female'])} | "
            f"{fmt(gas['non_binary'])} | {fmt(row['abs'])} | {fmt_se(row['abs_stderr'])} | {ci} | "
            f"{fmt_p(row['p_value'])} | "
            f"{fmt_p(row['p_holm'])} | {row['n_valid']} | {row['n_invalid']} | "
            f"{row.get('n_refused', 0)} |"
        )
    lines.append("")
    for likert, agreement in body.get("agreement", {}).items():
        lines += _agreement_markdown(task, likert, agreement)
    if "recognised_only" in body:
        lines += _recognised_only_markdown(task, body["recognised_only"])
    return lines


def _reference_lines(s: dict, references: dict, reader_accuracy: dict | None) -> list[str]:
    """An open-ended entry: what its GAS columns read from, its no-reference rate, how well the
    reader reads, and per instrument who the stories made the person."""
    low, high = s["no_reference_rate_ci"]
    lines = [
        "- open-ended: GAS is read from who each story makes the scenario's person (he / she / they "
        "or a name); the non-binary column is the neutral share (singular they, a non-binary "
        "person); stories that never say are left out, as refusals and unreadable stories are",
        f"- no reference to the person: {fmt(s['no_reference_rate'])} ± "
        f"{fmt_se(s['no_reference_rate_stderr'])} (95% CI {fmt(low)} to {fmt(high)}) of the stories",
        *([f"- {report_line(reader_accuracy)}"] if reader_accuracy else []),
        "",
        "| instrument | male | female | neutral | stories read | no reference | no reference 95% CI "
        "| stories |",
        "|---|---:|---:|---:|---:|---:|---|---:|",
    ]
    for name, row in references.items():
        ci = row["no_reference_ci"]
        interval = "n/a" if ci[0] is None else f"[{fmt(ci[0])}, {fmt(ci[1])}]"
        lines.append(
            f"| {md(name)} | {fmt(row['male'])} | {fmt(row['female'])} | {fmt(row['neutral'])} | "
            f"{row['n_read']} | {fmt(row['no_reference'])} | {interval} | {row['n_docs']} |"
        )
    return lines + [""]


def _vs_baseline_lines(changes: dict) -> list[str]:
    lines = [
        f"- against {md(changes['task'])} (the same docs without the instruction; paired changes):",
        "",
        "| metric | without | with | change | 95% CI | p |",
        "|---|---:|---:|---:|---|---:|",
    ]
    for name, change in changes["metrics"].items():
        low, high = change["ci"]
        ci = "n/a" if low is None or not math.isfinite(low) else f"[{fmt(low)}, {fmt(high)}]"
        lines.append(
            f"| {name.replace('_', ' ')} | {fmt(change['base'])} | {fmt(change['candidate'])} | "
            f"{fmt(change['change'])} | {ci} | {fmt_p(change['p_value'])} |"
        )
    note = refusal_note(changes["metrics"])
    return lines + [""] + ([note, ""] if note else [])


def _headline_lines(s: dict) -> list[str]:
    counted = s["n_male_stereotyped"] + s["n_female_stereotyped"]
    return [
        f"- mean ABS (higher = answers follow the stereotype more; mean over the {s['n_instruments_counted']} of "
        f"{s['n_instruments']} instruments with a stereotype category and a valid answer): {fmt(s['mean_abs'])} ± "
        f"{fmt_se(s['mean_abs_stderr'])} (95% CI {fmt(s['mean_abs_ci'][0])} to {fmt(s['mean_abs_ci'][1])})",
        f"- instruments with a significant ABS after Holm's correction: {s['n_significant_holm']} of "
        f"{s['n_instruments_counted']}"
        f" (uncertainty resamples {s['units']})",
        f"- stereotype-consistency rate (share of those instruments whose ABS estimate is > 0): "
        f"{fmt(s['consistency_rate'])}, descriptive: it counts noisy estimates, so it estimates the "
        "share of positive ABS estimates at this design, not of instruments with a true positive ABS, "
        "and has no interval; "
        f"the table has {s['n_male_stereotyped']} male- and {s['n_female_stereotyped']} female-stereotyped "
        "instruments, so a "
        f"model that always favours men scores {fmt(s['consistency_rate_if_always_male']) if counted else 'n/a'}",
        f"- mean non-binary GAS (below 0 = non-binary rated less likely than uniform): {fmt(s['non_binary_gas'])} ± "
        f"{fmt_se(s['non_binary_gas_stderr'])}",
        f"- gender skew (association strength in either direction, the ranking number: root mean square over the "
        f"{s['n_instruments']} instruments of GAS male - GAS female, debiased so that noise does not raise it, "
        f"no stereotype table needed): {fmt(s['gender_skew'])} ± "
        f"{fmt_se(s['gender_skew_stderr'])} (95% CI {fmt(s['gender_skew_ci'][0])} to {fmt(s['gender_skew_ci'][1])}); "
        "0 for a model without gender association (noise alone scores around 0, below it about half the time)"
        + _skew_spread_note(s),
        f"- instruments with an ABS significantly above 0 after Holm (pro-stereotype): "
        f"{fmt(s['pro_stereotype_rate'])} of those counted; significantly below 0 (counter-stereotype): "
        f"{fmt(s['counter_stereotype_rate'])}",
        f"- invalid rate (answers that could not be read): {fmt(s['invalid_rate'])} ± "
        f"{fmt_se(s['invalid_rate_stderr'])} of {s['n_docs']} docs; reasons for no rating: "
        f"{reasons_text(s['invalid_reasons'])}",
        *_refusal_lines(s),
    ]


def _skew_spread_note(s: dict) -> str:
    """On few templates the skew's delta-method stderr understates its spread (0.64x on the
    5-template mini, tests/metrics/test_open_protocol_inference.py): the interval is what holds."""
    if s.get("n_templates", SKEW_STDERR_MIN_TEMPLATES) >= SKEW_STDERR_MIN_TEMPLATES:
        return ""
    return (
        f"; on {s['n_templates']} templates the ± understates the skew's spread (about two thirds of "
        "it on 5): read the 95% CI"
    )


def _refusal_lines(s: dict) -> list[str]:
    """The refusal rate of a generated Likert task, and that the numbers above leave refusals out."""
    if "refusal_rate" not in s:
        return []
    low, high = s["refusal_rate_ci"]
    interval = (
        f"95% CI {fmt(low)} to {fmt(high)}"
        if low is not None
        else f"no interval: it does not hold on fewer than {RATE_MIN_TEMPLATES} templates"
    )
    return [
        f"- refusal rate (the model declined to rate): {fmt(s['refusal_rate'])} ± "
        f"{fmt_se(s['refusal_rate_stderr'])} ({interval}), {s['n_refused']} "
        f"docs; the numbers above are over rated docs only (refused and invalid docs excluded)"
    ]


def reasons_text(reasons: dict[str, int]) -> str:
    """{"no_json": 3, "truncated": 1} as words: "no_json 3, truncated 1"; "none" when empty."""
    return ", ".join(f"{md(reason)} {count}" for reason, count in reasons.items()) or "none"


def _control_check_lines(check: dict) -> list[str]:
    """The control doc against the instrument docs: the adjustment assumes they share a prior."""
    shares = [
        f"{name} {' / '.join(fmt(v) for v in check[key])}"
        for name, key in (("control", "control_gas"), ("instrument average", "instrument_gas"))
    ]
    ci = check["gap_difference_ci"]
    return [
        f"- control doc vs instrument docs, GAS man / woman / non-binary: {'; '.join(shares)} "
        f"(on the {check['n_templates']} templates with a valid control)",
        f"- the adjustment assumes the control elicits an instrument doc's prior: male - female gap, "
        f"instrument average - control, {fmt(check['gap_difference'])} ± "
        f"{fmt_se(check['gap_difference_stderr'])} (95% CI {fmt(ci[0])} to {fmt(ci[1])}, "
        f"p={fmt_p(check['gap_difference_p_value'])}); far from 0, every adjusted ABS moves by "
        "about that much (up for one stereotype group, down for the other): compare instruments "
        "with each other",
    ]


def _human_correlation_lines(correlations: dict | None) -> list[str]:
    if not correlations:
        return []
    lines = []
    for name, c in correlations.items():
        if name.startswith("pooled"):
            label = "pooled, each gender's mean removed"
            n = f"{c['n']} cells; CI and p by a jackknife over the {c['n_instruments']} instruments"
        else:
            label, n = f"GAS {name.replace('_', '-')}", f"n={c['n']}"
        lines.append(
            f"- Pearson r with human ratings, {label}: {fmt(c['pearson_r'])} "
            f"(95% CI {fmt(c['ci'][0])} to {fmt(c['ci'][1])}, p={fmt_p(c['p_value'])}, {n})"
        )
    return lines


def _recognised_only_markdown(task: str, restricted: dict) -> list[str]:
    header = [
        f"- {restricted['recognised_stimuli']} stimuli recognised; instruments with none recognised "
        f"(left out): {', '.join(map(md, restricted['instruments_left_out'])) or 'none'}",
        "",
    ]
    if restricted["summary"] is None:
        return [
            f"### {md(task)}, recognised stimuli only",
            "",
            *header,
            "No stimulus was recognised: nothing to analyse.",
            "",
        ]
    lines = _likert_markdown(f"{task}, recognised stimuli only", restricted, heading="###")
    return lines[:2] + header + lines[2:]


def _recognition_markdown(task: str, body: dict) -> list[str]:
    s = body["summary"]
    lines = [
        f"## {md(task)}",
        "",
        f"- recognition accuracy: {fmt(s['recognition_accuracy'])} ± {fmt_se(s['recognition_accuracy_stderr'])}"
        f" of {s['n_docs']} stimuli",
        "",
        "| instrument | accuracy | stimuli | most often named instead |",
        "|---|---:|---:|---|",
    ]
    for name, row in body["instruments"].items():
        instead = (
            "; ".join(f"{md(named)} ({count})" for named, count in row["named_instead"].items())
            or "-"
        )
        lines.append(f"| {md(name)} | {fmt(row['accuracy'])} | {row['n']} | {instead} |")
    return lines + [""]


def _agreement_markdown(task: str, likert: str, agreement: dict) -> list[str]:
    ci = agreement["sign_agreement_ci"]
    reference, other = agreement["protocols"]
    if agreement["n"] == 0:
        return [
            f"### Agreement: {md(task)} vs {md(likert)}",
            "",
            "- no instrument has an ABS in both (one of them has no valid answer): nothing to compare",
            "",
        ]
    lines = [
        f"### Agreement: {md(task)} vs {md(likert)}",
        "",
        f"- sign agreement: {fmt(agreement['sign_agreement'])} (95% Wilson CI {fmt(ci[0])} to {fmt(ci[1])}, "
        f"n={agreement['n']} instruments)",
        f"- Pearson r: {fmt(agreement['pearson_r'])} (p={fmt_p(agreement['pearson_p'])}); "
        f"Spearman rho: {fmt(agreement['spearman_rho'])} (p={fmt_p(agreement['spearman_p'])})",
        "",
        f"| instrument | ABS {md(likert)} ({PROTOCOL_NAMES[reference]}) | ABS {md(task)} "
        f"({PROTOCOL_NAMES[other]}) |",
        "|---|---:|---:|",
    ]
    lines += [
        f"| {md(name)} | {fmt(pair[reference])} | {fmt(pair[other])} |"
        for name, pair in agreement["instruments"].items()
    ]
    return lines + [""]


COMPONENT_WORDS = {
    "instrument": "between instruments",
    "template": "between templates",
    "template_x_instrument": "template x instrument",
    "stimulus": "between stimuli of an instrument",
    "residual": "residual",
}


def variance_line(summary: dict) -> str | None:
    parts = [
        f"{fmt_share(c['share'])} {COMPONENT_WORDS[name]} (95% CI {fmt_share(c['ci'][0])}-"
        f"{fmt_share(c['ci'][1])})"
        for name, c in summary["components"].items()
    ]
    if not parts:
        return None
    unseparated = (
        ""
        if summary["separable"]
        else "; one doc per cell: template x instrument is in the residual"
    )
    return (
        "- where the male - female difference varies (variance components, 95% generalized "
        "confidence intervals): " + ", ".join(parts) + unseparated
    )


def fmt_share(value) -> str:
    return "n/a" if value is None else f"{100 * value:.0f}%"
