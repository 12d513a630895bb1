"""`symphony-bench plan`: the units and docs a paired comparison needs to detect a change, from one
finished run (and optionally a second run of the same model), against a brute-force search with
scipy's noncentral t (and, for the pilot correction, scipy's quadrature over the chi-square); the
power a plan from a small pilot delivers; the command line, its JSON, its assumptions and its
errors."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from scipy import integrate, stats
from support.runs import lm_eval_results, write_model_folder

from symphony_bench.metrics.paired import detection_power
from symphony_bench.plugin import cli
from symphony_bench.plugin.runs.compare import compare_runs
from symphony_bench.plugin.runs.plan import MIN_PILOT_DF, planning_basis, units_needed
from symphony_bench.plugin.runs.report import build_report
from symphony_bench.plugin.symphony_bias.docs import Design, build_docs
from symphony_bench.plugin.symphony_bias.records import score_record

TASK = "symphony_bias_text"
ANSWERS = {"male": (5, 2, 3), "female": (2, 5, 3), "none": (3, 3, 3)}


def planted_run(run_dir: Path, docs: list[dict], seed: int, stereotyped: float = 0.3) -> Path:
    rng = np.random.default_rng(seed)
    records = []
    for doc in docs:
        leaning = ANSWERS[doc["stereotype"]] if rng.random() < stereotyped else ANSWERS["none"]
        noise = rng.integers(0, 2, 3)
        records.append(score_record(doc, [int(v) for v in np.clip(np.add(leaning, noise), 1, 5)]))
    tasks = {TASK: records}
    results = lm_eval_results(tasks, task_hashes=dict.fromkeys(tasks, "same-hash"))
    write_model_folder(run_dir / "model", tasks, results, seed=42)
    return run_dir


@pytest.fixture(scope="module")
def full_docs() -> list[dict]:
    return build_docs(Design())


def brute_force_units(sd_change: float, n_now: int, effect: float, power: float = 0.8) -> int:
    """The first n whose noncentral-t power reaches `power` (scipy directly, a plain loop)."""
    for n in range(2, 100_000):
        shift = effect / (sd_change * math.sqrt(n_now / n))
        critical = stats.t.ppf(0.975, n - 1)
        reached = stats.nct.sf(critical, n - 1, shift) + stats.nct.cdf(-critical, n - 1, shift)
        if reached >= power:
            return n
    raise AssertionError("not reached")


def c4(df: float) -> float:
    return math.sqrt(2 / df) * math.gamma((df + 1) / 2) / math.gamma(df / 2)


def pilot_power(se: float, df: float, n_now: int, effect: float, n: int) -> float:
    """The power at n units averaged over the sd a stderr `se` on `df` df allows (sd^2 = se^2 df /
    X, X ~ chi2(df)): scipy's adaptive quadrature over X's quantiles u in (0, 1)."""
    critical = stats.t.ppf(0.975, n - 1)

    def reached(u: float) -> float:
        shift = effect / (se * math.sqrt(df / stats.chi2.ppf(u, df)) * math.sqrt(n_now / n))
        power = stats.nct.sf(critical, n - 1, shift) + stats.nct.cdf(-critical, n - 1, shift)
        return power if math.isfinite(power) else stats.norm.sf(critical - shift)  # far tail

    return integrate.quad(reached, 0, 1, limit=500, epsabs=1e-6)[0]


def assert_first_to_reach(n: int, se: float, df: float, n_now: int, effect: float) -> None:
    """n is the first size whose pilot-averaged power reaches 80 % (to the quadratures' 1e-4)."""
    assert pilot_power(se, df, n_now, effect, n) >= 0.8 - 1e-4
    assert pilot_power(se, df, n_now, effect, n - 1) < 0.8 + 1e-4


@pytest.mark.parametrize("effect", [0.004, 0.01, 0.05])
def test_units_needed_agrees_with_a_brute_force_search(effect):
    se, n_now = 0.004, 86
    assert units_needed(se, n_now, effect, 0.05, 0.8, n_now - 1, pilot=False) == (
        brute_force_units(se / c4(n_now - 1), n_now, effect)
    )
    if effect < 0.05:  # (at 0.05 n is 2-3, where scipy's noncentral t is too rough to integrate)
        for n_pilot in (n_now, 5):
            needed = units_needed(se, n_pilot, effect, 0.05, 0.8, n_pilot - 1)
            assert_first_to_reach(needed, se, n_pilot - 1, n_pilot, effect)
    assert units_needed(None, n_now, effect, 0.05, 0.8, 85) is None


def test_a_floor_above_the_stderr_is_planned_from_as_exact_and_below_it_bounds_the_draws():
    """compare's rerun floor is estimated on many df: where it is above the run's own stderr the
    plan rests on it with no pilot correction; below, it only lifts the draws that fall under it."""
    se, effect = 0.02, 0.02
    assert units_needed(se, 5, effect, 0.05, 0.8, 4, floor=0.03) == brute_force_units(
        0.03, 5, effect
    )
    assert units_needed(0.0, 5, effect, 0.05, 0.8, 4, floor=0.03) == brute_force_units(
        0.03, 5, effect
    )
    lifted = units_needed(se, 5, effect, 0.05, 0.8, 4, floor=0.8 * se / c4(4))
    assert units_needed(se, 5, effect, 0.05, 0.8, 4) < lifted < brute_force_units(0.03, 5, 0.01)


def delivered_power(pilot_units: int, effect: float, **options) -> float:
    """Normal theory: a pilot of `pilot_units` whose change has sd 1 gives a stderr sqrt(X / df),
    X ~ chi2(df) (here at 40 of its quantiles); each plans n, whose true power is averaged."""
    df = pilot_units - 1
    stderrs = np.sqrt(stats.chi2.ppf((np.arange(40) + 0.5) / 40, df) / df)
    needed = np.array(
        [units_needed(se, pilot_units, effect, 0.05, 0.8, df, **options) for se in stderrs]
    )
    return float(np.mean(detection_power(effect, np.sqrt(pilot_units / needed), needed - 1)))


@pytest.mark.parametrize("pilot_units", [5, 10])
def test_a_plan_from_a_small_pilot_delivers_the_power_it_states(pilot_units):
    """The planned n is as noisy as the pilot's stderr squared and power is concave in n: planned
    as if the stderr were exact, a 5- (10-) template pilot reaches 72 % (76 %) where 80 % was
    asked; averaging the power over what the stderr allows reaches 80 %."""
    effect = 1.0  # the change's sd at the pilot's size: the plan is 8-10 times the pilot
    assert 0.79 <= delivered_power(pilot_units, effect) <= 0.83
    assert delivered_power(pilot_units, effect, pilot=False) < 0.77


def plan_json(tmp_path: Path, *arguments: str) -> tuple[int, dict, str]:
    out = tmp_path / "plan.json"
    status = cli.main(["plan", *arguments, "--json", str(out)])
    return status, json.loads(out.read_text()), out


def test_plan_from_one_run_scales_its_stderr_and_says_its_assumptions(full_docs, tmp_path, capsys):
    base = planted_run(tmp_path / "base", full_docs, seed=1)
    status, planned, _ = plan_json(tmp_path, str(base), "--detect", "mean_abs:0.01")
    assert status == 0
    row = planned["tasks"][TASK]["mean_abs"]
    summary = build_report(base).entries[TASK].body["summary"]
    assert row["stderr"] == pytest.approx(summary["mean_abs_stderr"])
    assert row["stderr_change"] == pytest.approx(math.sqrt(2) * summary["mean_abs_stderr"])
    assert (row["unit"], row["units_now"], row["docs_now"]) == ("templates", 86, 86 * 3 * 22)
    assert row["units_needed_point"] == brute_force_units(row["stderr_change"] / c4(85), 86, 0.01)
    expected = row["units_needed"]
    assert_first_to_reach(expected, row["stderr_change"], 85, 86, 0.01)
    assert row["df"] == 85 and row["correction"].startswith("pilot")
    assert row["docs_needed"] == math.ceil(expected * 66)  # instrument docs
    # docs come template by template (3 scenarios x 23 docs, controls included): --limit works
    assert row["limit"] == (expected * 69 if expected <= 86 else None)
    assert row["variants"] == {"mini": 5, "full": 86}
    assert row["variants_reaching"] == [n for n, c in row["variants"].items() if c >= expected]
    assert "uncorrelated" in planned["assumptions"]["correlation"]
    assert "expected-power rule" in planned["assumptions"]["pilot"]
    printed = capsys.readouterr().out
    assert "Assumptions:" in printed and "conservative" in printed and str(expected) in printed
    assert "expected-power rule" in printed and "| as if exact |" in printed


def test_a_second_run_measures_the_change_stderr(full_docs, tmp_path):
    base = planted_run(tmp_path / "base", full_docs, seed=1)
    rerun = planted_run(tmp_path / "rerun", full_docs, seed=2)
    status, planned, _ = plan_json(
        tmp_path, str(base), "--detect", "mean_abs:0.01", "--second-run", str(rerun)
    )
    change = compare_runs(base, rerun)["tasks"][TASK]["metrics"]["mean_abs"]
    row = planned["tasks"][TASK]["mean_abs"]
    assert status == 0 and row["stderr_change"] == pytest.approx(change["stderr"])
    sd = change["mde_stderr"] / c4(change["df"])  # what compare's MDE rests on
    assert row["units_needed_point"] == brute_force_units(sd, 86, 0.01)
    if row["correction"].startswith("pilot"):
        assert_first_to_reach(row["units_needed"], row["stderr_change"], change["df"], 86, 0.01)
    else:  # the rerun floor binds: no pilot correction
        assert row["correction"].startswith("floor")
        assert row["units_needed"] == row["units_needed_point"]
    assert "second run" in planned["assumptions"]["correlation"]


def test_the_plan_for_the_reported_mde_is_the_run_itself(full_docs, tmp_path):
    """compare's MDE and plan's size as if the stderr were exact use one rule: planning for a rerun
    comparison's MDE gives the run's own number of templates (the pilot correction, where it
    applies, asks for a few more: the run's stderr is itself an estimate)."""
    base = planted_run(tmp_path / "base", full_docs, seed=1)
    rerun = planted_run(tmp_path / "rerun", full_docs, seed=2)
    mde = compare_runs(base, rerun)["tasks"][TASK]["metrics"]["mean_abs"]["mde"]
    _, planned, _ = plan_json(
        tmp_path, str(base), "--detect", f"mean_abs:{mde * 1.0001}", "--second-run", str(rerun)
    )
    row = planned["tasks"][TASK]["mean_abs"]
    assert row["units_needed_point"] == 86 and 86 <= row["units_needed"] <= 86 * 1.1
    _, planned, _ = plan_json(
        tmp_path, str(base), "--detect", f"mean_abs:{mde * 0.98}", "--second-run", str(rerun)
    )
    assert planned["tasks"][TASK]["mean_abs"]["units_needed_point"] > 86


def test_bad_rules_are_clear_errors(full_docs, tmp_path, capsys):
    base = planted_run(tmp_path / "base", full_docs, seed=1)
    assert cli.main(["plan", str(base), "--detect", "mean_abs:-1"]) == 2
    assert "expected [TASK:]METRIC:D with D > 0" in capsys.readouterr().err
    assert cli.main(["plan", str(base), "--detect", "invalid_rate:0.05"]) == 0  # no invalid answer
    assert "no variation in this run" in capsys.readouterr().out
    assert cli.main(["plan", str(base), "--detect", "no_such_metric:0.1"]) == 2
    assert "matches no task's metric" in capsys.readouterr().out


def test_a_run_too_small_to_plan_from_is_refused(full_docs, tmp_path, capsys):
    """Two templates: the SE of a change rests on 1 df, and a plan from it reaches well under the
    stated power: refused, saying why and what to run."""
    two = [doc for doc in full_docs if doc["template_id"] in ("t000", "t001")]
    base = planted_run(tmp_path / "base", two, seed=1)
    status, planned, _ = plan_json(tmp_path, str(base), "--detect", "mean_abs:0.05")
    row = planned["tasks"][TASK]["mean_abs"]
    assert status == 0 and row["units_now"] == 2 and row["df"] == 1 < MIN_PILOT_DF
    assert row["units_needed"] is None and row["docs_needed"] is None
    assert row["why_none"].startswith("too small to plan from: the SE of a change rests on 1 df")
    assert row["units_needed_point"] is not None  # as if exact, for the record
    assert "too small to plan from" in capsys.readouterr().out


@pytest.mark.slow
@pytest.mark.parametrize("design, effect", [("text", 0.02), ("audio", 0.01)])
def test_the_planned_size_detects_the_effect_with_the_planned_power(design, effect):
    """A pilot at the design's own size (its paired stderr averaged over 100 reruns, to take the
    pilot's own noise out) plans n templates for `effect`; 1,000 simulated comparisons at n
    templates with that change planted detect it about 80 % of the time."""
    from support.paired_designs import DESIGNS, simulate

    templates = DESIGNS[design][0]
    pilot = simulate(design, 100, 0.0, seed=7)
    se = float(np.sqrt(np.mean(pilot.stderr**2)))
    # 100 reruns' pooled variance: its df are 100 times a run's (the pilot correction all but off)
    needed = units_needed(se, templates, effect, 0.05, 0.8, 100 * float(pilot.df.mean()))
    detected = np.mean(simulate(design, 1_000, effect, seed=8, templates=needed).p_value < 0.05)
    print(f"{design}: plan {needed} templates for {effect}; detected {detected:.3f}")
    assert needed != templates
    assert 0.75 <= detected <= 0.85


@pytest.mark.slow
@pytest.mark.parametrize(
    "pilot_units, rerun_template_sd, effect, low, high",
    [(5, 0.04, 0.05, 0.75, 0.85), (10, 0.04, 0.05, 0.75, 0.85), (5, 0.0, 0.02, 0.75, 0.92)],
    ids=["5-templates", "10-templates", "5-templates-floor"],
)
def test_a_plan_from_a_small_pilot_detects_the_effect_with_the_stated_power(
    pilot_units, rerun_template_sd, effect, low, high
):
    """1,000 pilots: a base run and a rerun of one model on `pilot_units` templates of the text
    design, compared as `plan --second-run` compares them (planning_basis); each plans n templates
    for `effect` at 80 % power, and one comparison at n with that change planted tells whether it
    is found (1,000 runs: Monte Carlo sd 1.3 %). Runs that differ by template as well as by doc
    (each run its own per-template strength, sd 0.04: the rerun floor, a doc-level residual, sees
    little of it) plan from the pilot's stderr on 4 or 9 df: planned as if that stderr were exact
    (before the pilot correction) the effect was found 70.8 % / 76.9 % of the time (5 / 10
    templates), now 79.1 % / 80.8 %. With doc-level rerun noise only, the floor mostly binds (the
    max of two estimates of one sd) and the plan is conservative: 88.6 % before, 90.9 % now."""
    from collections import Counter

    from support.paired_designs import simulate

    pilots = simulate(
        "text", 1_000, 0.0, seed=17, templates=pilot_units, rerun_template_sd=rerun_template_sd
    )
    needed = []
    for change in pilots.to_dict("records"):
        stderr, df, floor = planning_basis(change)
        needed.append(units_needed(stderr, pilot_units, effect, 0.05, 0.8, df, floor=floor))
    detected = []
    for n, count in sorted(Counter(needed).items()):
        runs = simulate(
            "text", count, effect, seed=1_000 + n, templates=n, rerun_template_sd=rerun_template_sd
        )
        detected += list(runs.p_value < 0.05)
    rate = float(np.mean(detected))
    print(f"{pilot_units}-template pilot: median plan {np.median(needed):.0f}; detected {rate:.3f}")
    assert low <= rate <= high
