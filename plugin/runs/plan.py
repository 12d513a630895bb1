"""`symphony-bench plan`: how large a paired comparison must be to detect a change.

From one finished run it takes each gated metric's stderr on the design's units (the report's, as
the leaderboard shows it) and the design's size (the section's `design`: templates, clips), and
finds the smallest number of units n whose paired comparison detects a true change D with the
requested power in a two-sided t test at alpha with n - 1 df (metrics.paired.detection_power, the
noncentral t: the rule behind compare's MDE), the change's stderr at n units being
SE_change x sqrt(n0 / n).

SE_change, the stderr of a paired change at the run's own size n0, comes from one of two places:
- a second run of the same model (`--second-run`): its paired comparison with the base run, whose
  true change is 0, gives SE_change directly (and so the runs' correlation): the stderr compare's
  MDE rests on, never below what a real change would vary by (metrics.paired.floored_mde);
- otherwise the conservative default: the candidate's variance equal to the base's and no
  correlation between the runs, SE_change = sqrt(2) x SE. Paired runs share template and clip
  effects, which cancel in the change, so the real SE_change is usually smaller: the default
  overstates the size needed.
The variance is assumed to shrink as 1 / n with the units (on a crossed design: templates at the
same stimuli, which is optimistic when stimulus effects dominate), with units like the run's own
(the same docs per unit)."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path

from symphony_bench.metrics.paired import detection_power, stderr_bias_factor
from symphony_bench.plugin.core.reporting import md
from symphony_bench.plugin.core.sections import DesignSize
from symphony_bench.plugin.runs.compare import compare_runs
from symphony_bench.plugin.runs.report import build_report
from symphony_bench.plugin.runs.sections import SECTION_OF_KIND

DETECT = re.compile(
    r"^(?:(?P<task>.+):)?(?P<metric>[A-Za-z0-9_]+):(?P<effect>\d+(?:\.\d*)?|\.\d+)$"
)
MAX_UNITS = 1_000_000
ASSUMPTIONS = {
    "variance": "the candidate's variance equals the base run's",
    "scaling": "the variance shrinks as 1/n with the units, each unit like the run's own (same docs "
    "per unit); on a crossed design the stimuli are kept (optimistic if stimulus effects dominate)",
    "test": "a two-sided paired t test at alpha with n - 1 df (noncentral t power)",
}
NO_CORRELATION = (
    "no second run given: the runs are assumed uncorrelated, SE of a change = sqrt(2) x the run's "
    "SE (conservative: paired runs share template and clip effects, which cancel)"
)
MEASURED_CORRELATION = (
    "SE of a change measured by comparing the base run with a second run of the same model "
    "(true change 0)"
)


@dataclass(frozen=True)
class DetectRule:
    text: str
    task: str | None
    metric: str
    effect: float

    @classmethod
    def parse(cls, text: str) -> DetectRule:
        match = DETECT.match(text.strip())
        if not match or float(match["effect"]) <= 0:
            raise ValueError(
                f"--detect {text!r}: expected [TASK:]METRIC:D with D > 0, e.g. mean_abs:0.02"
            )
        return cls(text, match["task"], match["metric"], float(match["effect"]))


def units_needed(
    se_change: float, n_units: int, effect: float, alpha: float, power: float, df: float
):
    """The smallest n >= 2 whose test detects `effect` with `power` (see the module docstring),
    `se_change` being the change's stderr at `n_units` with `df` degrees of freedom; None when no n
    up to MAX_UNITS does (or the stderr is unknown)."""
    if not (se_change is not None and math.isfinite(se_change) and se_change > 0):
        return None
    sd_change = se_change / stderr_bias_factor(df)  # as compare's MDE: E[stderr] < sd at few df

    def detects(n: int) -> bool:
        stderr = sd_change * math.sqrt(n_units / n)
        return float(detection_power(effect, stderr, n - 1, 1 - alpha)) >= power

    if not detects(MAX_UNITS):
        return None
    low, high = 1, MAX_UNITS  # detects(high) holds, detects(low) is taken to fail
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (low, middle) if detects(middle) else (middle, high)
    return high


def plan(
    base_run: Path,
    rules: list[DetectRule],
    power: float = 0.8,
    alpha: float = 0.05,
    second_run: Path | None = None,
) -> dict:
    """{"rules", "power", "alpha", "assumptions", "tasks": {label: {metric: plan}}, "unmatched"}."""
    report = build_report(base_run)
    measured = _measured_changes(base_run, second_run) if second_run else None
    tasks, matched = {}, set()
    for label, entry in report.entries.items():
        section = SECTION_OF_KIND[entry.kind]
        size = section.design(entry)
        if size is None:
            continue
        columns = section.leaderboard(entry)
        metrics = {**columns.metrics, "invalid_rate": columns.invalid_rate}
        for rule in rules:
            metric = metrics.get(rule.metric)
            if metric is None or rule.task not in (None, entry.task, label):
                continue
            matched.add(rule.text)
            se = metric["stderr"]
            if measured is not None:
                se_change, df = measured.get((label, rule.metric), (None, math.nan))
            else:
                se_change, df = (None if se is None else math.sqrt(2) * se), size.count - 1
            tasks.setdefault(label, {})[rule.metric] = _planned(
                rule,
                size,
                se,
                se_change,
                units_needed(se_change, size.count, rule.effect, alpha, power, df),
            )
    return {
        "rules": [rule.text for rule in rules],
        "power": power,
        "alpha": alpha,
        "assumptions": {
            **ASSUMPTIONS,
            "correlation": MEASURED_CORRELATION if second_run else NO_CORRELATION,
        },
        "tasks": tasks,
        "unmatched": [rule.text for rule in rules if rule.text not in matched],
    }


def _planned(rule: DetectRule, size: DesignSize, se, se_change, needed: int | None) -> dict:
    """One task's plan for one rule, as --json writes it."""
    if needed is not None:
        why_none = None
    elif se_change is None or not math.isfinite(se_change) or se_change <= 0:
        why_none = "no variation in this run (stderr 0 or unknown): nothing to scale"
    else:
        why_none = f"more than {MAX_UNITS:,} {size.unit}"
    limit_applies = needed is not None and size.limit_per_unit is not None and needed <= size.count
    return {
        "rule": rule.text,
        "effect": rule.effect,
        "unit": size.unit,
        "units_now": size.count,
        "docs_now": size.docs,
        "stderr": se,
        "stderr_change": se_change,
        "units_needed": needed,
        "why_none": why_none,
        "docs_needed": None if needed is None else math.ceil(needed * size.docs / size.count),
        "limit": needed * size.limit_per_unit if limit_applies else None,
        "variants_reaching": [
            name for name, count in size.variants.items() if needed and count >= needed
        ],
        "variants": dict(size.variants),
    }


def _measured_changes(base_run: Path, second_run: Path) -> dict[tuple[str, str], tuple]:
    """{(task label, metric): (stderr, df) of the paired change} between two runs of one model."""
    result = compare_runs(base_run, second_run)
    if not result["compared"]:
        raise ValueError(
            f"--second-run {second_run} cannot be paired with {base_run}: "
            + "; ".join(result["mismatches"][:3])
        )
    stderrs = {}
    for label, body in result["tasks"].items():
        for metric, change in body["metrics"].items():
            df = change["df"]  # the stderr compare's MDE rests on (never below a real change's)
            stderrs[(label, metric)] = (change["mde_stderr"], math.nan if df is None else df)
    return stderrs


def _variants_text(row: dict) -> str:
    """ "full (86)"; "none of mini (5), full (86)"; "" where the benchmark names no variants."""
    named = [f"{name} ({count} {row['unit']})" for name, count in row["variants"].items()]
    reaching = [
        text
        for text, name in zip(named, row["variants"], strict=True)
        if name in row["variants_reaching"]
    ]
    if reaching or not named:
        return ", ".join(reaching)
    return "none of " + ", ".join(named)


def render(planned: dict) -> str:
    """The plan as Markdown, assumptions first."""
    lines = [
        f"## symphony-bench plan: {planned['power']:.0%} power, two-sided alpha {planned['alpha']:g}",
        "",
        "Assumptions:",
        *[f"- {text}" for text in planned["assumptions"].values()],
        "",
        "| task | metric | detect | unit | now | SE of a change now | units needed | docs needed "
        "| variants that reach it |",
        "|---|---|---:|---|---:|---:|---:|---:|---|",
    ]
    for label, metrics in planned["tasks"].items():
        for metric, row in metrics.items():
            needed = row["why_none"] or str(row["units_needed"])
            docs = "" if row["docs_needed"] is None else str(row["docs_needed"])
            reaching = _variants_text(row)
            se = "n/a" if row["stderr_change"] is None else f"{row['stderr_change']:.3g}"
            if row["limit"] is not None:
                reaching += (
                    f"; or --limit {row['limit']} (the first {row['units_needed']} {row['unit']})"
                )
            lines.append(
                f"| {md(label)} | {md(metric)} | {row['effect']:g} | {row['unit']} | {row['units_now']} | "
                f"{se} | {needed} | {docs} | {reaching} |"
            )
    lines += [f"- --detect {md(text)} matches no task's metric" for text in planned["unmatched"]]
    return "\n".join(lines) + "\n"
