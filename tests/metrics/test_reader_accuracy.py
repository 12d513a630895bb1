"""The reader-accuracy statistics against hand counts and an independent Wilson interval."""

import math

import pytest
from statsmodels.stats.proportion import proportion_confint

from symphony_bench.metrics.reader_accuracy import reader_accuracy, wilson_interval

# Twelve answers counted by hand: 3 score-moving misreads (female -> male, no_reference -> neutral,
# refused -> neutral); male <-> female swaps 1; gendered answers 6, read right 4 (wording 0: 2 of 3,
# wording 1: 2 of 3); refusals 2, read refused 1; scored readings 8.
TRUTHS = [
    "male",
    "male",
    "female",
    "female",
    "female",
    "male",
    "neutral",
    "no_reference",
    "no_reference",
    "refused",
    "refused",
    "empty",
]
READINGS = [
    "male",
    "unreadable",
    "female",
    "male",
    "female",
    "male",
    "neutral",
    "neutral",
    "no_reference",
    "refused",
    "neutral",
    "empty",
]
WORDINGS = [0, 0, 0, 1, 1, 1, 0, 1, 0, 1, 0, 1]


@pytest.fixture(scope="module")
def measured():
    return reader_accuracy(TRUTHS, READINGS, WORDINGS)


def test_misreads_swaps_and_refusals_match_the_hand_count(measured):
    assert measured["n"] == 12
    assert measured["score_moving_misreads"]["count"] == 3
    assert measured["score_moving_misreads"]["rate"] == pytest.approx(3 / 12)
    assert measured["score_moving_misreads_of_scored"]["n"] == 8
    assert measured["misread_kinds"] == {
        "female -> male": 1,
        "no_reference -> neutral": 1,
        "refused -> neutral": 1,
    }
    assert measured["male_female_swaps"] == 1
    assert measured["refusals_read_refused"]["count"] == 1
    assert measured["refusals_read_refused"]["n"] == 2
    assert measured["refusals_read_neutral"] == 1


def test_coverage_per_wording_matches_the_hand_count(measured):
    coverage = measured["coverage"]
    assert (coverage["all"]["count"], coverage["all"]["n"]) == (4, 6)
    assert (coverage["0"]["count"], coverage["0"]["n"]) == (2, 3)
    assert (coverage["1"]["count"], coverage["1"]["n"]) == (2, 3)


def test_confusion_matrix_rows_sum_to_the_truth_counts(measured):
    confusion = measured["confusion"]
    assert confusion["truths"] == [
        "male",
        "female",
        "neutral",
        "no_reference",
        "refused",
        "empty",
    ]
    assert confusion["counts"]["female"]["male"] == 1
    assert confusion["counts"]["male"]["unreadable"] == 1
    for truth, row in confusion["counts"].items():
        assert sum(row.values()) == measured["truth_counts"][truth]


@pytest.mark.parametrize(("successes", "n"), [(0, 40), (3, 12), (17, 300), (95, 100), (9, 9)])
def test_wilson_interval_matches_statsmodels(successes, n):
    low, high = proportion_confint(successes, n, alpha=0.05, method="wilson")
    assert wilson_interval(successes, n) == pytest.approx([low, high], abs=1e-12)


def test_wilson_interval_matches_the_formula():
    successes, n, z = 3, 12, 1.959963984540054
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    assert wilson_interval(successes, n) == pytest.approx([centre - half, centre + half])


def test_no_answers_give_no_interval():
    assert all(math.isnan(x) for x in wilson_interval(0, 0))


def test_an_unknown_truth_or_unequal_lengths_are_refused():
    with pytest.raises(ValueError, match="unknown truth"):
        reader_accuracy(["boy"], ["male"])
    with pytest.raises(ValueError, match="same length"):
        reader_accuracy(["male"], ["male", "female"])
