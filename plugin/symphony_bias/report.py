"""The Symphony-Bias section of the run tooling, `SECTION` (registered by benchmark.BENCHMARK):
the record kinds and their checks, and the section's slots from the modules that hold them: the
entry bodies (summaries), the links between tasks of one model folder (links), the Markdown
(markdown), the figures (figures) and the paired comparison of two runs (compare). This module
holds the leaderboard columns and the design size that `plan` scales.
"""

from __future__ import annotations

import functools

from symphony_bench.plugin.core.reporting import estimate, normal_estimate
from symphony_bench.plugin.core.sections import (
    DesignSize,
    LeaderboardColumns,
    Ranking,
    ReportEntry,
    ReportSection,
)
from symphony_bench.plugin.symphony_bias.compare import comparison_notes, comparisons
from symphony_bench.plugin.symphony_bias.figures import figures, run_figures
from symphony_bench.plugin.symphony_bias.links import link
from symphony_bench.plugin.symphony_bias.markdown import overview, render
from symphony_bench.plugin.symphony_bias.options import DEFAULT_SEED
from symphony_bench.plugin.symphony_bias.records import (
    ANSWER_FIELDS,
    KINDS,
    OPEN,
    RATED_KINDS,
    RECOGNITION,
    record_problem,
    records_valid,
    stereotype_table_sha256,
)
from symphony_bench.plugin.symphony_bias.rescore import aggregate, rescore
from symphony_bench.plugin.symphony_bias.scenarios import (
    MINI_SCENARIOS,
    SCENARIO_RUN_FIELDS,
    expand_templates,
    mini_subset,
)
from symphony_bench.plugin.symphony_bias.summaries import entries, stimulus_origin

HEADLINE_METRICS = ("gender_skew", "mean_abs", "consistency_rate", "non_binary_gas")
RANKED_ON_SKEW = (
    "root mean square over instruments of GAS male - GAS female, the association in either "
    "direction, debiased so that noisier answers do not raise it (0 = none; below 0 is noise); "
    "mean ABS (signed, beside it) is not ranked on, as opposite associations cancel in it"
)
RANKED_ON_SKEW_OPEN = (
    "the same debiased gender skew, over who the model's own stories make the person (he, she, "
    "they): what it does when it writes, not what it says when asked about gender"
)
# the shares a row shows beside its headline numbers, by kind of answer
SHARE_METRICS = ("refusal_rate", "no_reference_rate")


def leaderboard(entry: ReportEntry) -> LeaderboardColumns:
    """A Likert or log-prob entry: the headline numbers with the report's t intervals, ranked by
    the gender skew (metrics.skew: lower = weaker association in either direction; a mean ABS near
    0 can hide strong associations of opposite signs), mean ABS signed beside it; a recognition
    entry: its accuracy, higher better."""
    summary = entry.body["summary"]
    if entry.kind == RECOGNITION:
        accuracy = normal_estimate(
            summary["recognition_accuracy"], summary["recognition_accuracy_stderr"]
        )
        ranking = Ranking("recognition_accuracy", "higher")
        return LeaderboardColumns(
            "recognition",
            {"recognition_accuracy": accuracy},
            None,
            ranking,
            summary["n_docs"],
            ("recognition_accuracy",),
        )
    metrics = {
        name: estimate(summary[name], summary.get(f"{name}_stderr"), summary.get(f"{name}_ci"))
        for name in HEADLINE_METRICS
    }
    for name in SHARE_METRICS:  # a generated answer may decline, a story name no one
        if name in summary:
            metrics[name] = _share_estimate(summary, name)
    is_open = entry.kind == OPEN
    ranking = Ranking("gender_skew", "lower", RANKED_ON_SKEW_OPEN if is_open else RANKED_ON_SKEW)
    return LeaderboardColumns(
        "open" if is_open else "likert",
        metrics,
        _share_estimate(summary, "invalid_rate"),
        ranking,
        summary["n_docs"],
        ("consistency_rate", *SHARE_METRICS),
    )


def _share_estimate(summary: dict, name: str) -> dict:
    """A share's estimate with its interval kept in [0, 1]."""
    low, high = summary[f"{name}_ci"]
    return estimate(
        summary[name],
        summary[f"{name}_stderr"],
        None if low is None else [max(0.0, low), min(1.0, high)],
    )


@functools.cache
def text_variant_templates() -> dict[str, int]:
    """Templates of the text Likert task's variants (embedded set, default seed)."""
    scenarios = expand_templates(DEFAULT_SEED)
    mini = mini_subset(scenarios, MINI_SCENARIOS, DEFAULT_SEED)
    return {
        "mini": len({s.template_id for s in mini}),
        "full": len({s.template_id for s in scenarios}),
    }


def design(entry: ReportEntry) -> DesignSize | None:
    """Templates are what `plan` scales (on a crossed design at the same stimuli)."""
    summary = entry.body.get("summary")
    if entry.kind == RECOGNITION or not summary or "n_templates" not in summary:
        return None
    crossed = summary["units"] != "templates"
    variants = (
        text_variant_templates()
        if entry.kind in RATED_KINDS and entry.facts.get("modality") == "text"
        else {}
    )
    unit = "templates (stimuli kept)" if crossed else "templates"
    limit = entry.body.get("docs_per_template_in_order")
    return DesignSize(unit, summary["n_templates"], summary["n_docs"], variants, limit)


SECTION = ReportSection(
    kinds=KINDS,
    record_problem=record_problem,
    records_valid=records_valid,
    answer_fields=ANSWER_FIELDS,
    no_reading_reason=lambda record: record.get("error") or "",
    entries=entries,
    link=link,
    overview=overview,
    render=render,
    figures=figures,
    run_figures=run_figures,
    leaderboard=leaderboard,
    design=design,
    comparisons=comparisons,
    comparison_notes=comparison_notes,
    # compared between runs: another stimulus origin is another design
    task_facts={
        "stereotype_table_sha256": stereotype_table_sha256,
        "stimulus_origin": stimulus_origin,
    },
    run_fields=SCENARIO_RUN_FIELDS,
    rescore=rescore,
    aggregate=aggregate,
)
