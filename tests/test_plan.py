"""`symphony-bench plan`: the units and docs a paired comparison needs to detect a change, from one
finished run (and optionally a second run of the same model), against a brute-force search with
scipy's noncentral t; the command line, its JSON, its assumptions and its errors."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from scipy import stats
from support.runs import lm_eval_results, write_model_folder

from symphony_bench.plugin import cli
from symphony_bench.plugin.runs.compare import compare_runs
from symphony_bench.plugin.runs.plan import units_needed
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


@pytest.mark.parametrize("effect", [0.004, 0.01, 0.05])
def test_units_needed_agrees_with_a_brute_force_search(effect):
    se, n_now = 0.004, 86
    assert units_needed(se, n_now, effect, 0.05, 0.8, n_now - 1) == brute_force_units(
        se / c4(n_now - 1), n_now, effect
    )
    assert units_needed(None, n_now, effect, 0.05, 0.8, 85) is None


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
    expected = brute_force_units(row["stderr_change"] / c4(85), 86, 0.01)
    assert row["units_needed"] == expected
    assert row["docs_needed"] == math.ceil(expected * 66)  # instrument docs
    # docs come template by template (3 scenarios x 23 docs, controls included): --limit works
    assert row["limit"] == (expected * 69 if expected <= 86 else None)
    assert row["variants"] == {"mini": 5, "full": 86}
    assert row["variants_reaching"] == [n for n, c in row["variants"].items() if c >= expected]
    assert "uncorrelated" in planned["assumptions"]["correlation"]
    printed = capsys.readouterr().out
    assert "Assumptions:" in printed and "conservative" in printed and str(expected) in printed


def test_a_second_run_measures_the_change_stderr(full_docs, tmp_path):
    base = planted_run(tmp_path / "base", full_docs, seed=1)
    rerun = planted_run(tmp_path / "rerun", full_docs, seed=2)
    status, planned, _ = plan_json(
        tmp_path, str(base), "--detect", "mean_abs:0.01", "--second-run", str(rerun)
    )
    change = compare_runs(base, rerun)["tasks"][TASK]["metrics"]["mean_abs"]
    row = planned["tasks"][TASK]["mean_abs"]
    assert status == 0 and row["stderr_change"] == pytest.approx(change["stderr"])
    assert row["units_needed"] == brute_force_units(change["stderr"] / c4(change["df"]), 86, 0.01)
    assert "second run" in planned["assumptions"]["correlation"]


def test_the_plan_for_the_reported_mde_is_the_run_itself(full_docs, tmp_path):
    """compare's MDE and plan's size use one rule: planning for a rerun comparison's MDE gives the
    run's own number of templates."""
    base = planted_run(tmp_path / "base", full_docs, seed=1)
    rerun = planted_run(tmp_path / "rerun", full_docs, seed=2)
    mde = compare_runs(base, rerun)["tasks"][TASK]["metrics"]["mean_abs"]["mde"]
    _, planned, _ = plan_json(
        tmp_path, str(base), "--detect", f"mean_abs:{mde * 1.0001}", "--second-run", str(rerun)
    )
    assert planned["tasks"][TASK]["mean_abs"]["units_needed"] == 86
    _, planned, _ = plan_json(
        tmp_path, str(base), "--detect", f"mean_abs:{mde * 0.98}", "--second-run", str(rerun)
    )
    assert planned["tasks"][TASK]["mean_abs"]["units_needed"] > 86


def test_bad_rules_are_clear_errors(full_docs, tmp_path, capsys):
    base = planted_run(tmp_path / "base", full_docs, seed=1)
    assert cli.main(["plan", str(base), "--detect", "mean_abs:-1"]) == 2
    assert "expected [TASK:]METRIC:D with D > 0" in capsys.readouterr().err
    assert cli.main(["plan", str(base), "--detect", "invalid_rate:0.05"]) == 0  # no invalid answer
    assert "no variation in this run" in capsys.readouterr().out
    assert cli.main(["plan", str(base), "--detect", "no_such_metric:0.1"]) == 2
    assert "matches no task's metric" in capsys.readouterr().out


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
    needed = units_needed(se, templates, effect, 0.05, 0.8, float(pilot.df.mean()))
    detected = np.mean(simulate(design, 1_000, effect, seed=8, templates=needed).p_value < 0.05)
    print(f"{design}: plan {needed} templates for {effect}; detected {detected:.3f}")
    assert needed != templates
    assert 0.75 <= detected <= 0.85
