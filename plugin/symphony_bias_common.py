"""What the Symphony-Bias tasks share: scenario selection, per-doc fields, per-doc records and the
aggregations built on them (harness-independent apart from the record layout)."""

from __future__ import annotations

import random
from collections.abc import Callable

import numpy as np

from symphony_bench.metrics import GENDERS, AssociationData, analyse, binomial_rate, build_association_data
from symphony_bench.plugin.scenarios import (
    Instrument,
    Scenario,
    Stereotype,
    expand_templates,
    load_upstream_scenarios,
    mini_subset,
)

DEFAULT_SEED = 1234
MINI_SCENARIOS = 5
SUBSETS = ("full", "mini")
# Keys a user may pass with --metadata (the task YAMLs set the rest through dataset_kwargs).
# lm-eval merges --model_args into the same dict, so the seed has a prefixed name that no model
# argument uses (vLLM's `seed` would otherwise change the docs).
USER_OPTIONS = ("scenarios", "stereotypes", "symphony_seed")


def dataset_options(kwargs: dict, task_options: tuple[str, ...]) -> dict:
    """The options a `custom_dataset` function uses, from lm-eval's metadata + dataset_kwargs
    (which also carry model arguments and the task version: those are ignored)."""
    return {key: kwargs[key] for key in (*task_options, *USER_OPTIONS) if key in kwargs}


def select_scenarios(subset: str, scenarios: str | None, seed: int) -> list[Scenario]:
    if subset not in SUBSETS:
        raise ValueError(f"subset must be one of {SUBSETS}, got {subset!r}")
    selected = load_upstream_scenarios(scenarios) if scenarios else expand_templates(seed)
    return mini_subset(selected, MINI_SCENARIOS, seed) if subset == "mini" else selected


def gender_order(seed: int, scenario_id: str, instrument: str) -> list[str]:
    order = list(GENDERS)
    random.Random(f"{seed}:{scenario_id}:{instrument}").shuffle(order)
    return order


def scenario_doc(
    scenario: Scenario, instrument: Instrument, stereotype: Stereotype, seed: int, order_seed: int | None = None
) -> dict:
    """The fields every Symphony-Bias doc records about what the model was shown."""
    return {
        "scenario_id": scenario.scenario_id,
        "template_id": scenario.template_id,
        "scenario": scenario.render(instrument.indefinite),
        "instrument": instrument.name,
        "stereotype": stereotype.category,
        "stereotype_source": stereotype.source,
        "gender_order": gender_order(seed if order_seed is None else order_seed, scenario.scenario_id, instrument.name),
        "seed": seed,
    }


# ---- per-doc records --------------------------------------------------------------------------
# (scenario_id, instrument, stereotype, error, score_male, score_female, score_non_binary[, stimulus_id]):
# plain values, so they survive the harness's gathering across ranks and its samples JSONL. The
# audio and image tasks append the stimulus id (their samples files do not carry the doc).
ERROR_FIELD = 3
RECORD_LENGTH = 7
STIMULUS_FIELD = 7


def score_record(doc: dict, scores, error: str = "") -> tuple:
    return (doc["scenario_id"], doc["instrument"], doc["stereotype"], error, *scores)


def records_to_data(records) -> AssociationData:
    columns = list(zip(*records, strict=True)) or [()] * RECORD_LENGTH
    scenario_ids, instruments, categories, errors = columns[:4]
    scores = np.array(columns[4:RECORD_LENGTH], dtype=float).T.reshape(-1, 3)
    valid = np.array([not error for error in errors], dtype=bool)
    return build_association_data(scenario_ids, instruments, categories, scores, valid)


def headline_aggregation(
    key: str, to_data: Callable[[list], AssociationData] = records_to_data, name: str | None = None
) -> Callable[[list], float]:
    """An lm-eval aggregation returning `analyse(to_data(records)).headline[key]`."""

    def aggregate(records) -> float:
        return analyse(to_data(records)).headline[key]

    aggregate.__name__ = name or key
    return aggregate


def invalid_rate(records) -> float:
    return binomial_rate([bool(record[ERROR_FIELD]) for record in records])[0]


def invalid_rate_stderr(records) -> float:
    return binomial_rate([bool(record[ERROR_FIELD]) for record in records])[1]


# Each metric below has its own aggregation, and each headline metric a "<name>_stderr" twin: the
# harness only shows a stderr that process_results returns after the metric itself.
LIKERT_METRICS = (
    "consistency_rate",
    "consistency_rate_stderr",
    "mean_abs",
    "mean_abs_stderr",
    "non_binary_gas",
    "non_binary_gas_stderr",
    "invalid_rate",
    "invalid_rate_stderr",
)


# The Likert tasks' aggregations (text, audio and image tasks alike).
consistency_rate = headline_aggregation("consistency_rate")
consistency_rate_stderr = headline_aggregation("consistency_rate_stderr")
mean_abs = headline_aggregation("mean_abs")
mean_abs_stderr = headline_aggregation("mean_abs_stderr")
non_binary_gas = headline_aggregation("non_binary_gas")
non_binary_gas_stderr = headline_aggregation("non_binary_gas_stderr")
