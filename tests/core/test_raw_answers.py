"""The raw answer of a samples line as each harness logs it, and the lines that cannot be re-read:
one classified error (CannotReread), never a crash."""

from __future__ import annotations

import math

import pytest

from symphony_bench.plugin.core.raw_answers import (
    generated_text,
    logged_doc,
    loglikelihood_results,
)
from symphony_bench.plugin.core.sections import CannotReread

RECORD = {"kind": "symphony_bias.likert", "instrument": "harp"}


def test_lm_eval_lines_give_the_first_response_and_the_doc():
    doc = {"instrument": "harp", "prompt": "..."}
    sample = {"doc": doc, "resps": [["the answer", "a second sample"]], "filtered_resps": ["x"]}
    assert generated_text(sample) == "the answer" and logged_doc(sample, RECORD) is doc
    assert generated_text({"doc": doc, "resps": [[]]}) == ""


def test_lmms_eval_lines_give_what_process_results_was_given_and_the_record_as_doc():
    # lmms-eval keeps "resps" only where its reasoning-tag stripping changed the text
    sample = {"filtered_resps": "stripped", "resps": ["<think>x</think>stripped"]}
    assert generated_text(sample) == "stripped" and logged_doc(sample, RECORD) is RECORD
    assert generated_text({"filtered_resps": [["nested"]]}) == "nested"


def test_stored_log_likelihoods_in_request_order_with_the_harness_texts_for_infinities():
    sample = {"doc": {}, "resps": [[[-1.5, True]], [["-inf", False]]]}
    (first, greedy), (second, _) = loglikelihood_results(sample)
    assert (first, greedy) == (-1.5, True) and math.isinf(second) and second < 0


@pytest.mark.parametrize(
    "sample",
    [
        {"doc": {}},
        {"doc": {}, "resps": "text"},
        {},
        {"filtered_resps": {"not": "text"}},
    ],
)
def test_a_line_without_a_text_answer_cannot_be_re_read(sample):
    with pytest.raises(CannotReread):
        generated_text(sample)


@pytest.mark.parametrize(
    "resps", [None, [], [["no pair"]], [[["not a number", True]]], [[[1.0, True, 3]]]]
)
def test_a_line_without_log_likelihoods_cannot_be_re_read(resps):
    with pytest.raises(CannotReread):
        loglikelihood_results({"doc": {}, "resps": resps})
