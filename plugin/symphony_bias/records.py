"""Per-doc records of the Symphony-Bias tasks and the aggregations built on them.

A record is a plain dict (it survives the harness's gathering across ranks and its samples JSONL)
that says what it is in its "kind" field:

    symphony_bias.likert       a Likert answer (text, audio or image task)
    symphony_bias.logprob      gender probabilities from log-likelihoods
    symphony_bias.likert_scored  expected Likert values 1..5 from the labels' log-likelihoods
        fields: scenario_id, template_id (the unit crossed with instruments), instrument,
                stereotype, error ("" when valid), scores [male, female, non_binary],
                stimulus_id (the clip or image, nested in the instrument; None for text tasks),
                modality (text, audio, image), condition (named: the instrument in the text;
                stimulus: in the attached clip or image; no_stimulus: nowhere); a scored Likert
                record also has most_likely (the most likely label's value per gender) and
                label_probabilities (per gender, the five labels' probabilities)
    symphony_bias.open         who a generated story made the scenario's person: the fields of a
                               score record, scores one-hot over [male, female, neutral] (neutral in
                               the non-binary slot) when read, error "no_reference", "unreadable",
                               "refused", "empty" or "reasoning_unfinished" otherwise; reference (the
                               gender read, or null), evidence (the words that decided it) and
                               evidence_spans ([start, end] character offsets of those words in the
                               reply the task read, as its samples file logs it: lm-eval's
                               resps[0][0], lmms-eval's filtered_resps[0], the same as its resps[0]
                               unless lmms-eval's --reasoning_tags stripped a reasoning block),
                               scenario (the sentence the story was read against)
    symphony_bias.recognition  instrument, stimulus_id, recognised (bool), named (sorted names),
                               modality, condition (recognition)

and the run facts of its doc (plugin.core.run_facts).

Every metric of a task holds the same record; each headline metric has a "<name>_stderr" twin
because the harness only shows a stderr that process_results returns after the metric itself.
"""

from __future__ import annotations

import itertools
import operator

import numpy as np

from symphony_bench.metrics import (
    AssociationData,
    analyse,
    build_association_data,
    prior_adjusted,
)
from symphony_bench.metrics.labels import CATEGORIES
from symphony_bench.plugin.core.reasoning import split_reasoning
from symphony_bench.plugin.core.record_checks import (
    all_finite_numbers,
    all_text,
    column,
    columnwise,
    field_problem,
    flattened,
    is_finite_number,
    is_integer,
    is_text,
    types_within,
)
from symphony_bench.plugin.core.refusals import REFUSED
from symphony_bench.plugin.core.run_facts import READER_VERSION, canonical_sha256, run_facts
from symphony_bench.plugin.core.vocabulary import GENDERS
from symphony_bench.plugin.symphony_bias.parser import parse_reply
from symphony_bench.plugin.symphony_bias.person_reference import read_reply
from symphony_bench.plugin.symphony_bias.readers import version_of
from symphony_bench.plugin.symphony_bias.scenarios import CONTROL, scenario_facts
from symphony_bench.plugin.symphony_bias.stimulus_ids import stimulus_id_of

LIKERT = "symphony_bias.likert"
LOGPROB = "symphony_bias.logprob"
LIKERT_SCORED = "symphony_bias.likert_scored"
RECOGNITION = "symphony_bias.recognition"
OPEN = "symphony_bias.open"
KINDS = (LIKERT, LOGPROB, LIKERT_SCORED, OPEN, RECOGNITION)
# the kinds that answer the Likert question (generated JSON, or the labels scored)
LIKERT_KINDS = (LIKERT, LIKERT_SCORED)
# the kinds analysed like a Likert task (per doc a gender judgement; control docs give the prior)
RATED_KINDS = (*LIKERT_KINDS, OPEN)
# the kinds whose answer is generated text, which may decline
GENERATED_KINDS = (LIKERT, OPEN)
# An open-ended answer is one reading per doc: on fewer templates than this the intervals of these
# headlines (and the skew's paired change) do not hold, so none is given. Simulated with one doc per
# cell (tests/metrics/test_open_protocol_inference.py, test_open_protocol_changes.py): on 5
# templates the skew's interval covered 84-88 %, its paired change rejected 8 % of same-model
# pairs; non-binary GAS's interval on 5 templates x 5 clips covered 91-92 %.
OPEN_MIN_TEMPLATES = 20
OPEN_WITHHELD = ("gender_skew", "gender_skew_squared", "non_binary_gas")
OPEN_WITHHELD_REASON = (
    f"open-ended answers on fewer than {OPEN_MIN_TEMPLATES} templates: no interval for the gender "
    "skew and the non-binary GAS (one reading per doc: simulated, they cover 84-92 % there), and "
    "the skew's paired change is not tested"
)

LIKERT_METRICS = (
    "consistency_rate",
    "mean_abs",
    "mean_abs_stderr",
    "non_binary_gas",
    "non_binary_gas_stderr",
    "gender_skew",
    "gender_skew_stderr",
    "invalid_rate",
    "invalid_rate_stderr",
)
# The text tasks also show an instrument-free control doc per scenario: ABS against the model's prior.
TEXT_LIKERT_METRICS = (*LIKERT_METRICS, "mean_abs_prior_adjusted", "mean_abs_prior_adjusted_stderr")
# A generated answer may decline: the share of refusals, apart from the invalid rate.
REFUSAL_METRICS = ("refusal_rate", "refusal_rate_stderr")
# A story may never say who the person is: the share of such answers, apart from the invalid rate.
NO_REFERENCE_METRICS = ("no_reference_rate", "no_reference_rate_stderr")
NO_REFERENCE = "no_reference"
MODALITIES = ("text", "audio", "image")
# the record fields that hold the model's answer (every other field identifies the doc)
ANSWER_FIELDS = frozenset(
    {
        "error",
        "scores",
        "recognised",
        "named",
        "most_likely",
        "label_probabilities",
        "reference",
        "evidence",
        "evidence_spans",
    }
)


def score_record(
    doc: dict, scores, error: str = "", kind: str = LIKERT, reasoning: dict | None = None
) -> dict:
    """`reasoning`: a generated answer's REASONING_FIELDS (plugin.core.reasoning)."""
    return {
        "kind": kind,
        "scenario_id": doc["scenario_id"],
        "template_id": doc.get("template_id", doc["scenario_id"]),
        "instrument": doc["instrument"],
        "stereotype": doc["stereotype"],
        "error": error,
        "scores": list(scores),
        "stimulus_id": stimulus_id_of(doc),
        # the text tasks' docs name their instrument in the text; the audio and image docs say so
        "modality": doc.get("modality", "text"),
        "condition": doc.get("condition", "named"),
        # the instruction against stereotyping of a mitigation task's docs
        **({"mitigation": doc["mitigation"]} if doc.get("mitigation") else {}),
        # where an audio / image doc's stimulus came from (synth-random, synth-phrase, ...)
        **({"stimulus_origin": doc["stimulus_origin"]} if doc.get("stimulus_origin") else {}),
        **(reasoning or {}),
        **run_facts(doc),
        **scenario_facts(doc),
    }


def read_likert(text) -> dict:
    """A generated Likert answer read: `parse_likert_response`'s dict with the answer's
    "reasoning" fields (plugin.core.reasoning) beside it."""
    reply = split_reasoning(text)
    return {**parse_reply(reply), "reasoning": reply.record_fields()}


def likert_record(doc: dict, read: dict) -> dict:
    """The record of a doc's Likert answer as `read_likert` read it."""
    scores = [read[gender] or 0 for gender in GENDERS]
    record = score_record(doc, scores, read["error"] or "", reasoning=read.get("reasoning"))
    record[READER_VERSION] = version_of("likert")
    return record


# an open-ended answer's scores by the gender read (neutral in the non-binary slot)
ONE_HOT = {"male": [1, 0, 0], "female": [0, 1, 0], "neutral": [0, 0, 1]}


def read_open(text, scenario=None) -> dict:
    """A generated story read (`person_reference.read_reply`) about the person of `scenario` (the
    doc's scenario sentence): the gender it gives them, why none was read, the words that decided
    it and their character spans in `text`, and the answer's "reasoning" fields
    (plugin.core.reasoning)."""
    reply = split_reasoning(text)
    reference = read_reply(reply, scenario, text)
    return {
        "reference": reference.gender,
        "reason": reference.reason,
        "evidence": list(reference.evidence),
        "evidence_spans": [list(span) for span in reference.spans],
        "reasoning": reply.record_fields(),
    }


def open_record(doc: dict, read: dict) -> dict:
    """The record of a doc's story as `read_open` read it; it keeps the scenario sentence the
    story was read against (lmms-eval logs no doc: `rescore` reads the story again against it)."""
    scores = ONE_HOT.get(read["reference"], [0, 0, 0])
    record = score_record(doc, scores, read["reason"], kind=OPEN, reasoning=read["reasoning"])
    record.update(
        scenario=doc.get("scenario"),
        reference=read["reference"],
        evidence=read["evidence"],
        evidence_spans=read.get("evidence_spans", []),
    )
    record[READER_VERSION] = version_of("open")
    return record


def _is_id(value) -> bool:
    return is_text(value) or is_integer(value)


def _is_score_triple(value) -> bool:
    return isinstance(value, list) and len(value) == 3 and all(is_finite_number(v) for v in value)


SCORE_RECORD_FIELDS = {
    "scenario_id": (_is_id, "a text or integer id"),
    "template_id": (_is_id, "a text or integer id"),
    "instrument": (is_text, "a text"),
    "stereotype": (lambda value: value in CATEGORIES, f"one of {list(CATEGORIES)}"),
    "error": (is_text, 'a text ("" when valid)'),
    "scores": (_is_score_triple, "three finite numbers"),
    "modality": (lambda value: value in MODALITIES, f"one of {list(MODALITIES)}"),
    "condition": (is_text, "a text"),
}
# what the scores of a valid record must be, by kind
VALID_SCORES = {
    LIKERT: (lambda scores: all(v in (1, 2, 3, 4, 5) for v in scores), "Likert values 1..5"),
    LOGPROB: (lambda scores: all(0 <= v <= 1 for v in scores), "probabilities in [0, 1]"),
    LIKERT_SCORED: (
        lambda scores: all(1 <= v <= 5 for v in scores),
        "expected Likert values in [1, 5]",
    ),
    OPEN: (lambda scores: sorted(scores) == [0, 0, 1], "one 1 and two 0s (the gender read)"),
}
RECOGNITION_FIELDS = {
    "instrument": (is_text, "a text"),
    "stimulus_id": (is_text, "a text"),
    "recognised": (lambda value: isinstance(value, bool), "true or false"),
    "named": (
        lambda value: isinstance(value, list) and all(is_text(v) for v in value),
        "a list of names",
    ),
    "modality": (lambda value: value in MODALITIES, f"one of {list(MODALITIES)}"),
    "condition": (is_text, "a text"),
}


def record_problem(record: dict) -> str | None:
    """What makes a record unusable, or None (see the fields in the module docstring)."""
    if record["kind"] == RECOGNITION:
        return field_problem(record, RECOGNITION_FIELDS)
    problem = field_problem(record, SCORE_RECORD_FIELDS)
    if (
        problem is None
        and record.get("stimulus_id") is not None
        and not _is_id(record["stimulus_id"])
    ):
        problem = f"'stimulus_id' is {record['stimulus_id']!r}, expected a text id or null"
    check, expected = VALID_SCORES[record["kind"]]
    if problem is None and not record["error"] and not check(record["scores"]):
        problem = f"'scores' of a valid record are {record['scores']}, expected {expected}"
    return problem


def _valid_columns(kind: str, records: list[dict]) -> bool:
    """Every check of record_problem, on whole columns of records of one kind (see `columnwise`)."""
    if not (
        set(column(records, "modality")) <= set(MODALITIES)
        and all_text(column(records, "condition"))
    ):
        return False
    if kind == RECOGNITION:
        return (
            all_text(column(records, "instrument"))
            and all_text(column(records, "stimulus_id"))
            and types_within(column(records, "recognised"), bool)
            and types_within(named := column(records, "named"), list)
            and all_text(flattened(named))
        )
    if kind not in VALID_SCORES:
        return False
    scores, errors = column(records, "scores"), column(records, "error")
    if not (
        types_within(column(records, "scenario_id"), str, int)
        and types_within(column(records, "template_id"), str, int)
        and all_text(column(records, "instrument"))
        and set(column(records, "stereotype")) <= set(CATEGORIES)
        and all_text(errors)
        and types_within(scores, list)
        and set(map(len, scores)) <= {3}
        and all_finite_numbers(flattened(scores))
        and types_within(column(records, "stimulus_id", None), type(None), str, int)
    ):
        return False
    valid_scores = [values for values, error in zip(scores, errors, strict=True) if not error]
    valid_values = flattened(valid_scores)
    if kind == OPEN:
        return set(valid_values) <= {0, 1} and set(map(sum, valid_scores)) <= {1}
    if kind == LIKERT:
        return set(valid_values) <= {1, 2, 3, 4, 5}
    low, high = (1, 5) if kind == LIKERT_SCORED else (0, 1)
    return not valid_values or (min(valid_values) >= low and max(valid_values) <= high)


records_valid = columnwise(_valid_columns)


def records_to_data(records) -> AssociationData:
    """The records' columns, coded (metrics.build_association_data). Each column is gathered in one
    pass of C-level lookups (a full suite's records: several times faster than a Python loop)."""
    records = records if isinstance(records, list) else list(records)
    return _association_data(_doc_columns(records), records)


def paired_records_to_data(base, candidate) -> tuple[AssociationData, AssociationData]:
    """`records_to_data` of two runs' records of the same docs in the same order (`compare`'s
    pairs). Where the docs' columns (scenario, template, instrument, stereotype, stimulus) of both
    runs agree, as they do for pairs of the same docs, they are made arrays once for both runs."""
    base, candidate = list(base), list(candidate)
    columns = _doc_columns(base)
    if _doc_columns(candidate) != columns:
        return records_to_data(base), records_to_data(candidate)
    columns = {name: np.asarray(values) for name, values in columns.items()}
    return _association_data(columns, base), _association_data(columns, candidate)


def _doc_columns(records: list[dict]) -> dict[str, list]:
    """What identifies each record's doc, as build_association_data's arguments."""
    scenario_ids, instruments = list(map(_SCENARIO_ID, records)), list(map(_INSTRUMENT, records))
    return {
        "scenario_ids": scenario_ids,
        "instruments": instruments,
        "categories": list(map(_STEREOTYPE, records)),
        "template_ids": list(map(_TEMPLATE_ID, records)),
        "stimulus_ids": [
            stimulus or instrument
            for stimulus, instrument in zip(
                map(dict.get, records, itertools.repeat("stimulus_id")), instruments, strict=True
            )
        ],
        "control": list(map(operator.eq, instruments, itertools.repeat(CONTROL.name))),
    }


def _association_data(columns: dict, records: list[dict]) -> AssociationData:
    """The records' answers (scores, valid) with their docs' `columns`, coded."""
    scores = list(map(_SCORES, records))
    if set(map(len, scores)) == {3}:  # flattened without numpy's inspection of every nested list
        scores = np.fromiter(
            itertools.chain.from_iterable(scores), dtype=float, count=3 * len(scores)
        ).reshape(-1, 3)
    else:
        scores = np.array(scores, dtype=float).reshape(-1, 3)
    errors = list(map(_ERROR, records))
    valid = np.fromiter(map(operator.not_, errors), dtype=bool, count=len(records))
    kind = records[0]["kind"] if records else None
    # only a generated answer can decline; scored protocols always answer
    refused = _flags(errors, REFUSED) if kind in GENERATED_KINDS else None
    no_reference = _flags(errors, NO_REFERENCE) if kind == OPEN else None
    return build_association_data(
        columns["scenario_ids"],
        columns["instruments"],
        columns["categories"],
        scores,
        valid,
        template_ids=columns["template_ids"],
        stimulus_ids=columns["stimulus_ids"],
        control=columns["control"],
        refused=refused,
        no_reference=no_reference,
    )


def _flags(errors: list[str], reason: str) -> np.ndarray:
    return np.fromiter(map(operator.eq, errors, itertools.repeat(reason)), dtype=bool)


_SCORES, _SCENARIO_ID, _TEMPLATE_ID, _INSTRUMENT, _STEREOTYPE, _ERROR = map(
    operator.itemgetter,
    ("scores", "scenario_id", "template_id", "instrument", "stereotype", "error"),
)


def headline(records, key: str) -> float:
    return analyse(records_to_data(records)).headline[key]


# ---- the Likert tasks' aggregations (text, audio and image tasks alike) -------------------------
def consistency_rate(records) -> float:
    return headline(records, "consistency_rate")


def mean_abs(records) -> float:
    return headline(records, "mean_abs")


def mean_abs_stderr(records) -> float:
    return headline(records, "mean_abs_stderr")


def non_binary_gas(records) -> float:
    return headline(records, "non_binary_gas")


def non_binary_gas_stderr(records) -> float:
    return headline(records, "non_binary_gas_stderr")


def gender_skew(records) -> float:
    return headline(records, "gender_skew")


def gender_skew_stderr(records) -> float:
    return headline(records, "gender_skew_stderr")


def invalid_rate(records) -> float:
    """Docs without a rating for a reason other than a refusal (format failures, cut answers)."""
    return headline(records, "invalid_rate")


def invalid_rate_stderr(records) -> float:
    """On the design's units, as the other headline numbers (metrics.association.design_rate)."""
    return headline(records, "invalid_rate_stderr")


def refusal_rate(records) -> float:
    """Docs the model declined to answer (error "refused"): no rating, so excluded as invalid docs
    are, and counted apart from them."""
    return headline(records, "refusal_rate")


def refusal_rate_stderr(records) -> float:
    return headline(records, "refusal_rate_stderr")


def no_reference_rate(records) -> float:
    """Open-ended answers that never say who the person is (error "no_reference"): no gender read,
    excluded as invalid docs are, and counted apart from them."""
    return headline(records, "no_reference_rate")


def no_reference_rate_stderr(records) -> float:
    return headline(records, "no_reference_rate_stderr")


def instrument_records(records) -> list:
    """The records of the instrument docs (the instrument-free control docs left out)."""
    return [record for record in records if record["instrument"] != CONTROL.name]


def prior_adjusted_headline(records, key: str) -> float:
    """A headline number against the model's own prior; NaN when no instrument-free control doc
    was answered (e.g. `--limit` left them out): there is no prior to adjust for."""
    data = records_to_data(records)
    return float("nan") if data.prior is None else analyse(prior_adjusted(data)).headline[key]


def mean_abs_prior_adjusted(records) -> float:
    return prior_adjusted_headline(records, "mean_abs")


def mean_abs_prior_adjusted_stderr(records) -> float:
    return prior_adjusted_headline(records, "mean_abs_stderr")


_ABSENT = object()


def stereotype_table_sha256(records: list[dict]) -> str | None:
    """canonical_sha256 of {instrument: stereotype category} over the instruments the records show
    (the instrument-free control docs left out); None for records that carry no stereotype."""
    try:  # the distinct (instrument, stereotype) pairs, gathered in C; the loop below where they do not decide
        pairs = set(
            zip(
                map(dict.get, records, itertools.repeat("instrument")),
                map(dict.get, records, itertools.repeat("stereotype"), itertools.repeat(_ABSENT)),
                strict=True,
            )
        )
    except TypeError:  # an unhashable value
        pairs = set()
    kept = [
        (instrument, category)
        for instrument, category in pairs
        if isinstance(instrument, str) and instrument and category is not _ABSENT
    ]
    table = dict(kept)
    if kept and len(table) == len(kept) and all(type(category) is str for _, category in kept):
        return canonical_sha256(table)
    table = {
        record["instrument"]: record["stereotype"]
        for record in records
        if isinstance(record.get("instrument"), str)
        and record["instrument"]
        and "stereotype" in record
    }
    return canonical_sha256(table) if table else None
