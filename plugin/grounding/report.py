"""The instrument-grounding section of the run tooling: in `symphony-bench report` the harness's
scores with stderrs, the refusal rate (answers that declined the task or said the audio never reached
the model: wrong in accuracies, left out of prediction rates and the response bias, not in the
invalid rate), for choice tasks the prediction distribution and, where the options are instruments
of a confusable group, the row-normalised confusion matrix per group; and what compare, the
leaderboard and the plots ask of the benchmark."""

from __future__ import annotations

import collections

from symphony_bench.metrics.grounding import INVALID, response_bias_inference
from symphony_bench.plugin.core.reasoning import EMPTY
from symphony_bench.plugin.core.reporting import (
    estimate,
    fmt,
    fmt_p,
    fmt_se,
    md,
    normal_estimate,
    number,
)
from symphony_bench.plugin.core.sections import (
    DesignSize,
    LeaderboardColumns,
    Ranking,
    ReportEntry,
    ReportSection,
    TaskRecords,
)
from symphony_bench.plugin.grounding.compare import comparison_notes, comparisons
from symphony_bench.plugin.grounding.figures import figures
from symphony_bench.plugin.grounding.overview import overview
from symphony_bench.plugin.grounding.records import (
    CHOICE,
    KINDS,
    METRICS_BY_INTERFACE,
    SCORE_KEY,
    choice_arrays,
    harness_scores,
    record_problem,
    record_scores,
    records_valid,
    refused_mask,
)
from symphony_bench.plugin.grounding.rescore import aggregate, rescore

COUNTS = ("n_docs", "n_invalid", "n_refused")  # counts in the summary: no score


def _with_stderrs(scores: dict[str, tuple[float, float]]) -> dict:
    summary = {}
    for name, (value, stderr) in scores.items():
        summary[name], summary[f"{name}_stderr"] = number(value), number(stderr)
    return summary


def grounding_report(records: list, kind: str) -> dict:
    scores, refused = record_scores(records), int(refused_mask(records).sum())
    unanswered = sum(record["chosen"] in (None, -1) for record in records)
    body = {
        "grounding": True,
        "summary": {
            **_with_stderrs(harness_scores(records)),
            "n_docs": len(records),
            "n_invalid": unanswered - refused,
            "n_refused": refused,
        },
        "n_clips": len({record["clip"] for record in records}),
    }
    if kind != CHOICE:
        return body
    options = records[0]["options"]
    same_options = all(record["options"] == options for record in records)
    labels = (
        options if same_options else [f"option {k + 1} (as shown)" for k in range(len(options))]
    )
    body["interface"] = records[0]["interface"]
    body["prediction_rates"] = {
        label: number(scores[f"option_{k}_rate"][0]) for k, label in enumerate(labels)
    }
    body["prediction_rate_stderrs"] = {
        label: number(scores[f"option_{k}_rate"][1]) for k, label in enumerate(labels)
    }
    body["gold_rates"] = gold_rates(records, labels)
    body["response_bias"] = response_bias_summary(records, body["summary"])
    if any(record["group"] for record in records):
        body["confusion"] = confusion_by_group(records)
    return body


def response_bias_summary(records: list, summary: dict) -> dict[str, dict]:
    """The interface's bias metric (position_gap, time_bias) with its inference
    (metrics.grounding.response_bias_inference): interval, equal-rates test, null reference."""
    gold, chosen, n_options = choice_arrays(records)
    names = [
        name
        for name in METRICS_BY_INTERFACE[records[0]["interface"]]
        if SCORE_KEY.get(name) == "bias"
    ]
    if not names:
        return {}
    inference = response_bias_inference(chosen, n_options, [record["clip"] for record in records])
    return {
        name: {
            "value": summary[name],
            "stderr": summary[f"{name}_stderr"],
            "ci": [number(v) for v in inference["ci"]],
            "p_value": number(inference["p_value"]),
            "null": number(inference["null"]),
            "valid": inference["valid"],
            "min_clips": inference["min_clusters"],
        }
        for name in names
    }


def gold_rates(records: list, labels: list[str]) -> dict[str, float]:
    """Share of docs whose correct answer is each option (in display position when options vary),
    what an answer distribution without a preference would match."""
    counts = collections.Counter(record["gold"] for record in records)
    return {label: counts[k] / len(records) for k, label in enumerate(labels)}


def confusion_by_group(records: list) -> dict[str, dict[str, dict[str, float]]]:
    """{group: {gold instrument: {answered instrument, "(invalid)" or "(refused)": share of that
    gold's answers}}}."""
    counts: dict[str, dict[str, collections.Counter]] = collections.defaultdict(
        lambda: collections.defaultdict(collections.Counter)
    )
    for record in records:
        options, chosen = record["options"], record["chosen"]
        answer = "(refused)" if record.get("refused") else "(invalid)"
        counts[record["group"]][options[record["gold"]]][
            options[chosen] if chosen >= 0 else answer
        ] += 1
    return {
        group: {
            gold: {answer: n / sum(row.values()) for answer, n in sorted(row.items())}
            for gold, row in sorted(rows.items())
        }
        for group, rows in sorted(counts.items())
    }


def entries(task: TaskRecords, options: dict) -> list[ReportEntry]:
    return [task.entry(grounding_report(task.records, task.kind))]


def _bias_inference(bias: dict) -> str:
    if not bias.get("valid", True):
        return (
            f"no interval or test: they do not hold below {bias['min_clips']} clips with a "
            "readable answer (statistics: response bias)"
        )
    return (
        f"95% CI {fmt(bias['ci'][0])} to {fmt(bias['ci'][1])} (the rates' Wald region; "
        f"conservative for three options), every option equally often: p={fmt_p(bias['p_value'])}"
    )


def render(entry: ReportEntry) -> list[str]:
    task, body = entry.label, entry.body
    summary = body["summary"]
    scores = [name for name in summary if not name.endswith("_stderr") and name not in COUNTS]
    lines = [f"## {md(task)}", "", f"- {summary['n_docs']} docs"]
    lines += [
        f"- {name}: {fmt(summary[name])} ± {fmt_se(summary[f'{name}_stderr'])} (stderr clustered by clip)"
        for name in scores
    ]
    if "n_refused" in summary:
        lines.append(
            f"- {summary['n_refused']} refused (declined the task or said the audio never reached "
            f"the model) and {summary['n_invalid']} invalid (unreadable) answers: no answer, so "
            "wrong in the accuracies and left out of the prediction rates and the response bias"
        )
    lines += [
        f"- {name}: {_bias_inference(bias)}; a model without preference scores {fmt(bias['null'])} "
        "at this n (the plug-in is biased upward)"
        for name, bias in body.get("response_bias", {}).items()
    ]
    if "prediction_rates" in body:
        lines += ["", "| answer | prediction rate (valid answers) |", "|---|---:|"]
        lines += [
            f"| {md(label)} | {fmt(rate)} |" for label, rate in body["prediction_rates"].items()
        ]
    for group, rows in body.get("confusion", {}).items():
        answers = sorted({answer for row in rows.values() for answer in row})
        lines += [
            "",
            f"Confusion, group {md(group)} (row: gold instrument, column: answer, row-normalised)",
            "",
            "| gold | " + " | ".join(map(md, answers)) + " |",
            "|---|" + "---:|" * len(answers),
        ]
        lines += [
            f"| {md(gold)} | "
            + " | ".join(fmt(row.get(answer, 0.0), 2) for answer in answers)
            + " |"
            for gold, row in rows.items()
        ]
    return lines + [""]


def leaderboard(entry: ReportEntry) -> LeaderboardColumns:
    """Every score with a normal interval (a share over many clips; the response bias with its own,
    see response_bias_summary), ranked by accuracy (the multi-label task: F1), higher better."""
    summary = entry.body["summary"]
    names = [
        name
        for name in summary
        if not name.endswith("_stderr") and name not in (*COUNTS, "invalid_rate")
    ]
    metrics = {
        name: normal_estimate(summary[name], summary.get(f"{name}_stderr")) for name in names
    }
    for name, bias in entry.body.get("response_bias", {}).items():
        metrics[name] = estimate(bias["value"], bias["stderr"], bias["ci"])
    invalid = (
        normal_estimate(summary["invalid_rate"], summary.get("invalid_rate_stderr"))
        if "invalid_rate" in summary
        else None
    )
    ranking = Ranking("accuracy" if "accuracy" in metrics else "f1", "higher")
    shares = tuple(name for name in names if not name.endswith(("_gap", "_bias")))
    return LeaderboardColumns("grounding", metrics, invalid, ranking, summary["n_docs"], shares)


def design(entry: ReportEntry) -> DesignSize | None:
    """Clips are what `plan` scales."""
    if "n_clips" not in entry.body:
        return None
    return DesignSize("clips", entry.body["n_clips"], entry.body["summary"]["n_docs"])


def no_reading_reason(record: dict) -> str:
    if record.get("refused"):
        return "refused"
    if record.get("empty"):
        return EMPTY
    return "no option read" if record["chosen"] in (None, INVALID) else ""


SECTION = ReportSection(
    kinds=KINDS,
    record_problem=record_problem,
    records_valid=records_valid,
    answer_fields=frozenset({"chosen", "empty"}),
    no_reading_reason=no_reading_reason,
    entries=entries,
    render=render,
    figures=figures,
    leaderboard=leaderboard,
    design=design,
    comparisons=comparisons,
    comparison_notes=comparison_notes,
    rescore=rescore,
    aggregate=aggregate,
    overview=lambda entries: overview(entries, leaderboard),
)
