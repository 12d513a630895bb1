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
(the same docs per unit).

SE_change is itself an estimate, on df degrees of freedom (a 5-template pilot: 4), and planning
from it as if it were exact misses the stated power: the planned n is as noisy as SE_change^2 and
power is concave in n, so the n planned from an SE that came out low loses more power than one from
an SE that came out high gains (normal theory: 72 and 76 % power where 80 % was asked, from 5- and
10-template pilots; simulated text runs that differ by template as well as by doc: 71 and 77 %).
So where the plan rests on
SE_change, n is the smallest size whose power averaged over the sd the pilot allows reaches the
target: sd^2 = SE_change^2 x df / chi2(df) (never below the floor), the "expected power" rule for a
sample size planned from a pilot's variance (Julious & Owen 2006, Stat Med 25: 2154), over
PILOT_QUANTILES quantiles of chi2(df) (normal theory: 81 and 82 %; simulated: 79 and 81 %;
tests/runs/test_plan.py). Where the floor binds (SE_change below what a rerun must differ by), the plan rests
on the floor, estimated on many df, with no correction, as compare's MDE does; the max of the two
is conservative when both are right (simulated with doc-level rerun noise only, 5-template pilot:
91 %, 89 % before). A pilot whose SE rests on fewer
than MIN_PILOT_DF df is refused (`why_none`); with unknown df no correction is possible and the plan
says so (`correction`). Each row also gives `units_needed_point`, the size planned from the SE as if
exact (what compare's MDE rests on: planning for a comparison's own MDE gives its own size)."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from scipy import stats

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
MIN_PILOT_DF = 2
PILOT_QUANTILES = 400
ASSUMPTIONS = {
    "variance": "the candidate's variance equals the base run's",
    "scaling": "the variance shrinks as 1/n with the units, each unit like the run's own (same docs "
    "per unit); on a crossed design the stimuli are kept (optimistic if stimulus effects dominate)",
    "test": "a two-sided paired t test at alpha with n - 1 df (noncentral t power)",
    "pilot": "the SE of a change is itself estimated from this run, on the df shown: where the "
    "plan rests on it, units needed is the smallest n whose power averaged over the sd the SE "
    "allows (SE^2 x df / chi2(df), never below the floor; the expected-power rule, Julious & Owen "
    "2006) reaches the target. Planned from the SE as if exact ('as if exact'), 5- and 10-template "
    "pilots reached 71 and 77 % of a stated 80 % in simulation, with this rule 79 and 81 %. Where "
    "the SE is below the rerun floor (many df) the plan rests on the floor, uncorrected. "
    f"A run whose SE rests on fewer than {MIN_PILOT_DF} df is too small to plan from",
}
NO_PILOT_DF = "df unknown: planned from the SE as if exact (no pilot correction)"
PILOT_CORRECTED = (
    "pilot: power averaged over the sd the SE allows, max(SE x sqrt(df / chi2(df)), floor)"
)
FLOOR_BINDS = (
    "floor: the SE is below what a rerun must differ by (estimated on many df), which the plan "
    "rests on as compare's MDE does (no pilot correction)"
)
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
    se_change: float,
    n_units: int,
    effect: float,
    alpha: float,
    power: float,
    df: float,
    pilot: bool = True,
    floor: float = 0.0,
):
    """The smallest n >= 2 whose test detects `effect` with `power` (see the module docstring),
    `se_change` being the change's stderr at `n_units` with `df` degrees of freedom and `floor` a
    sd the change never has less of (compare's rerun floor, estimated on many df); None when no n
    up to MAX_UNITS does (or the stderr is unknown). The change's sd is max(se_change / c4(df),
    floor), as compare's MDE takes it; with `pilot`, where the run's own stderr is what it rests on
    (above the floor, df finite), n is the smallest size whose power averaged over the sd the
    stderr allows, max(se_change x sqrt(df / chi2(df)), floor), reaches `power`."""
    if se_change is None or not math.isfinite(se_change) or max(se_change, floor) <= 0:
        return None
    own = se_change / stderr_bias_factor(df)  # as compare's MDE: E[stderr] < sd at few df
    if pilot and math.isfinite(df) and df > 0 and own > floor:
        quantiles = (np.arange(PILOT_QUANTILES) + 0.5) / PILOT_QUANTILES
        sd_change = np.maximum(se_change * np.sqrt(df / stats.chi2.ppf(quantiles, df)), floor)
    else:
        sd_change = np.array([max(own, floor)])

    def detects(n: int) -> bool:
        stderr = sd_change * math.sqrt(n_units / n)
        return float(np.mean(detection_power(effect, stderr, n - 1, 1 - alpha))) >= power

    if not detects(MAX_UNITS):
        return None
    # bracket the answer from the normal approximation's size, then bisect (detects(1) is taken
    # to fail)
    z = stats.norm.ppf(1 - alpha / 2) + stats.norm.ppf(power)
    guess = min(n_units * (z * max(own, floor) / effect) ** 2, MAX_UNITS)
    high = max(math.ceil(guess), 2)
    if detects(high):
        while high > 2 and detects(high // 2):
            high //= 2
        low = high // 2 if high > 2 else 1
    else:
        low, high = high, min(2 * high, MAX_UNITS)
        while not detects(high):
            low, high = high, min(2 * high, MAX_UNITS)
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
                se_change, df, floor = measured.get((label, rule.metric), (None, math.nan, 0.0))
            else:
                se_change, df = (None if se is None else math.sqrt(2) * se), size.count - 1
                floor = 0.0
            tasks.setdefault(label, {})[rule.metric] = _planned(
                rule, size, se, (se_change, df, floor), alpha, power
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


def _planned(
    rule: DetectRule, size: DesignSize, se, change: tuple, alpha: float, power: float
) -> dict:
    """One task's plan for one rule, as --json writes it; `change`: (stderr, df, floor) of a
    change at the run's size."""
    se_change, df, floor = change
    if se_change is None or not math.isfinite(df):
        correction = NO_PILOT_DF
    elif se_change / stderr_bias_factor(df) > floor:
        correction = PILOT_CORRECTED
    else:
        correction = FLOOR_BINDS
    too_small = correction == PILOT_CORRECTED and df < MIN_PILOT_DF  # the plan rests on the SE
    arguments = (se_change, size.count, rule.effect, alpha, power, df)
    needed = None if too_small else units_needed(*arguments, floor=floor)
    point = units_needed(*arguments, pilot=False, floor=floor)
    if needed is not None:
        why_none = None
    elif se_change is None or not math.isfinite(se_change) or max(se_change, floor) <= 0:
        why_none = "no variation in this run (stderr 0 or unknown): nothing to scale"
    elif too_small:
        why_none = (
            f"too small to plan from: the SE of a change rests on {df:.3g} df (fewer than "
            f"{MIN_PILOT_DF}), so the size it plans reaches well under the stated power; "
            f"run at least {MIN_PILOT_DF + 1} {size.unit}"
        )
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
        "df": df if math.isfinite(df) else None,
        "floor": floor,
        "correction": correction,
        "units_needed": needed,
        "units_needed_point": point,
        "why_none": why_none,
        "docs_needed": None if needed is None else math.ceil(needed * size.docs / size.count),
        "limit": needed * size.limit_per_unit if limit_applies else None,
        "variants_reaching": [
            name for name, count in size.variants.items() if needed and count >= needed
        ],
        "variants": dict(size.variants),
    }


def _measured_changes(base_run: Path, second_run: Path) -> dict[tuple[str, str], tuple]:
    """{(task label, metric): planning_basis of the paired change} between two runs of one model."""
    result = compare_runs(base_run, second_run)
    if not result["compared"]:
        raise ValueError(
            f"--second-run {second_run} cannot be paired with {base_run}: "
            + "; ".join(result["mismatches"][:3])
        )
    return {
        (label, metric): planning_basis(change)
        for label, body in result["tasks"].items()
        for metric, change in body["metrics"].items()
    }


def planning_basis(change: dict) -> tuple:
    """(stderr, df, floor) of one of compare's paired changes: the floor is the sd compare's MDE
    never goes below (the rerun floor, or a share's item floor where that binds)."""
    df = math.nan if change["df"] is None else change["df"]
    stderr, mde_stderr = change["stderr"], change["mde_stderr"]
    floor = change.get("floor_stderr") or 0.0
    if stderr is not None and mde_stderr is not None and mde_stderr > stderr * (1 + 1e-9):
        floor = max(floor, mde_stderr / stderr_bias_factor(df))  # the MDE's floor binds
    return stderr, df, floor


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
        "| task | metric | detect | unit | now | SE of a change now | its df | units needed "
        "| as if exact | docs needed | variants that reach it |",
        "|---|---|---:|---|---:|---:|---:|---:|---:|---:|---|",
    ]
    for label, metrics in planned["tasks"].items():
        for metric, row in metrics.items():
            needed = row["why_none"] or str(row["units_needed"])
            docs = "" if row["docs_needed"] is None else str(row["docs_needed"])
            reaching = _variants_text(row)
            se = "n/a" if row["stderr_change"] is None else f"{row['stderr_change']:.3g}"
            df = "unknown (no pilot correction)" if row["df"] is None else f"{row['df']:.3g}"
            point = "" if row["units_needed_point"] is None else str(row["units_needed_point"])
            if row["limit"] is not None:
                reaching += (
                    f"; or --limit {row['limit']} (the first {row['units_needed']} {row['unit']})"
                )
            lines.append(
                f"| {md(label)} | {md(metric)} | {row['effect']:g} | {row['unit']} | {row['units_now']} | "
                f"{se} | {df} | {needed} | {point} | {docs} | {reaching} |"
            )
    lines += [f"- --detect {md(text)} matches no task's metric" for text in planned["unmatched"]]
    return "\n".join(lines) + "\n"
