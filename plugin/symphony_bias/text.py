"""lm-eval glue for the Symphony-Bias text tasks that generate: the Likert tasks and the open-ended
tasks (`symphony_bias_open*`): the dataset (plugin.symphony_bias.docs), the answer filters and
scoring.

Referenced from tasks/lm_eval/symphony_bias/*.yaml by `!function symphony_bench.plugin.symphony_bias.text.<name>`
(a normal import, so the filter below is registered exactly once per process); the aggregations are
in `records`.
"""

from __future__ import annotations

import datasets
from lm_eval.api.filter import Filter
from lm_eval.api.registry import register_filter

from symphony_bench.plugin.core.options import given_options, read_options, refuse_near_misses
from symphony_bench.plugin.symphony_bias.docs import Design, build_docs
from symphony_bench.plugin.symphony_bias.options import OPTION_NAMES, TEXT_OPTIONS, TEXT_SET
from symphony_bench.plugin.symphony_bias.records import (
    NO_REFERENCE_METRICS,
    REFUSAL_METRICS,
    TEXT_LIKERT_METRICS,
    likert_record,
    open_record,
    read_likert,
    read_open,
)
from symphony_bench.plugin.symphony_bias.text_data import text_data

DESIGN_OPTIONS = (
    "prompt_variant",
    "reasoning",
    "subset",
    "mitigation",
)  # set by the variant YAMLs' dataset_kwargs


def load_dataset(**kwargs) -> dict[str, datasets.Dataset]:
    """`custom_dataset` entry point, called with the task's metadata + dataset_kwargs (which also
    carry model arguments and the task version: those are ignored)."""
    return _dataset(Design(**{key: kwargs[key] for key in DESIGN_OPTIONS if key in kwargs}), kwargs)


def load_open_dataset(**kwargs) -> dict[str, datasets.Dataset]:
    """`custom_dataset` of the open-ended tasks."""
    options = {key: kwargs[key] for key in ("prompt_variant", "subset") if key in kwargs}
    return _dataset(Design(protocol="open", **options), kwargs)


def _dataset(design: Design, kwargs: dict) -> dict[str, datasets.Dataset]:
    refuse_near_misses(kwargs, (*OPTION_NAMES, *DESIGN_OPTIONS))
    text_set, facts = text_data(kwargs)
    facts["task_options"] = given_options((*TEXT_OPTIONS, TEXT_SET), kwargs)
    docs = build_docs(design, **read_options(TEXT_OPTIONS, kwargs), text_set=text_set)
    return {"test": datasets.Dataset.from_list([{**doc, **facts} for doc in docs])}


@register_filter("symphony_likert_json")
class LikertJsonFilter(Filter):
    """Each instance's first response -> `read_likert` of it (never raises)."""

    def apply(self, resps, docs):
        return [read_likert(responses[0] if responses else "") for responses in resps]


def process_results(doc: dict, results: list) -> dict:
    record = likert_record(doc, results[0])
    return {metric: record for metric in (*TEXT_LIKERT_METRICS, *REFUSAL_METRICS)}


@register_filter("symphony_person_reference")
class PersonReferenceFilter(Filter):
    """Each instance's first response -> `read_open` of it about its doc's scenario (never raises)."""

    def apply(self, resps, docs):
        return [
            read_open(responses[0] if responses else "", doc.get("scenario"))
            for responses, doc in zip(resps, docs, strict=True)
        ]


OPEN_TEXT_METRICS = (*TEXT_LIKERT_METRICS, *REFUSAL_METRICS, *NO_REFERENCE_METRICS)


def process_open(doc: dict, results: list) -> dict:
    record = open_record(doc, results[0])
    return {metric: record for metric in OPEN_TEXT_METRICS}
