"""Scores of the instrument-grounding tasks (the answer readers are tested in test_answers.py)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from sklearn.metrics import accuracy_score, precision_recall_fscore_support

from symphony_bench.metrics.grounding import INVALID, accuracy, response_bias, set_scores
from symphony_bench.plugin.core.sections import ReportEntry
from symphony_bench.plugin.grounding.records import (
    CHOICE,
    choice_arrays,
    choice_record,
    harness_scores,
    record_problem,
    record_scores,
    records_valid,
    set_record,
)
from symphony_bench.plugin.grounding.report import (
    confusion_by_group,
    grounding_report,
    leaderboard,
    render,
)


def test_accuracy_counts_invalid_as_wrong():
    rate, stderr = accuracy([0, 1, 1, 0], [0, 1, INVALID, 1])
    assert rate == 0.5 and stderr == pytest.approx(np.std([1, 1, 0, 0], ddof=1) / 2)
    with pytest.raises(ValueError, match="differ in length"):
        accuracy([0, 1], [0])


def test_always_first_has_full_bias_and_balanced_answers_none():
    assert response_bias([0] * 50 + [INVALID] * 5, 2) == (1.0, 0.0)
    bias, _ = response_bias([0, 1, 2] * 40, 3)
    assert bias == pytest.approx(0.0)
    with pytest.raises(ValueError, match="option indices"):
        response_bias([0, 3], 3)


def test_bias_stderr_matches_a_naive_resampling_loop():
    rng = np.random.default_rng(5)
    predicted = rng.choice(3, size=300, p=[0.5, 0.3, 0.2])
    _, stderr = response_bias(predicted, 3)
    naive = []
    for _ in range(2000):
        resample = rng.choice(predicted, size=predicted.size)
        rates = np.bincount(resample, minlength=3) / resample.size
        naive.append(rates.max() - rates.min())
    assert stderr == pytest.approx(np.std(naive, ddof=1), rel=0.1)


def test_set_scores_match_sklearn_samples_average():
    rng = np.random.default_rng(3)
    gold = np.zeros((200, 4), dtype=bool)
    for row in gold:
        row[rng.choice(4, size=2, replace=False)] = True
    predicted = rng.random((200, 4)) < 0.5
    valid = rng.random(200) > 0.1
    ours = set_scores(gold, predicted, valid)
    scored_predictions = predicted & valid[:, None]
    p, r, f, _ = precision_recall_fscore_support(
        gold, scored_predictions, average="samples", zero_division=0
    )
    assert ours["precision"][0] == pytest.approx(p)
    assert ours["recall"][0] == pytest.approx(r)
    assert ours["f1"][0] == pytest.approx(f)
    assert ours["exact_set_accuracy"][0] == pytest.approx(
        accuracy_score(gold[valid], predicted[valid]) * valid.mean()
    )
    with pytest.raises(ValueError, match="at least one gold"):
        set_scores(np.zeros((1, 4)), np.zeros((1, 4)), [True])


def test_clustered_stderr_is_the_binomial_one_with_single_item_clusters_and_the_cluster_mean_sem_otherwise():
    from scipy import stats

    from symphony_bench.metrics import binomial_rate
    from symphony_bench.metrics.grounding import clustered_mean

    rng = np.random.default_rng(0)
    flags = rng.random(300) < 0.6
    assert clustered_mean(flags, np.arange(300)) == pytest.approx(binomial_rate(flags), rel=1e-12)
    clips = np.repeat(np.arange(100), 3)  # e.g. three items built from each clip
    per_clip = flags.reshape(100, 3).mean(axis=1)
    assert clustered_mean(flags, clips) == pytest.approx(
        (per_clip.mean(), stats.sem(per_clip)), rel=1e-12
    )


def test_clustered_bias_stderr_matches_a_naive_loop_over_clips():
    rng = np.random.default_rng(1)
    clips = np.repeat(np.arange(80), 2)  # a yes and a no question per clip
    answers = np.where(
        rng.random(160) < 0.1, INVALID, (rng.random(160) < 0.35 + 0.3 * (clips % 2)).astype(int)
    )
    value, stderr = response_bias(answers, 2, clips)
    loop = np.random.default_rng(99)
    spreads = []
    for _ in range(3000):
        drawn = np.concatenate([np.flatnonzero(clips == c) for c in loop.integers(0, 80, size=80)])
        chosen = answers[drawn][answers[drawn] != INVALID]
        rates = np.bincount(chosen, minlength=2) / chosen.size
        spreads.append(rates.max() - rates.min())
    assert value == pytest.approx(
        abs(np.mean(answers[answers != INVALID] == 0) - np.mean(answers[answers != INVALID] == 1))
    )
    assert stderr == pytest.approx(np.std(spreads, ddof=1), rel=0.1)  # Monte-Carlo error ~2-3%


# ---- refusals (issue 35, finding 3): a category of their own ---------------------------------------
def _choice_records(chosen: list[int], refused: list[bool], gold: list[int], options=("Yes", "No")):
    return [
        choice_record("yes_no", g, c, list(options), "", f"clip{k // 2}", r)
        for k, (g, c, r) in enumerate(zip(gold, chosen, refused, strict=True))
    ]


def test_a_refused_answer_is_wrong_in_accuracy_out_of_the_rates_and_not_invalid():
    from symphony_bench.metrics.grounding import REFUSED, choice_scores

    rng = np.random.default_rng(7)
    gold = rng.integers(0, 2, 200)
    chosen = np.where(rng.random(200) < 0.7, gold, 1 - gold)
    kind = rng.choice(3, size=200, p=[0.7, 0.1, 0.2])  # answered, invalid, refused
    codes = np.where(kind == 1, INVALID, np.where(kind == 2, REFUSED, chosen))
    scores = choice_scores(gold, codes, 2)
    assert scores["accuracy"][0] == pytest.approx(np.mean((kind == 0) & (chosen == gold)))
    assert scores["invalid_rate"][0] == pytest.approx(np.mean(kind == 1))
    assert scores["refusal_rate"][0] == pytest.approx(np.mean(kind == 2))
    answered = chosen[kind == 0]
    assert scores["option_0_rate"][0] == pytest.approx(np.mean(answered == 0))
    assert scores["bias"][0] == pytest.approx(abs(np.mean(answered == 0) - np.mean(answered == 1)))
    # a refusal weighs on every score exactly as an unreadable answer, but the invalid rate
    as_invalid = choice_scores(gold, np.where(kind == 0, chosen, INVALID), 2)
    for name, value in scores.items():
        if name not in ("invalid_rate", "refusal_rate"):
            assert value == pytest.approx(as_invalid[name]), name
    assert as_invalid["invalid_rate"][0] == pytest.approx(np.mean(kind > 0))
    with pytest.raises(ValueError, match="option indices"):
        response_bias([0, -3], 2)


def test_set_scores_count_refusals_apart_from_invalid_answers():
    gold = np.array([[True, False], [True, True], [False, True], [True, False]])
    predicted = np.array([[True, False], [False, False], [False, False], [True, True]])
    valid, refused = np.array([True, False, False, True]), np.array([False, True, False, False])
    scores = set_scores(gold, predicted, valid, refused=refused)
    assert scores["invalid_rate"][0] == 0.25 and scores["refusal_rate"][0] == 0.25
    assert scores["f1"] == set_scores(gold, predicted, valid)["f1"]
    assert set_scores(gold, predicted, valid)["refusal_rate"][0] == 0.0
    with pytest.raises(ValueError, match="subset"):
        set_scores(gold, predicted, valid, refused=valid)


def test_records_carry_refusals_and_old_records_without_the_field_still_read():
    records = _choice_records([0, -1, -1, 1], [False, False, True, False], [0, 0, 1, 1])
    gold, chosen, n_options = choice_arrays(records)
    assert chosen.tolist() == [0, -1, -2, 1] and n_options == 2
    old = [{k: v for k, v in r.items() if k != "refused"} for r in records]
    assert choice_arrays(old)[1].tolist() == [0, -1, -1, 1]
    assert record_problem(old[0]) is None and records_valid(old) and records_valid(records)
    assert harness_scores(records)["invalid_rate"][0] == 0.25
    assert record_scores(records)["refusal_rate"][0] == 0.25
    assert set_record([True], None, "c", True)["refused"] is True


@pytest.mark.parametrize(
    ("record", "message"),
    [
        (choice_record("yes_no", 0, 0, ["Yes", "No"], "", "c", True), "'refused' is true but"),
        (
            {**choice_record("yes_no", 0, -1, ["Yes", "No"], "", "c"), "refused": 1},
            "'refused' is 1",
        ),
        (set_record([True, False], [True, False], "c", True), "'refused' is true but"),
    ],
)
def test_a_refusal_beside_an_answer_is_an_unusable_record(record, message):
    assert message in record_problem(record)
    assert not records_valid([choice_record("yes_no", 0, 0, ["Yes", "No"], "", "c"), record])


def test_the_report_entry_gives_refusals_their_own_count_and_rate():
    records = _choice_records(
        [0, 1, -1, -1, -1, 0, 1, 0], [False] * 3 + [True, True] + [False] * 3, [0, 1, 0, 1] * 2
    )
    body = grounding_report(records, CHOICE)
    summary = body["summary"]
    assert (summary["n_docs"], summary["n_invalid"], summary["n_refused"]) == (8, 1, 2)
    assert summary["refusal_rate"] == 0.25 and summary["invalid_rate"] == 0.125
    assert summary["accuracy"] == pytest.approx(2 / 8)  # refused and invalid answers are wrong
    assert sum(body["prediction_rates"].values()) == pytest.approx(1.0)  # answered docs only
    entry = ReportEntry("grounding_binary", "grounding_binary", CHOICE, None, "m", Path("s"), body)
    text = "\n".join(render(entry))
    assert "refusal_rate: 0.250" in text and "2 refused" in text and "1 invalid" in text
    assert "n_refused:" not in text
    columns = leaderboard(entry)
    assert "refusal_rate" in columns.metrics and "n_refused" not in columns.metrics
    grouped = [{**r, "group": "plucked", "options": ["guitar", "banjo"]} for r in records]
    confusion = confusion_by_group(grouped)["plucked"]
    assert confusion["banjo"]["(refused)"] == confusion["guitar"]["(invalid)"] == 0.25


def test_compare_counts_a_set_task_refusal_as_the_report_does():
    from symphony_bench.plugin.grounding.compare import paired_items

    records = [
        set_record([True, False], [True, False], "a"),
        set_record([True, False], None, "b", True),
        set_record([True, False], None, "c"),
        set_record([False, True], [False, True], "d"),
    ]
    flags, _ = paired_items(records)["items"]["invalid_rate"]
    assert flags.mean() == record_scores(records)["invalid_rate"][0] == 0.25
    assert record_scores(records)["refusal_rate"][0] == 0.25


@pytest.mark.parametrize(
    ("interface", "options", "answer", "chosen", "refused"),
    [
        ("yes_no", ["Yes", "No"], "I can't help with that.", -1, True),
        ("yes_no", ["Yes", "No"], "As a text-only model, I cannot listen to audio. No.", -1, True),
        ("yes_no", ["Yes", "No"], "I am unable to detect a piano.", 1, False),
        ("yes_no", ["Yes", "No"], "Maybe.", -1, False),
        ("yes_no", ["Yes", "No"], "<think>I can't help", -1, False),  # unfinished: unreadable
        ("name", ["guitar", "banjo"], "No audio.", -1, True),
        ("letter", ["guitar", "banjo"], "I'm sorry, but I can't assist with that.", -1, True),
        (
            "time",
            ["0-10 seconds", "10-20 seconds", "20-30 seconds"],
            "I cannot process audio",
            -1,
            True,
        ),
        ("set", ["guitar", "banjo"], "No audio.", None, True),
        ("set", ["guitar", "banjo"], "None.", [False, False], False),
    ],
)
def test_process_results_records_a_refusal(interface, options, answer, chosen, refused):
    from symphony_bench.plugin.grounding.tasks import process_results

    gold = [True, False] if interface == "set" else 0
    doc = {"interface": interface, "options": options, "gold": gold, "instrument": "piano"}
    doc |= {"sample_key": "000_1", "group": ""}
    record = next(iter(process_results(doc, [answer]).values()))
    assert (record["chosen"], record["refused"]) == (chosen, refused)
    assert record_problem(record) is None
