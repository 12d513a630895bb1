"""Per-doc records of the Symphony-Bias tasks and the aggregations built on them.

A record is a plain dict (it survives the harness's gathering across ranks and its samples JSONL)
that says what it is in its "kind" field:

    symphony_bias.likert       a Likert answer (text, audio or image task)
    symphony_bias.logprob      gender probabilities from log-likelihoods
        fields: scenario_id, template_id (the unit crossed with instruments), instrument,
                stereotype, error ("" when valid), scores [male, female, non_binary],
                stimulus_id (the clip or image, nested in the instrument; None for text tasks)
    symphony_bias.recognition  instrument, stimulus_id, recognised (bool), named (sorted names)

Every metric of a task holds the same record; each headline metric has a "<name>_stderr" twin
because the harness only shows a stderr that process_results returns after the metric itself.
"""

from __future__ import annotations

import numpy as np

from symphony_bench.metrics import AssociationData, analyse, binomial_rate, build_association_data, prior_adjusted
from symphony_bench.metrics.labels import CATEGORIES
from symphony_bench.plugin.core.reporting import field_problem, is_finite_number, is_integer, is_text
from symphony_bench.plugin.core.run_facts import run_facts

LIKERT = "symphony_bias.likert"
LOGPROB = "symphony_bias.logprob"
RECOGNITION = "symphony_bias.recognition"
KINDS = (LIKERT, LOGPROB, RECOGNITION)

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
# The text tasks also show an instrument-free control doc per scenario: ABS against the model's prior.
TEXT_LIKERT_METRICS = (*LIKERT_METRICS, "mean_abs_prior_adjusted", "mean_abs_prior_adjusted_stderr")
CONTROL_INSTRUMENT = ""  # the instrument field of a control doc


def score_record(doc: dict, scores, error: str = "", kind: str = LIKERT) -> dict:
    return {
        "kind": kind,
        "scenario_id": doc["scenario_id"],
        "template_id": doc.get("template_id", doc["scenario_id"]),
        "instrument": doc["instrument"],
        "stereotype": doc["stereotype"],
        "error": error,
        "scores": list(scores),
        "stimulus_id": doc.get("stimulus_id"),
        **run_facts(doc),
    }


def _is_id(value) -> bool:
    return is_text(value) or is_integer(value)


def _is_score_triple(value) -> bool:
    return isinstance(value, list) and len(value) == 3 and all(is_finite_number(v) for v in value)


SCORE_RECORD_FIELDS = {
    "scenario_id": (_is_id, "a text or integer id"),
    "instrument": (is_text, "a text"),
    "stereotype": (lambda value: value in CATEGORIES, f"one of {list(CATEGORIES)}"),
    "error": (is_text, 'a text ("" when valid)'),
    "scores": (_is_score_triple, "three finite numbers"),
}
# what the scores of a valid record must be, by kind
VALID_SCORES = {
    LIKERT: (lambda scores: all(v in (1, 2, 3, 4, 5) for v in scores), "Likert values 1..5"),
    LOGPROB: (lambda scores: all(0 <= v <= 1 for v in scores), "probabilities in [0, 1]"),
}
RECOGNITION_FIELDS = {
    "instrument": (is_text, "a text"),
    "stimulus_id": (is_text, "a text"),
    "recognised": (lambda value: isinstance(value, bool), "true or false"),
    "named": (lambda value: isinstance(value, list) and all(is_text(v) for v in value), "a list of names"),
}


def record_problem(record: dict) -> str | None:
    """What makes a record unusable, or None (see the fields in the module docstring)."""
    if record["kind"] == RECOGNITION:
        return field_problem(record, RECOGNITION_FIELDS)
    problem = field_problem(record, SCORE_RECORD_FIELDS)
    if problem is None and record.get("stimulus_id") is not None and not _is_id(record["stimulus_id"]):
        problem = f"'stimulus_id' is {record['stimulus_id']!r}, expected a text id or null"
    check, expected = VALID_SCORES[record["kind"]]
    if problem is None and not record["error"] and not check(record["scores"]):
        problem = f"'scores' of a valid record are {record['scores']}, expected {expected}"
    return problem


def records_to_data(records) -> AssociationData:
    scores = np.array([record["scores"] for record in records], dtype=float).reshape(-1, 3)
    return build_association_data(
        [record["scenario_id"] for record in records],
        [record["instrument"] for record in records],
        [record["stereotype"] for record in records],
        scores,
        np.array([not record["error"] for record in records], dtype=bool),
        template_ids=[record.get("template_id", record["scenario_id"]) for record in records],
        stimulus_ids=[record.get("stimulus_id") or record["instrument"] for record in records],
        control=[record["instrument"] == CONTROL_INSTRUMENT for record in records],
    )


def headline(records, key: str) -> float:
    return analyse(records_to_data(records)).headline[key]


# ---- the Likert tasks' aggregations (text, audio and image tasks alike) -------------------------
def consistency_rate(records) -> float:
    return headline(records, "consistency_rate")


def consistency_rate_stderr(records) -> float:
    return headline(records, "consistency_rate_stderr")


def mean_abs(records) -> float:
    return headline(records, "mean_abs")


def mean_abs_stderr(records) -> float:
    return headline(records, "mean_abs_stderr")


def non_binary_gas(records) -> float:
    return headline(records, "non_binary_gas")


def non_binary_gas_stderr(records) -> float:
    return headline(records, "non_binary_gas_stderr")


def invalid_rate(records) -> float:
    return binomial_rate([bool(record["error"]) for record in instrument_records(records)])[0]


def invalid_rate_stderr(records) -> float:
    return binomial_rate([bool(record["error"]) for record in instrument_records(records)])[1]


def instrument_records(records) -> list:
    """The records of the instrument docs (the instrument-free control docs left out)."""
    return [record for record in records if record["instrument"] != CONTROL_INSTRUMENT]


def prior_adjusted_headline(records, key: str) -> float:
    return analyse(prior_adjusted(records_to_data(records))).headline[key]


def mean_abs_prior_adjusted(records) -> float:
    return prior_adjusted_headline(records, "mean_abs")


def mean_abs_prior_adjusted_stderr(records) -> float:
    return prior_adjusted_headline(records, "mean_abs_stderr")
