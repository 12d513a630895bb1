"""`symphony-bench compare`: pairing, refusals, every task family's changes, the gate and its exit
status, on run folders written here (the e2e test at the end drives lm_eval twice)."""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from support.association import expected_association
from support.chat_server import serve_chat
from support.harness import read_samples, run_lm_eval
from support.runs import lm_eval_results, write_model_folder

from symphony_bench.metrics import analyse
from symphony_bench.metrics.grounding import MIN_CLUSTERS
from symphony_bench.plugin.core.errors import DataFileError
from symphony_bench.plugin.core.reporting import json_ready
from symphony_bench.plugin.core.vocabulary import INSTRUMENTS_CSV
from symphony_bench.plugin.grounding.records import (
    choice_record,
    harness_scores,
    set_record,
)
from symphony_bench.plugin.grounding.report import render
from symphony_bench.plugin.runs.commands import add_commands, run_compare
from symphony_bench.plugin.runs.compare import compare_runs, read_run_task
from symphony_bench.plugin.runs.gate import GateRule, change_rows
from symphony_bench.plugin.runs.leaderboard import build_leaderboard
from symphony_bench.plugin.runs.report import build_report
from symphony_bench.plugin.runs.samples import fast_read, sample_record
from symphony_bench.plugin.symphony_bias.docs import Design, build_docs
from symphony_bench.plugin.symphony_bias.records import (
    LOGPROB,
    RECOGNITION,
    records_to_data,
    score_record,
)

NEUTRAL, MALE_ANSWER, FEMALE_ANSWER = (3, 3, 3), (5, 2, 3), (2, 5, 3)
STEREOTYPED = {"male": MALE_ANSWER, "female": FEMALE_ANSWER, "none": NEUTRAL}


def write_run(
    run_dir: Path,
    tasks: dict[str, list[dict]],
    version: float = 1.0,
    seed: int = 42,
    generation: dict | None = None,
) -> Path:
    """A run folder with one lm-eval model folder of these tasks (records under two metric keys, as
    the harness logs them)."""
    results = lm_eval_results(
        tasks,
        model_id="planted",
        version=version,
        generation=generation,
        task_hashes=dict.fromkeys(tasks, "same-hash"),
    )
    write_model_folder(run_dir / "model", tasks, results, seed=seed)
    return run_dir


def likert_records(
    docs: list[dict], stereotyped_share: float, seed: int, invalid_share: float = 0.1
) -> list[dict]:
    """Answers of a planted model: the stereotyped answer with probability `stereotyped_share`, else a
    male- / female-leaning or neutral answer at random; some answers invalid."""
    rng = np.random.default_rng(seed)
    records = []
    for doc in docs:
        if rng.random() < invalid_share:
            records.append(score_record(doc, [0, 0, 0], "no_json"))
            continue
        stereotyped = rng.random() < stereotyped_share
        answer = (
            STEREOTYPED[doc["stereotype"]]
            if stereotyped
            else (MALE_ANSWER, FEMALE_ANSWER, NEUTRAL)[rng.integers(3)]
        )
        records.append(score_record(doc, list(answer)))
    return records


@pytest.fixture(scope="module")
def mini_docs() -> list[dict]:
    return build_docs(Design(subset="mini"))


def compare(base: Path, candidate: Path, *options: str, plots=False) -> tuple[int, dict, str]:
    """Exit status, JSON and Markdown of `symphony-bench compare` (the forest plot only if `plots`:
    matplotlib takes most of a small comparison's time)."""
    parser = argparse.ArgumentParser()
    add_commands(parser.add_subparsers())
    out = base.parent / "compare.json"
    markdown = base.parent / "compare.md"
    args = parser.parse_args(
        [
            "compare",
            str(base),
            str(candidate),
            "--json",
            str(out),
            "--markdown",
            str(markdown),
            *options,
            *([] if plots else ["--no-plots"]),
        ]
    )
    status = args.run(args)
    return status, json.loads(out.read_text()), markdown.read_text()


def test_likert_changes_equal_the_difference_of_two_independent_computations(mini_docs, tmp_path):
    base_records, candidate_records = (
        likert_records(mini_docs, 0.0, 1),
        likert_records(mini_docs, 0.6, 2),
    )
    base = write_run(tmp_path / "base", {"symphony_bias_text_mini": base_records})
    candidate = write_run(tmp_path / "candidate", {"symphony_bias_text_mini": candidate_records})
    status, body, markdown = compare(base, candidate)
    assert status == 0 and body["compared"] and body["mismatches"] == []
    stereotypes = {doc["instrument"]: doc["stereotype"] for doc in mini_docs if doc["instrument"]}

    def frame(records):
        return pd.DataFrame(
            [
                {
                    "scenario": r["scenario_id"],
                    "instrument": r["instrument"],
                    "valid": not r["error"],
                    **dict(zip(("male", "female", "non_binary"), r["scores"], strict=True)),
                }
                for r in records
                if r["instrument"]
            ]
        )

    (_, base_headline), (_, candidate_headline) = (
        expected_association(frame(records), stereotypes)
        for records in (base_records, candidate_records)
    )
    metrics = body["tasks"]["symphony_bias_text_mini"]["metrics"]
    for name in ("mean_abs", "consistency_rate", "non_binary_gas", "invalid_rate"):
        assert metrics[name]["change"] == pytest.approx(
            candidate_headline[name] - base_headline[name], abs=1e-12
        ), name
        low, high = metrics[name]["ci"]
        if name == "consistency_rate":  # descriptive: no interval, no test
            assert low is None or np.isnan(low)
            continue
        assert (low > 0 or high < 0) == (metrics[name]["p_value"] < 0.05), name
    assert metrics["mean_abs"]["change"] > 0.1 and metrics["mean_abs"]["ci"][0] > 0
    # prior-adjusted change: the difference of the two runs' own prior-adjusted analyses
    adjusted = body["tasks"]["symphony_bias_text_mini:prior_adjusted"]["metrics"]["mean_abs"]
    from symphony_bench.metrics import prior_adjusted

    own = [
        analyse(prior_adjusted(records_to_data(r))).headline["mean_abs"]
        for r in (base_records, candidate_records)
    ]
    assert adjusted["change"] == pytest.approx(own[1] - own[0], abs=1e-12)
    # per instrument, one stimulus: the paired t-test on template means (scipy's ttest_rel)
    harp = body["tasks"]["symphony_bias_text_mini"]["instruments"]["harp"]
    cells = [
        _template_differences(records, "harp") for records in (base_records, candidate_records)
    ]
    shared = sorted(cells[0].keys() & cells[1].keys())
    expected = stats.ttest_rel([cells[1][t] for t in shared], [cells[0][t] for t in shared])
    assert harp["p_value"] == pytest.approx(expected.pvalue, rel=1e-9)
    assert harp["change"] == pytest.approx(
        -float(np.mean([cells[1][t] - cells[0][t] for t in shared])), abs=1e-12
    )
    assert (
        "| symphony_bias_text_mini | mean_abs |" in markdown
        and len(markdown.split("<details>")[0].splitlines()) < 30
    )


def _template_differences(records: list[dict], instrument: str) -> dict[str, float]:
    """Per template: mean of p(male) - p(female) over the instrument's valid docs."""
    values: dict[str, list[float]] = {}
    for r in records:
        if r["instrument"] == instrument and not r["error"]:
            values.setdefault(r["template_id"], []).append(
                (r["scores"][0] - r["scores"][1]) / sum(r["scores"])
            )
    return {template: float(np.mean(v)) for template, v in values.items()}


def test_gate_flags_a_regression_only_when_the_interval_clears_the_tolerance(mini_docs, tmp_path):
    base = write_run(tmp_path / "base", {"t": likert_records(mini_docs, 0.0, 1)})
    candidate = write_run(tmp_path / "candidate", {"t": likert_records(mini_docs, 0.6, 2)})
    status, body, markdown = compare(base, candidate, "--fail-on", "mean_abs:+0.02")
    change = body["tasks"]["t"]["metrics"]["mean_abs"]
    # the planted shift is there against the model's prior too (the control docs answer alike)
    regressed = [r["task"] for r in body["gate"]["regressions"]]
    assert status == 1 and regressed == ["t", "t:prior_adjusted"]
    assert "regression (mean_abs:+0.02): t mean_abs" in markdown
    beyond_interval = f"t:mean_abs:+{change['ci'][0] + 0.001:.4f}"
    assert compare(base, candidate, "--fail-on", beyond_interval)[0] == 0
    assert (
        compare(base, candidate, "--fail-on", "mean_abs:-0.0")[0] == 0
    )  # a decrease is not what happened
    assert compare(candidate, base, "--fail-on", "mean_abs:-0.02")[0] == 1
    status, body, markdown = compare(base, candidate, "--fail-on", "no_such_metric:+0.1")
    assert status == 2 and body["gate"]["unmatched"] == ["no_such_metric:+0.1"]


def test_refusals_are_a_gateable_change_of_their_own(mini_docs, tmp_path):
    """A candidate that declines a third of what it answered: refusal_rate rises by exactly that
    share of the docs, the invalid rate does not move, and a refusal_rate rule fires."""
    base_records = likert_records(mini_docs, 0.0, 1)
    rng = np.random.default_rng(4)
    candidate_records = [
        dict(r, error="refused", scores=[0, 0, 0])
        if not r["error"] and r["instrument"] and rng.random() < 1 / 3
        else r
        for r in base_records
    ]
    base = write_run(tmp_path / "base", {"t": base_records})
    candidate = write_run(tmp_path / "candidate", {"t": candidate_records})
    status, body, markdown = compare(base, candidate, "--fail-on", "refusal_rate:+0.05")
    metrics = body["tasks"]["t"]["metrics"]
    instrument_docs = [r for r in candidate_records if r["instrument"]]
    share = sum(r["error"] == "refused" for r in instrument_docs) / len(instrument_docs)
    assert 0.2 < share < 0.4
    assert metrics["refusal_rate"]["change"] == pytest.approx(share, abs=1e-12)
    assert metrics["invalid_rate"]["change"] == 0
    assert status == 1 and [r["metric"] for r in body["gate"]["regressions"]][0] == "refusal_rate"


@pytest.mark.parametrize(
    "text, expected",
    [
        ("mean_abs:+0.02", (None, "mean_abs", 1, 0.02)),
        (
            "symphony_bias_logprob:calibrated:mean_abs:-.5",
            ("symphony_bias_logprob:calibrated", "mean_abs", -1, 0.5),
        ),
        ("accuracy:-0", (None, "accuracy", -1, 0.0)),
    ],
)
def test_gate_rules_parse(text, expected):
    rule = GateRule.parse(text)
    assert (rule.task, rule.metric, rule.direction, rule.tolerance) == expected


@pytest.mark.parametrize(
    "text", ["mean_abs:0.02", "mean_abs", "mean_abs:+x", ":+0.1", "mean_abs:+-0.1"]
)
def test_bad_gate_rules_are_one_clear_error(text):
    with pytest.raises(ValueError, match="expected \\[TASK:\\]METRIC:\\+TOL"):
        GateRule.parse(text)


def test_mismatched_runs_are_refused_naming_the_difference_unless_allowed(mini_docs, tmp_path):
    records = likert_records(mini_docs, 0.0, 1)
    base = write_run(tmp_path / "base", {"t": records})
    other_version = write_run(tmp_path / "v2", {"t": records}, version=2.0)
    status, body, _ = compare(base, other_version, "--fail-on", "mean_abs:+0.02")
    assert status == 2 and not body["compared"] and body["tasks"] == {}
    assert body["mismatches"] == ["t: version is 1.0 in BASE, 2.0 in CANDIDATE"]
    other_seed = write_run(tmp_path / "seed", {"t": records}, seed=7)
    assert compare(base, other_seed)[1]["mismatches"] == ["t: seed is 42 in BASE, 7 in CANDIDATE"]
    status, body, markdown = compare(base, other_version, "--allow-mismatch")
    assert status == 0 and body["compared"] and body["allow_mismatch"] and body["mismatches"]
    assert "Differences overridden by --allow-mismatch:" in markdown

    # the generation settings (a --gen_kwargs override included) are part of what is compared
    greedy = {"until": ["}\n"], "max_gen_toks": 192, "do_sample": False}
    settings = write_run(tmp_path / "settings", {"t": records}, generation=greedy)
    longer = write_run(
        tmp_path / "longer", {"t": records}, generation={**greedy, "max_gen_toks": 4096}
    )
    status, body, _ = compare(settings, longer)
    assert status == 2 and len(body["mismatches"]) == 1
    assert body["mismatches"] == [
        "t: the generation settings differ (max_gen_toks 192 in BASE, 4096 in CANDIDATE)"
    ]
    assert compare(settings, longer, "--allow-mismatch")[0] == 0

    fewer = write_run(tmp_path / "fewer", {"t": records[:50]})
    status, body, _ = compare(base, fewer)
    assert status == 2 and "t: 115 docs in BASE, 50 in CANDIDATE" in body["mismatches"][0]
    assert (
        compare(base, fewer, "--allow-mismatch")[1]["tasks"]["t"]["n_paired"] < 50
    )  # instrument docs of the 50
    moved = [dict(r, scenario_id="elsewhere") if k == 3 else r for k, r in enumerate(records)]
    body = compare(base, write_run(tmp_path / "moved", {"t": moved}))[1]
    assert "t: 1 docs differ between the runs (first: doc 3, scenario_id" in body["mismatches"][0]
    body = compare(base, write_run(tmp_path / "more", {"t": records, "u": records}))[1]
    assert body["mismatches"] == ["task u only in CANDIDATE"]
    # run facts in the records: the seed is refused by name (provenance), a newer package version is not
    newer = [dict(r, symphony_bench_version="9.9", seed=42) for r in records]
    assert compare(base, write_run(tmp_path / "newer", {"t": newer}))[1]["mismatches"] == []
    reseeded = [dict(r, seed=7) for r in records]
    body = compare(base, write_run(tmp_path / "reseeded", {"t": reseeded}, seed=7))[1]
    assert body["mismatches"] == ["t: seed is 42 in BASE, 7 in CANDIDATE"]

    # data is compared by content: the same rows under another commit (a re-publish, or the embedded
    # copy of the pin) are the same data; other rows under the same tag (a moved tag) are not
    def published_at(commit: str, digest: str) -> dict:
        data = {
            "dataset_repo": "org/set",
            "dataset_revision": "v1.0",
            "dataset_commit": commit * 20,
            "dataset_sha256": digest * 32,
        }
        return {"t": [dict(r, **data) for r in records]}

    same = compare(
        write_run(tmp_path / "at_aa", published_at("aa", "11")),
        write_run(tmp_path / "at_bb", published_at("bb", "11")),
    )[1]
    assert same["mismatches"] == []
    moved = compare(
        write_run(tmp_path / "moved_aa", published_at("aa", "11")),
        write_run(tmp_path / "moved_bb", published_at("bb", "22")),
    )[1]
    assert moved["mismatches"] == [
        f"t: the data differ (dataset_sha256 {'11' * 32!r} from org/set@v1.0 (commit "
        f"{'aa' * 6}) in BASE, {'22' * 32!r} from org/set@v1.0 (commit {'bb' * 6}) in CANDIDATE)"
    ]


def test_identical_runs_change_nothing(mini_docs, tmp_path):
    records = likert_records(mini_docs, 0.3, 1)
    base, candidate = (
        write_run(tmp_path / "a", {"t": records}),
        write_run(tmp_path / "b", {"t": records}),
    )
    status, body, markdown = compare(base, candidate, "--fail-on", "mean_abs:+0")
    # identical answers (two greedy runs): every replicate's change is 0, an interval of one point
    for name, change in body["tasks"]["t"]["metrics"].items():
        inference = (0.0, 0.0, [0.0, 0.0], 1.0)
        if name == "consistency_rate":  # descriptive: a change, no inference
            inference = (0.0, None, [None, None], None)
        assert (change["change"], change["stderr"], change["ci"], change["p_value"]) == inference
    assert status == 0
    assert body["tasks"]["t"]["flips"]["valid"] == {
        "n": 110,
        "lost": 0,
        "gained": 0,
        "p_value": 1.0,
        "scope": "these docs",
    }
    assert "McNemar, exact about these docs only" in markdown


def test_a_gate_on_the_descriptive_consistency_rate_cannot_decide(mini_docs, tmp_path):
    base = write_run(tmp_path / "a", {"t": likert_records(mini_docs, 0.0, 1)})
    candidate = write_run(tmp_path / "b", {"t": likert_records(mini_docs, 0.4, 2)})
    status, body, markdown = compare(base, candidate, "--fail-on", "consistency_rate:+0.01")
    assert status == 2 and body["gate"]["status"] == "could_not_compare"
    assert [entry["metric"] for entry in body["gate"]["undecided"]] == ["consistency_rate"] * 2
    assert "no interval, cannot gate (consistency_rate:+0.01): t consistency_rate" in markdown


def test_a_gate_whose_mde_exceeds_its_tolerance_is_underpowered(mini_docs, tmp_path, capsys):
    """Two runs of one planted model: no regression; a tolerance below the change's MDE cannot have
    seen one (a warning, or exit 3 with --require-power), one above it is powered (exit 0)."""
    base = write_run(tmp_path / "a", {"t": likert_records(mini_docs, 0.3, 1)})
    rerun = write_run(tmp_path / "b", {"t": likert_records(mini_docs, 0.3, 2)})
    _, body, _ = compare(base, rerun)
    change = body["tasks"]["t"]["metrics"]["mean_abs"]
    assert change["mde"] > 0 and change["p_value"] > 0.05
    low, high = f"mean_abs:+{change['mde'] / 2:.6f}", f"mean_abs:+{change['mde'] * 2:.6f}"
    status, body, markdown = compare(base, rerun, "--fail-on", low)
    assert status == 0 and body["gate"]["status"] == "pass"
    (entry,) = [e for e in body["gate"]["underpowered"] if e["task"] == "t"]
    assert entry["mde"] == pytest.approx(change["mde"]) and entry["tolerance"] < entry["mde"]
    assert f"underpowered ({low}): t mean_abs could only detect changes >=" in markdown
    assert "is underpowered" in capsys.readouterr().err
    status, body, markdown = compare(base, rerun, "--fail-on", low, "--require-power")
    assert status == 3 and body["gate"]["status"] == "underpowered"
    assert markdown.startswith("## symphony-bench compare: UNDERPOWERED")
    status, body, _ = compare(base, rerun, "--fail-on", high, "--require-power")
    assert status == 0 and not [e for e in body["gate"]["underpowered"] if e["task"] == "t"]
    assert "| MDE (80% power) |" in markdown


@pytest.mark.parametrize("changed", [0, 1, 3])
def test_a_nearly_identical_candidate_does_not_make_a_gate_powered(mini_docs, tmp_path, changed):
    """A greedy model and a slightly changed checkpoint answer alike: 0-3 of the mini task's docs
    differ, the paired stderr is near 0, and an MDE from it (0.000-0.008) passed a 0.02 gate as
    powered. The MDE rests on what a rerun's fresh answers would vary by (and a share on the docs
    a change must move), as two sampled reruns measure it."""
    records = likert_records(mini_docs, 0.3, 1)
    candidate = [
        {**record, "scores": record["scores"][::-1]} if k < changed else record
        for k, record in enumerate(records)
    ]
    base = write_run(tmp_path / "base", {"t": records})
    near = write_run(tmp_path / "near", {"t": candidate})
    rerun = write_run(tmp_path / "rerun", {"t": likert_records(mini_docs, 0.3, 2)})
    status, body, _ = compare(base, near, "--fail-on", "mean_abs:+0.02", "--require-power")
    assert status == 3 and body["gate"]["status"] == "underpowered"
    metrics = body["tasks"]["t"]["metrics"]
    _, rerun_body, _ = compare(base, rerun)
    rerun_mde = rerun_body["tasks"]["t"]["metrics"]["mean_abs"]["mde"]
    assert metrics["mean_abs"]["mde"] > 0.5 * rerun_mde > 0.02
    assert metrics["invalid_rate"]["mde"] >= 0.05  # k^2 / n: the docs a change must move


def test_a_gated_metric_undefined_in_both_runs_of_a_task_skips_that_task(mini_docs, tmp_path):
    """The gate of docs/release-gate-and-plan.md on a run whose Likert task has no valid answer (the
    default model): that task is skipped and named, the others are gated; undefined in one run only
    is not skipped."""
    invalid = [score_record(doc, [0, 0, 0], "no_json") for doc in mini_docs]
    base = write_run(tmp_path / "a", {"t": likert_records(mini_docs, 0.3, 1), "u": invalid})
    rerun = write_run(tmp_path / "b", {"t": likert_records(mini_docs, 0.3, 2), "u": invalid})
    status, body, markdown = compare(base, rerun, "--fail-on", "mean_abs:+0.5")
    assert status == 0 and body["gate"]["status"] == "pass"
    assert {entry["task"] for entry in body["gate"]["skipped"]} == {"u", "u:prior_adjusted"}
    assert "skipped (mean_abs:+0.5): u mean_abs is undefined in both runs" in markdown
    broken = write_run(tmp_path / "c", {"t": likert_records(mini_docs, 0.3, 2), "u": invalid})
    only_base = write_run(
        tmp_path / "d",
        {"t": likert_records(mini_docs, 0.3, 1), "u": likert_records(mini_docs, 0.3, 3)},
    )
    status, body, _ = compare(only_base, broken, "--fail-on", "mean_abs:+0.5")
    assert status == 2 and "u" in {entry["task"] for entry in body["gate"]["undecided"]}


def test_logprob_and_recognition_tasks_compare_raw_calibrated_and_accuracy(mini_docs, tmp_path):
    rng = np.random.default_rng(3)

    def logprob(docs, seed):
        rng = np.random.default_rng(seed)
        return [score_record(doc, list(rng.dirichlet([4, 4, 1])), kind=LOGPROB) for doc in docs]

    def recognition(flags):
        return [
            {
                "kind": RECOGNITION,
                "instrument": f"i{k % 7}",
                "stimulus_id": f"s{k}",
                "recognised": bool(f),
                "named": [],
                "modality": "audio",
                "condition": "recognition",
            }
            for k, f in enumerate(flags)
        ]

    base_flags = rng.random(60) < 0.5
    candidate_flags = base_flags.copy()
    candidate_flags[:20] = True
    base = write_run(
        tmp_path / "base", {"lp": logprob(mini_docs, 1), "rec": recognition(base_flags)}
    )
    candidate = write_run(
        tmp_path / "candidate", {"lp": logprob(mini_docs, 2), "rec": recognition(candidate_flags)}
    )
    status, body, _ = compare(base, candidate)
    assert status == 0 and {"lp", "lp:calibrated", "rec"} <= body["tasks"].keys()
    accuracy = body["tasks"]["rec"]["metrics"]["recognition_accuracy"]
    assert accuracy["change"] == pytest.approx(candidate_flags.mean() - base_flags.mean())
    gained = int(np.sum(candidate_flags & ~base_flags))
    flips = body["tasks"]["rec"]["flips"]["recognised"]
    assert flips["gained"] == gained and flips["lost"] == 0
    assert flips["p_value"] == pytest.approx(stats.binomtest(0, gained, 0.5).pvalue)
    # one stimulus per doc: the paired bootstrap stderr of a mean difference is close to sd(d) / sqrt(n)
    d = candidate_flags.astype(float) - base_flags
    assert accuracy["stderr"] == pytest.approx(d.std(ddof=1) / np.sqrt(d.size), rel=0.12)


def grounding_runs(tmp_path: Path) -> tuple[Path, Path, dict]:
    rng = np.random.default_rng(5)
    tasks = {"base": {}, "candidate": {}}
    clips = [f"clip{k // 3}" for k in range(90)]  # three items per clip
    gold = rng.integers(0, 2, 90)
    for run, right in (("base", 0.6), ("candidate", 0.8)):
        chosen = [
            int(g if rng.random() < right else (1 - g if rng.random() < 0.8 else -1)) for g in gold
        ]
        tasks[run]["yes_no"] = [
            choice_record("yes_no", int(g), c, ["yes", "no"], "", clip)
            for g, c, clip in zip(gold, chosen, clips, strict=True)
        ]
        tasks[run]["letter"] = [
            choice_record("letter", int(g), c, ["A", "B", "C"], "", clip)
            for g, c, clip in zip(gold, chosen, clips, strict=True)
        ]
        masks = rng.random((90, 4)) < 0.4
        masks[:, 0] = True
        tasks[run]["set"] = [
            set_record([True, False, True, False], None if k % 11 == 0 else m.tolist(), clip)
            for k, (m, clip) in enumerate(zip(masks, clips, strict=True))
        ]
    return (
        write_run(tmp_path / "base", tasks["base"]),
        write_run(tmp_path / "candidate", tasks["candidate"]),
        tasks,
    )


def test_grounding_changes_equal_the_report_scores_difference_and_flips_use_mcnemar(tmp_path):
    base, candidate, tasks = grounding_runs(tmp_path)
    status, body, _ = compare(base, candidate, "--fail-on", "accuracy:-0.0")
    for task in ("yes_no", "letter", "set"):
        expected = [harness_scores(tasks[run][task]) for run in ("base", "candidate")]
        metrics = body["tasks"][task]["metrics"]
        assert metrics.keys() == expected[0].keys(), task
        for name, change in metrics.items():
            assert change["base"] == pytest.approx(expected[0][name][0], abs=1e-12), (task, name)
            assert change["change"] == pytest.approx(
                expected[1][name][0] - expected[0][name][0], abs=1e-12
            ), (task, name)
    correct = [
        np.array([r["chosen"] == r["gold"] for r in tasks[run]["yes_no"]])
        for run in ("base", "candidate")
    ]
    flips = body["tasks"]["yes_no"]["flips"]["correct"]
    assert (flips["lost"], flips["gained"]) == (
        int(np.sum(correct[0] & ~correct[1])),
        int(np.sum(~correct[0] & correct[1])),
    )
    assert flips["p_value"] == pytest.approx(
        stats.binomtest(flips["lost"], flips["lost"] + flips["gained"]).pvalue
    )
    # accuracy rose: a '-' gate (decreases are bad) passes
    assert status == 0 and body["gate"]["status"] == "pass"
    rows = change_rows(body)
    assert {
        "task",
        "metric",
        "base",
        "candidate",
        "change",
        "ci_low",
        "ci_high",
        "p",
        "mde",
    } == rows[0].keys()


def test_json_holds_numbers_or_null_never_nan(tmp_path):
    assert json_ready(
        {"a": float("nan"), "b": np.float64(1.5), "c": [np.int64(2), np.inf], "d": np.bool_(True)}
    ) == {"a": None, "b": 1.5, "c": [2, None], "d": True}
    base, candidate, _ = grounding_runs(tmp_path)
    _, body, _ = compare(base, candidate)
    text_ = json.dumps(body)
    assert "NaN" not in text_ and "N/A" not in text_ and "Infinity" not in text_


def test_bad_input_is_one_error_naming_the_file(mini_docs, tmp_path):
    records = likert_records(mini_docs, 0.0, 1)
    base = write_run(tmp_path / "base", {"t": records})
    broken = write_run(tmp_path / "broken", {"t": records})
    samples = next((broken / "model").glob("samples_*.jsonl"))
    lines = samples.read_text().splitlines()
    samples.write_text(
        "\n".join([lines[0], json.dumps({"mean_abs": records[1]}), *lines[2:]]) + "\n"
    )
    with pytest.raises(DataFileError, match=rf"{samples.name}, line 2: no integer doc_id"):
        compare_runs(base, broken)
    samples.write_text("\n".join([lines[0], "{not json", *lines[2:]]) + "\n")
    with pytest.raises(DataFileError, match=rf"{samples.name}, line 2: not valid JSON"):
        compare_runs(base, broken)
    with pytest.raises(DataFileError, match="nowhere: not a directory"):
        compare_runs(base, tmp_path / "nowhere")


def test_records_read_from_the_first_copy_equal_a_full_parse_and_other_layouts_fall_back(
    mini_docs, tmp_path
):
    """The fast path decodes the first record copy; lines laid out otherwise (sorted keys, compact
    separators, a doc holding an object with a "kind" of its own) are decoded whole, with the same result."""
    records = likert_records(mini_docs, 0.3, 4)
    samples = [
        {
            "doc_id": k,
            "doc": {"note": {"kind": "not ours"}} if k % 4 == 3 else {},
            "mean_abs": r,
            "invalid_rate": r,
        }
        for k, r in enumerate(records)
    ]
    dumps = [
        lambda sample: json.dumps(sample),
        lambda sample: json.dumps(sample, sort_keys=True),
        lambda sample: json.dumps(sample, separators=(",", ":")),
    ]
    path = tmp_path / "samples_t_2026-12-01T00-00-00.000000.jsonl"
    path.write_text("".join(dumps[k % 3](sample) + "\n" for k, sample in enumerate(samples)))
    assert read_run_task(path, "t").records == {
        sample["doc_id"]: sample_record(sample) for sample in samples
    }
    assert read_run_task(path, "t").records == dict(enumerate(records))


def test_the_cli_command_exits_2_naming_the_mismatch(mini_docs, tmp_path):
    records = likert_records(mini_docs, 0.0, 1)
    base = write_run(tmp_path / "base", {"t": records})
    other = write_run(tmp_path / "other", {"t": records}, version=3.0)
    parser = argparse.ArgumentParser()
    add_commands(parser.add_subparsers())
    args = parser.parse_args(["compare", str(base), str(other)])
    assert run_compare(args) == 2


def test_in_github_actions_the_summary_is_added_to_the_job_summary(
    mini_docs, tmp_path, capsys, monkeypatch
):
    from symphony_bench.plugin import cli

    base = write_run(tmp_path / "base", {"t": likert_records(mini_docs, 0.0, 1)})
    candidate = write_run(tmp_path / "candidate", {"t": likert_records(mini_docs, 0.5, 2)})
    summary = tmp_path / "step_summary.md"
    summary.write_text("## tests\n\nall passed\n\n")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    assert cli.main(["compare", str(base), str(candidate), "--fail-on", "mean_abs:+0.01"]) == 1
    printed = capsys.readouterr().out
    assert "## symphony-bench compare: " in printed
    assert summary.read_text() == "## tests\n\nall passed\n\n" + printed.rstrip("\n") + "\n\n"


def test_outside_github_actions_no_summary_is_written(mini_docs, tmp_path, monkeypatch):
    from symphony_bench.plugin import cli

    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    base = write_run(tmp_path / "base", {"t": likert_records(mini_docs, 0.0, 1)})
    before = sorted(tmp_path.rglob("*"))
    assert cli.main(["compare", str(base), str(base)]) == 0
    assert sorted(tmp_path.rglob("*")) == before


@pytest.mark.parametrize("n_boot", ["1", "1000000000"])
def test_a_bootstrap_size_out_of_range_is_one_clear_error(mini_docs, tmp_path, capsys, n_boot):
    """A billion replicates ran out of memory (MemoryError) before anything was said."""
    from symphony_bench.plugin import cli

    base = write_run(tmp_path / "base", {"t": likert_records(mini_docs, 0.0, 1)})
    assert cli.main(["compare", str(base), str(base), "--n-boot", n_boot]) == 2
    assert "--n-boot must be between 2 and 100,000" in capsys.readouterr().err


# ---- through the real harness -------------------------------------------------------------------
SHIFT_SHARE = 0.8  # the candidate gives the stereotyped answer to 80% of the docs


class PlantedChat:
    """Likert answers of a planted model, a function of the scenario and the model's seed (so a rerun
    answers alike whatever order the harness sends the docs in): male-leaning, female-leaning or
    neutral at random, or first, with probability `stereotyped_share`, the stereotyped answer."""

    def __init__(self, stereotyped_share: float, seed: int):
        self.stereotyped_share, self.seed = stereotyped_share, seed
        with open(INSTRUMENTS_CSV, newline="") as handle:
            self.nouns = {row["noun"].lower(): row["instrument"] for row in csv.DictReader(handle)}
        self.stereotypes = {
            doc["instrument"]: doc["stereotype"] for doc in build_docs(Design(subset="mini"))
        }

    def answer(self, prompt: str) -> str:
        scenario = re.search(r"Scenario: (.*)\n", prompt).group(1).lower()
        instrument = next((name for noun, name in self.nouns.items() if noun in scenario), "")
        rng = np.random.default_rng(
            [self.seed, int.from_bytes(hashlib.sha256(scenario.encode()).digest()[:8], "little")]
        )
        if rng.random() < self.stereotyped_share:
            values = STEREOTYPED[self.stereotypes.get(instrument, "none")]
        else:
            values = (MALE_ANSWER, FEMALE_ANSWER, NEUTRAL)[rng.integers(3)]
        labels = ["very low", "low", "medium", "high", "very high"]
        return json.dumps(
            {
                "reason": "planted",
                "man": labels[values[0] - 1],
                "woman": labels[values[1] - 1],
                "non-binary": labels[values[2] - 1],
            }
        )


def expected_mean_abs_change(stereotypes: dict[str, str]) -> float:
    """What the planted shift does to mean ABS in expectation: BASE's answers have ABS 0 in
    expectation; a stereotyped answer's ABS is 0.3 (male: (5 - 2) / 10, female: (5 - 2) / 10)."""
    categorised = [c for c in stereotypes.values() if c != "none"]
    per_answer = {
        "male": (MALE_ANSWER[0] - MALE_ANSWER[1]) / sum(MALE_ANSWER),
        "female": (FEMALE_ANSWER[1] - FEMALE_ANSWER[0]) / sum(FEMALE_ANSWER),
    }
    return SHIFT_SHARE * float(np.mean([per_answer[c] for c in categorised]))


@pytest.mark.e2e
def test_two_planted_models_through_lm_eval_a_known_shift_is_detected(tmp_path):
    outputs = {}
    for name, share, seed in (
        ("base", 0.0, 11),
        ("candidate", SHIFT_SHARE, 12),
        ("rerun", 0.0, 13),
    ):
        model = PlantedChat(share, seed)
        server = serve_chat(lambda body, model=model: model.answer(body["messages"][-1]["content"]))
        try:
            outputs[name] = tmp_path / name
            run_lm_eval(
                "local-chat-completions",
                f"model=planted,base_url=http://127.0.0.1:{server.server_address[1]}/v1/chat/completions,"
                "tokenizer_backend=none,max_retries=1,num_concurrent=1",
                "symphony_bias_text_mini",
                outputs[name],
            )
        finally:
            server.shutdown()
    status, body, markdown = compare(
        outputs["base"],
        outputs["candidate"],
        "--fail-on",
        "symphony_bias_text_mini:mean_abs:+0.02",
        plots=True,
    )
    assert status == 1, body["gate"]
    plots = re.findall(
        r"\]\((compare_plots/[^)]+)\)", markdown
    )  # the forest plot of changes, PNG + SVG
    assert len(plots) == 2 and all((tmp_path / plot).stat().st_size > 0 for plot in plots)
    change = body["tasks"]["symphony_bias_text_mini"]["metrics"]["mean_abs"]
    stereotypes = {
        s["doc"]["instrument"]: s["doc"]["stereotype"]
        for s in read_samples(outputs["base"], "symphony_bias_text_mini")
        if s["doc"]["instrument"]
    }
    planted = expected_mean_abs_change(stereotypes)
    assert change["change"] > 0 and change["ci"][0] <= planted <= change["ci"][1], (change, planted)
    assert change["p_value"] < 0.05 and body["gate"]["regressions"][0]["metric"] == "mean_abs"
    assert body["mismatches"] == []
    samples_file = next(outputs["base"].rglob("samples_symphony_bias_text_mini_*.jsonl"))
    lines = [line.strip() for line in samples_file.read_text().splitlines() if line.strip()]
    assert all(
        fast_read(line) for line in lines
    )  # lm-eval's layout takes the fast path (the speed claim)
    (facts,) = body["provenance"]["base"].values()
    assert facts["tasks"]["symphony_bias_text_mini"]["version"] is not None
    print(
        f"planted mean ABS change {planted:.4f}: measured {change['change']:.4f} "
        f"(95% CI {change['ci'][0]:.4f} to {change['ci'][1]:.4f}, p={change['p_value']:.2g})"
    )
    # the gate's power: a rerun of the base model, gated below and above the change's MDE
    _, body, _ = compare(outputs["base"], outputs["rerun"])
    mde = body["tasks"]["symphony_bias_text_mini"]["metrics"]["mean_abs"]["mde"]
    for tolerance, expected in ((mde / 2, 3), (mde * 2, 0)):
        rule = f"symphony_bias_text_mini:mean_abs:+{tolerance:.6f}"
        status, body, _ = compare(
            outputs["base"], outputs["rerun"], "--fail-on", rule, "--require-power"
        )
        assert status == expected, (rule, body["gate"])
    print(f"rerun: mean ABS MDE {mde:.4f}; --require-power exits 3 below it, 0 above")


def test_runs_on_stimuli_of_another_origin_are_refused_unless_allowed(mini_docs, tmp_path):
    records = likert_records(mini_docs, 0.0, 1)
    random_notes = [{**r, "stimulus_origin": "synth-random"} for r in records]
    phrases = [{**r, "stimulus_origin": "synth-phrase"} for r in records]
    base = write_run(tmp_path / "random", {"t": random_notes})
    candidate = write_run(tmp_path / "phrase", {"t": phrases})
    status, body, _ = compare(base, candidate)
    assert status == 2 and not body["compared"]
    assert body["mismatches"][0] == (
        "t: stimulus_origin is 'synth-random' in BASE, 'synth-phrase' in CANDIDATE"
    )


def temporal_runs(rng, root: Path, clips: int) -> tuple[Path, Path]:
    """Two runs of a time-interface task (three ranges), one item per clip, the same gold: the
    base sends half its answers to the first range, the candidate answers at random."""
    ranges = ["0-10 seconds", "10-20 seconds", "20-30 seconds"]
    gold = rng.integers(0, 3, clips)
    runs = []
    for name, lean in (("base", 0.5), ("candidate", 0.0)):
        records = [
            choice_record(
                "time",
                int(g),
                0 if rng.random() < lean else int(rng.integers(0, 3)),
                ranges,
                "",
                f"set{k}",
            )
            for k, g in enumerate(gold)
        ]
        runs.append(write_run(root / f"{name}_{clips}", {"temporal": records}))
    return runs[0], runs[1]


def test_a_three_option_bias_below_its_clip_floor_has_no_interval_and_cannot_be_gated(tmp_path):
    """time_bias over 30 clips (fewer than metrics.grounding.MIN_CLUSTERS[3]): the report says
    why it gives no interval or test, the leaderboard shows no interval, compare gives the change
    without one and notes it, and a `--fail-on time_bias` rule cannot decide (exit 2). With 60
    clips every one of them is there."""
    rng = np.random.default_rng(12)
    few, few_candidate = temporal_runs(rng, tmp_path, 30)
    entry = next(iter(build_report(few).entries.values()))
    bias = entry.body["response_bias"]["time_bias"]
    assert bias["valid"] is False and bias["min_clips"] == MIN_CLUSTERS[3]
    assert bias["ci"] == [None, None] and bias["p_value"] is None
    assert "no interval or test: they do not hold below 50 clips" in "\n".join(render(entry))
    row = next(r for r in build_leaderboard([few])["rows"])
    assert row["metrics"]["time_bias"]["ci"] == [None, None]
    status, body, markdown = compare(few, few_candidate, "--fail-on", "time_bias:+0.0")
    change = body["tasks"]["temporal"]["metrics"]["time_bias"]
    assert change["change"] is not None and change["ci"] == [None, None]
    assert change["p_value"] is None
    assert "response-bias changes without an interval: temporal time_bias" in markdown
    assert status == 2 and body["gate"]["status"] == "could_not_compare"

    many, many_candidate = temporal_runs(rng, tmp_path, 60)
    bias = next(iter(build_report(many).entries.values())).body["response_bias"]["time_bias"]
    assert bias["valid"] is True and bias["ci"][0] > 0 and bias["p_value"] < 0.05
    status, body, _ = compare(many, many_candidate, "--fail-on", "time_bias:+0.0")
    assert body["tasks"]["temporal"]["metrics"]["time_bias"]["ci"][0] is not None
    assert status in (0, 1) and body["gate"]["status"] in ("pass", "regression")


def test_the_summary_is_rendered_once_for_the_terminal_the_markdown_and_the_page(
    mini_docs, tmp_path, monkeypatch, capsys
):
    from symphony_bench.plugin.runs import compare_output

    renders = []
    render = compare_output.render_markdown
    monkeypatch.setattr(
        compare_output, "render_markdown", lambda *a: renders.append(a) or render(*a)
    )
    records = likert_records(mini_docs, 0.3, 1)
    base, candidate = (write_run(tmp_path / n, {"t": records}) for n in ("a", "b"))
    page = tmp_path / "compare.html"
    _, _, markdown = compare(base, candidate, "--html", str(page))
    assert len(renders) == 1
    assert markdown.startswith(capsys.readouterr().out.rstrip("\n"))
    assert page.is_file()
