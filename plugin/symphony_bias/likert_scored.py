"""lm-eval glue for `symphony_bias_likert_scored`: the paper's Likert question, read from
log-likelihoods instead of a generated JSON answer, so that every model that scores continuations
answers it (a small model that writes no JSON included).

The docs are the text Likert task's (same scenarios, gender orders and doc ids), with the answer
format that gives no reason (`symphony_bias_text_noreason`'s prompt). Each doc gets one context per
gender: the prompt, then the answer object opened at that gender's key alone,

    {prompt}
    {"woman": "

(under `--apply_chat_template`, the prompt is the user turn and the opened object starts the
assistant turn), and the five labels as continuations: `very low`, `low`, `medium`, `high`,
`very high`. No label is a prefix of another, so their probabilities are those of five disjoint
answers; their softmax is P(label | gender). The doc's score for a gender is the expected Likert value
sum_k k P(k), which GAS and ABS read as they read a generated rating; the most likely label is
recorded beside it. 3 x 5 loglikelihood requests per doc; lm-eval's `hf` model scores the labels that
share all but their last token (`low`, `medium`, `high`; `very low`, `very high`) in one forward pass,
`symphony-hf` (prefix_sharing.py) all five labels of a gender context in one.
"""

from __future__ import annotations

import itertools

import numpy as np
from lm_eval.api.instance import Instance
from scipy.special import softmax

from symphony_bench.plugin.core.run_facts import READER_VERSION
from symphony_bench.plugin.core.vocabulary import GENDERS
from symphony_bench.plugin.symphony_bias.lm_eval_task import SymphonyTask
from symphony_bench.plugin.symphony_bias.parser import LIKERT_LABELS
from symphony_bench.plugin.symphony_bias.prompts import ANSWER_KEY
from symphony_bench.plugin.symphony_bias.readers import version_of
from symphony_bench.plugin.symphony_bias.records import (
    LIKERT_SCORED,
    TEXT_LIKERT_METRICS,
    score_record,
)

LABELS = tuple(LIKERT_LABELS)  # "very low" .. "very high", Likert values 1..5 in this order
LIKERT_VALUES = np.array([LIKERT_LABELS[label] for label in LABELS], dtype=float)


def answer_prefix(gender: str) -> str:
    """The answer object opened at one gender's key: what the model continues with a label."""
    return '{"' + ANSWER_KEY[gender] + '": "'


class LikertScoredTask(SymphonyTask):
    """A task whose doc has one context per gender (GENDERS order) and the five labels as
    continuations of each; the YAML sets everything else."""

    def fewshot_context(self, doc, num_fewshot, **kwargs) -> list[str]:
        return [
            super(LikertScoredTask, self).fewshot_context(
                doc, num_fewshot, **{**kwargs, "gen_prefix": answer_prefix(gender)}
            )
            for gender in GENDERS
        ]

    def construct_requests(self, doc: dict, ctx: list[str], **kwargs) -> list[Instance]:
        kwargs.pop("apply_chat_template", None)
        kwargs.pop("chat_template", None)
        return [
            Instance(
                request_type="loglikelihood",
                doc=doc,
                arguments=(context, label),
                idx=k,
                **kwargs,
            )
            for k, (context, label) in enumerate(itertools.product(ctx, LABELS))
        ]


def process_results(doc: dict, results: list) -> dict:
    """The 15 log-likelihoods (gender-major, labels in LABELS order) -> the doc's record: the
    expected Likert value per gender, the most likely label and the label probabilities."""
    loglikelihoods = np.array([ll for ll, _ in results], dtype=float).reshape(len(GENDERS), -1)
    probabilities = softmax(loglikelihoods, axis=1)
    error = "" if np.all(np.isfinite(probabilities)) else "non_finite"
    if error:
        record = score_record(doc, [0.0] * 3, error, kind=LIKERT_SCORED)
        record.update(most_likely=[0] * 3, label_probabilities=[[0.0] * len(LABELS)] * 3)
    else:
        expected = np.clip(probabilities @ LIKERT_VALUES, 1.0, 5.0)  # [1, 5] up to rounding
        record = score_record(doc, expected.tolist(), kind=LIKERT_SCORED)
        record.update(
            most_likely=(probabilities.argmax(axis=1) + 1).tolist(),
            label_probabilities=probabilities.tolist(),
        )
    record[READER_VERSION] = version_of("likert_scored")
    return {metric: record for metric in TEXT_LIKERT_METRICS}
