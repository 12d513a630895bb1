"""lm-eval glue for the Symphony-Bias text Likert tasks: docs, prompts, filter and scoring.

Referenced from tasks/lm_eval/symphony_bias/*.yaml by `!function symphony_bench.plugin.symphony_bias.text.<name>`
(a normal import, so the filter below is registered exactly once per process); the aggregations are
in `records`.
"""

from __future__ import annotations

import datasets
from lm_eval.api.filter import Filter
from lm_eval.api.registry import register_filter

from symphony_bench.plugin.core.options import read_options
from symphony_bench.plugin.core.text_set import TextSet
from symphony_bench.plugin.core.vocabulary import GENDERS, load_instruments
from symphony_bench.plugin.symphony_bias.options import DEFAULT_SEED, TEXT_OPTIONS
from symphony_bench.plugin.symphony_bias.parser import parse_likert_response
from symphony_bench.plugin.symphony_bias.prompts import WORDINGS, build_prompt
from symphony_bench.plugin.symphony_bias.records import TEXT_LIKERT_METRICS, score_record
from symphony_bench.plugin.symphony_bias.scenarios import (
    CONTROL,
    CONTROL_STEREOTYPE,
    DEFAULT_STEREOTYPE_TABLE,
    balanced_orders,
    load_stereotypes,
    scenario_doc,
    scenario_set_sha256,
    select_scenarios,
)
from symphony_bench.plugin.symphony_bias.text_data import text_data

TASK_OPTIONS = ("prompt_variant", "reasoning", "subset")  # set by the variant YAMLs' dataset_kwargs


def build_docs(
    prompt_variant: int = 0,
    reasoning: bool = True,
    subset: str = "full",
    scenarios: str | None = None,
    stereotypes: str = DEFAULT_STEREOTYPE_TABLE,
    symphony_seed: int = DEFAULT_SEED,
    text_set: TextSet | None = None,
) -> list[dict]:
    """Per scenario: one doc per instrument, then the instrument-free control doc ("... an instrument
    ...") that measures the model's own gender prior; every random choice derives from `symphony_seed`."""
    if prompt_variant not in range(len(WORDINGS)):
        raise ValueError(f"prompt_variant must be in 0..{len(WORDINGS) - 1}, got {prompt_variant}")
    table = load_stereotypes(stereotypes, text_set)
    instruments = load_instruments()
    selected = select_scenarios(subset, scenarios, symphony_seed, text_set)
    ids = [scenario.scenario_id for scenario in selected]
    stereotypes = {
        **{instrument.name: table[instrument.name] for instrument in instruments},
        CONTROL.name: CONTROL_STEREOTYPE,
    }
    shown = [*instruments, CONTROL]
    orders = {
        instrument.name: balanced_orders(symphony_seed, instrument.name, ids)
        for instrument in shown
    }
    scenario_set = scenario_set_sha256(selected)
    docs = []
    for scenario in selected:
        for instrument in shown:
            order = orders[instrument.name][scenario.scenario_id]
            doc = scenario_doc(
                scenario,
                instrument,
                stereotypes[instrument.name],
                symphony_seed,
                order,
                scenario_set,
            )
            doc.update(
                prompt_variant=prompt_variant,
                reasoning=reasoning,
                prompt=build_prompt(
                    doc["scenario"], doc["gender_order"], prompt_variant, reasoning
                ),
            )
            docs.append(doc)
    return docs


def load_dataset(**kwargs) -> dict[str, datasets.Dataset]:
    """`custom_dataset` entry point, called with the task's metadata + dataset_kwargs (which also
    carry model arguments and the task version: those are ignored)."""
    task_options = {key: kwargs[key] for key in TASK_OPTIONS if key in kwargs}
    text_set, facts = text_data(kwargs)
    docs = build_docs(**task_options, **read_options(TEXT_OPTIONS, kwargs), text_set=text_set)
    return {"test": datasets.Dataset.from_list([{**doc, **facts} for doc in docs])}


@register_filter("symphony_likert_json")
class LikertJsonFilter(Filter):
    """Each instance's first response -> the parse dict of `parse_likert_response` (never raises)."""

    def apply(self, resps, docs):
        return [parse_likert_response(responses[0] if responses else "") for responses in resps]


def process_results(doc: dict, results: list) -> dict:
    parsed = results[0]
    record = score_record(doc, [parsed[g] or 0 for g in GENDERS], parsed["error"] or "")
    return {metric: record for metric in TEXT_LIKERT_METRICS}
