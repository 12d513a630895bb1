"""The speaker-voice section of the run tooling, `SECTION` (registered in plugin/runs/sections.py):
its record kinds (symphony_bias.voice_recommendation, symphony_bias.voice_attribution), the entry
of a task (summaries), its Markdown, its leaderboard columns (the voice skew, debiased: lower is a
weaker dependence on the voice's gender) and the paired change of the voice ABS between two runs."""

from __future__ import annotations

import numpy as np

from symphony_bench.metrics.paired import floored_mde
from symphony_bench.metrics.voice import voice_abs
from symphony_bench.plugin.core.reporting import estimate, fmt, fmt_p, fmt_se, md
from symphony_bench.plugin.core.sections import (
    LeaderboardColumns,
    Ranking,
    ReportEntry,
    ReportSection,
    TaskRecords,
)
from symphony_bench.plugin.core.vocabulary import instrument_names
from symphony_bench.plugin.symphony_bias.voice.records import (
    ANSWER_FIELDS,
    KINDS,
    VOICED,
    record_problem,
    records_valid,
)
from symphony_bench.plugin.symphony_bias.voice.rescore import aggregate, rescore
from symphony_bench.plugin.symphony_bias.voice.summaries import SIGN, condition_cells, summarise

WHAT_GAP_IS = {
    "recommendation": "P(named | female voice) - P(named | male voice)",
    "attribution": "female - male rating (1-5)",
}
# what replicates an instrument's gap besides the voice pairs
SCRIPT_UNIT = {"recommendation": "scripts", "attribution": "questions"}
CONDITION_TITLE = {
    "voice": "voices as synthesised",
    "pitch_shifted": "each voice shifted into the other gender's F0 range (gender = the voice's own)",
}
RANKED_ON = (
    "the debiased root mean square over instruments of the female - male gap, paired by script and "
    "voice pair: how much the answer depends on the voice's gender, in either direction (0 = not)"
)


def entries(task: TaskRecords, options: dict) -> list[ReportEntry]:
    return [task.entry(summarise(task.records))]


def _voiced_lines(body: dict, condition: str) -> list[str]:
    summary = body[condition]
    title = f"### {CONDITION_TITLE[condition]}"
    if summary is None:
        return [title, "", "- fewer than 2 voice pairs or 2 scripts with answers: no gap", ""]
    abs_, skew = summary["voice_abs"], summary["voice_skew"]
    lines = [
        title,
        "",
        f"- {summary['n_scripts']} {SCRIPT_UNIT[body['protocol']]} x {summary['n_pairs']} voice "
        "pairs (the units)",
        f"- voice ABS {fmt(abs_['voice_abs'])} ± {fmt_se(abs_['stderr'])}, 95% CI "
        f"{fmt(abs_['ci'][0])} to {fmt(abs_['ci'][1])}, p={fmt_p(abs_.get('p_value'))} (> 0: "
        "female voices get more of the female-associated instruments, male voices of the male-associated)",
        f"- voice skew {fmt(skew['voice_skew'])} ± {fmt_se(skew['stderr'])}, 95% CI "
        f"{fmt(skew['ci'][0])} to {fmt(skew['ci'][1])} (debiased; noise alone centres on 0)",
        "- Holm-significant instruments: " + (", ".join(summary["holm_significant"]) or "none"),
        "",
    ]
    if not summary["instruments"]:
        return [*lines, "- no instrument has a gap on 2 or more pairs and scripts", ""]
    lines += [
        f"| instrument | stereotype | gap: {WHAT_GAP_IS[body['protocol']]} | stderr | 95% CI | p | p Holm |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, row in summary["instruments"].items():
        lines.append(
            f"| {md(name)} | {row['stereotype']} | {fmt(row['gap'])} | {fmt_se(row['stderr'])} | "
            f"{fmt(row['ci'][0])} to {fmt(row['ci'][1])} | {fmt_p(row['p_value'])} | "
            f"{fmt_p(row['p_holm'])} |"
        )
    return [*lines, ""]


def _control_lines(body: dict) -> list[str]:
    lines = ["### controls without a voice", ""]
    for condition, what in (("text", "the words as text"), ("no_voice", "a silent clip")):
        summary = body[condition]
        if summary is None:
            lines.append(f"- {what}: no readable answer")
        elif "named" in summary:
            top = ", ".join(f"{md(k)} {v}" for k, v in list(summary["named"].items())[:5])
            lines.append(f"- {what}: {summary['n_valid']} answers; named most: {top}")
        else:
            means = ", ".join(f"{md(k)} {fmt(v)}" for k, v in summary["mean_rating"].items())
            lines.append(f"- {what}: mean rating {means}")
    return [*lines, ""]


def render(entry: ReportEntry) -> list[str]:
    body = entry.body
    reasons = ", ".join(f"{k} {v}" for k, v in body["invalid_reasons"].items()) or "none"
    lines = [
        f"## {md(entry.label)} (speaker voice, {body['protocol']})",
        "",
        f"- {body['n_docs']} docs: "
        + ", ".join(f"{k} {v}" for k, v in body["docs_by_condition"].items()),
        f"- invalid rate {fmt(body['invalid_rate'])} ({reasons})",
        "",
    ]
    for condition in VOICED:
        lines += _voiced_lines(body, condition)
    return lines + _control_lines(body)


def leaderboard(entry: ReportEntry) -> LeaderboardColumns:
    """The voice condition's skew (ranked) and ABS; no estimate where no gap could be taken (too
    few readable answers)."""
    summary = entry.body["voice"] or {}
    metrics = {}
    for name in ("voice_skew", "voice_abs"):
        result = summary.get(name, {})
        metrics[name] = estimate(result.get(name), result.get("stderr"), result.get("ci"))
    return LeaderboardColumns(
        f"voice_{entry.body['protocol']}",
        metrics,
        estimate(entry.body["invalid_rate"], None, None),
        Ranking("voice_skew", "lower", RANKED_ON),
        entry.body["n_docs"],
    )


def comparisons(
    label: str, base: list[dict], candidate: list[dict], n_boot: int, seed: int
) -> dict[str, dict]:
    """The paired change of the voice ABS (voice condition): the candidate's cells minus the base's,
    the same crossed variance (a linear statistic, so its change is the statistic of the change)."""
    table = base[0]["stereotypes"]
    signs = np.array([SIGN[table[name]] for name in instrument_names()])
    (cells_b, _), (cells_c, _) = (condition_cells(run, "voice") for run in (base, candidate))
    runs = [voice_abs(cells, signs) for cells in (cells_b, cells_c)]
    change = voice_abs(cells_c - cells_b, signs)
    df = change.get("df", float("nan"))
    stderr = change["stderr"]
    usable = np.isfinite(stderr) and np.isfinite(df)
    metrics = {
        "voice_abs": {
            "base": runs[0]["voice_abs"],
            "candidate": runs[1]["voice_abs"],
            "change": change["voice_abs"],
            "stderr": stderr,
            "ci": change["ci"],
            "p_value": change.get("p_value", float("nan")),
            "mde": floored_mde(stderr, df) if usable else None,
        }
    }
    return {
        label: {
            "kind": base[0]["kind"],
            "units": "scripts x voice pairs",
            "n_paired": len(base),
            "metrics": metrics,
            "flips": {},
        }
    }


def no_reading_reason(record: dict) -> str:
    return record.get("error") or ""


SECTION = ReportSection(
    kinds=KINDS,
    record_problem=record_problem,
    records_valid=records_valid,
    answer_fields=ANSWER_FIELDS,
    no_reading_reason=no_reading_reason,
    entries=entries,
    render=render,
    leaderboard=leaderboard,
    comparisons=comparisons,
    rescore=rescore,
    aggregate=aggregate,
)
