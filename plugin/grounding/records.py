"""Per-doc records of the instrument-grounding tasks and the aggregations the task YAMLs name.

A record is a plain dict (it survives lmms-eval's gathering and its samples files, which do not
carry the doc) that says what it is in its "kind" field:

    grounding.choice  interface (yes_no, name, letter, time), gold option, chosen option or -1,
                      options in display order, confusable group or "", clip, refused
    grounding.set     gold mask, chosen mask or None (unreadable answer), clip, refused
The clip (OpenMIC sample key; the three keys of a 30-second item) is the unit stderrs cluster on.
`refused` (true only where nothing was chosen; records written before it was kept lack it: false)
marks an answer that declined the task or said the audio never reached the model
(answers.answer_refused): no answer, like an unreadable one, but counted in the refusal rate instead
of the invalid rate. `empty` (true where the answer after any reasoning held nothing but
whitespace: invalid, reason "empty"; records written before it was kept lack it) is invalid like an
unreadable answer.

Every metric of a task holds the same record; each metric has a "<name>_stderr" twin from our code.
One aggregation per metric name serves every task that reports it.
"""

from __future__ import annotations

import numpy as np

from symphony_bench.metrics.grounding import REFUSED, choice_scores, set_scores
from symphony_bench.plugin.core.record_checks import (
    all_integer,
    all_text,
    column,
    columnwise,
    field_problem,
    flattened,
    is_integer,
    is_text,
    preview,
    types_within,
)

CHOICE = "grounding.choice"
SET = "grounding.set"
KINDS = (CHOICE, SET)

# The metrics each interface reports, in the order the report lists them.
ANSWER_RATES = ("invalid_rate", "refusal_rate")  # answers unread, answers that declined
METRICS_BY_INTERFACE = {
    "yes_no": ("accuracy", "yes_accuracy", "no_accuracy", "yes_rate", *ANSWER_RATES),
    "name": ("accuracy", "first_option_rate", "position_gap", *ANSWER_RATES),
    "letter": ("accuracy", "first_option_rate", "position_gap", *ANSWER_RATES),
    "time": ("rate_0_10s", "rate_10_20s", "rate_20_30s", "time_bias", "accuracy", *ANSWER_RATES),
    "set": ("exact_set_accuracy", "precision", "recall", "f1", *ANSWER_RATES),
}
# metric name -> key of the score in metrics.grounding's dicts
SCORE_KEY = {
    "first_option_rate": "option_0_rate",
    "yes_rate": "option_0_rate",
    "position_gap": "bias",
    "yes_accuracy": "gold_0_accuracy",
    "no_accuracy": "gold_1_accuracy",
    "rate_0_10s": "option_0_rate",
    "rate_10_20s": "option_1_rate",
    "rate_20_30s": "option_2_rate",
    "time_bias": "bias",
}


def choice_record(
    interface: str,
    gold: int,
    chosen: int,
    options: list[str],
    group: str,
    clip: str,
    refused: bool = False,
) -> dict:
    return {
        "kind": CHOICE,
        "interface": interface,
        "gold": gold,
        "chosen": chosen,
        "options": options,
        "group": group,
        "clip": clip,
        "refused": refused,
    }


def set_record(
    gold: list[bool], chosen: list[bool] | None, clip: str, refused: bool = False
) -> dict:
    return {"kind": SET, "gold": gold, "chosen": chosen, "clip": clip, "refused": refused}


def _is_text_list(value) -> bool:
    return isinstance(value, list) and bool(value) and all(is_text(v) for v in value)


def _is_mask(value) -> bool:
    return isinstance(value, list) and bool(value) and all(isinstance(v, bool) for v in value)


CHOICE_FIELDS = {
    "interface": (
        lambda value: value in set(METRICS_BY_INTERFACE) - {"set"},
        "yes_no, name, letter or time",
    ),
    "options": (_is_text_list, "a non-empty list of texts"),
    "gold": (is_integer, "an option index"),
    "chosen": (is_integer, "an option index or -1"),
    "group": (is_text, "a text"),
    "clip": (is_text, "a clip id"),
}
SET_FIELDS = {
    "gold": (_is_mask, "a list of true/false"),
    "chosen": (lambda value: value is None or _is_mask(value), "a list of true/false or null"),
    "clip": (is_text, "a clip id"),
}


def _refusal_problem(record: dict, nothing_chosen) -> str | None:
    """A `refused` that is no true/false, or true beside a chosen answer."""
    refused = record.get("refused", False)
    if not isinstance(refused, bool):
        return f"'refused' is {preview(refused)}, expected true or false"
    if refused and record["chosen"] != nothing_chosen:
        return (
            f"'refused' is true but 'chosen' is {preview(record['chosen'])}, not {nothing_chosen}"
        )
    return None


def record_problem(record: dict) -> str | None:
    """What makes a record unusable (a field of the wrong type, an index outside the options), or None."""
    if record["kind"] == SET:
        problem = field_problem(record, SET_FIELDS) or _refusal_problem(record, None)
        if (
            problem is None
            and record["chosen"] is not None
            and len(record["chosen"]) != len(record["gold"])
        ):
            problem = (
                f"'chosen' has {len(record['chosen'])} entries but 'gold' has {len(record['gold'])}"
            )
        return problem
    problem = field_problem(record, CHOICE_FIELDS) or _refusal_problem(record, -1)
    n_options = len(record["options"]) if problem is None else 0
    if problem is None and not 0 <= record["gold"] < n_options:
        problem = f"'gold' is {record['gold']}, outside the {n_options} options"
    if problem is None and not -1 <= record["chosen"] < n_options:
        problem = f"'chosen' is {record['chosen']}, neither -1 nor one of the {n_options} options"
    return problem


def _valid_columns(kind: str, records: list[dict]) -> bool:
    """Every check of record_problem, on whole columns of records of one kind (see `columnwise`)."""
    refused = column(records, "refused", False)
    if not types_within(refused, bool):
        return False
    if kind == SET:
        gold, chosen = column(records, "gold"), column(records, "chosen")
        answered = [value for value in chosen if value is not None]
        return (
            _all_masks(gold)
            and _all_masks(answered)
            and all_text(column(records, "clip"))
            and all(
                len(value) == len(mask)
                for value, mask in zip(chosen, gold, strict=True)
                if value is not None
            )
            and not any(r and c is not None for r, c in zip(refused, chosen, strict=True))
        )
    if kind != CHOICE:
        return False
    options, gold, chosen = (
        column(records, "options"),
        column(records, "gold"),
        column(records, "chosen"),
    )
    if not (
        set(column(records, "interface")) <= set(METRICS_BY_INTERFACE) - {"set"}
        and types_within(options, list)
        and min(map(len, options), default=1) > 0
        and all_text(flattened(options))
        and all_integer(gold)
        and all_integer(chosen)
        and all_text(column(records, "group"))
        and all_text(column(records, "clip"))
    ):
        return False
    n_options = list(map(len, options))
    return (
        all(0 <= g < n for g, n in zip(gold, n_options, strict=True))
        and all(-1 <= c < n for c, n in zip(chosen, n_options, strict=True))
        and not any(r and c != -1 for r, c in zip(refused, chosen, strict=True))
    )


records_valid = columnwise(_valid_columns)


def _all_masks(values: list) -> bool:
    """`_is_mask` of every value."""
    return (
        types_within(values, list)
        and min(map(len, values), default=1) > 0
        and types_within(flattened(values), bool)
    )


def refused_mask(records: list[dict]) -> np.ndarray:
    """Which records' answers were refusals (records without the field: none)."""
    return np.array([record.get("refused", False) for record in records], dtype=bool)


def choice_arrays(records: list[dict]) -> tuple[np.ndarray, np.ndarray, int]:
    """(gold option, chosen option, -1 (invalid) or -2 (refused), number of options) of a choice
    task's records (the codes of metrics.grounding)."""
    gold = np.array([record["gold"] for record in records], dtype=int)
    chosen = np.array([record["chosen"] for record in records], dtype=int)
    return gold, np.where(refused_mask(records), REFUSED, chosen), len(records[0]["options"])


def set_arrays(records: list[dict]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(gold mask, chosen mask, answer readable) of a multi-label task's records, the masks
    (examples x candidates); an unreadable answer chose nothing."""
    gold = np.array([record["gold"] for record in records], dtype=bool)
    valid = np.array([record["chosen"] is not None for record in records], dtype=bool)
    nothing = [False] * gold.shape[1]
    chosen = np.array([record["chosen"] or nothing for record in records], dtype=bool)
    return gold, chosen, valid


def record_scores(records) -> dict[str, tuple[float, float]]:
    """(value, stderr) of every score of these records (one task's), keyed as in metrics.grounding;
    stderrs are clustered by clip (items built from one clip are not independent)."""
    clips = [record["clip"] for record in records]
    if records[0]["kind"] == SET:
        return set_scores(*set_arrays(records), clips, refused_mask(records))
    return choice_scores(*choice_arrays(records), clips)


def harness_scores(records) -> dict[str, tuple[float, float]]:
    """(value, stderr) of every metric the harness shows for these records, under the harness's names."""
    scores = record_scores(records)
    interface = records[0].get("interface", "set")
    return {
        metric: scores[SCORE_KEY.get(metric, metric)] for metric in METRICS_BY_INTERFACE[interface]
    }


def _value(records, metric: str) -> float:
    return record_scores(records)[SCORE_KEY.get(metric, metric)][0]


def _stderr(records, metric: str) -> float:
    return record_scores(records)[SCORE_KEY.get(metric, metric)][1]


# ---- aggregations the task YAMLs name ----------------------------------------------------------
def accuracy(records) -> float:
    return _value(records, "accuracy")


def accuracy_stderr(records) -> float:
    return _stderr(records, "accuracy")


def invalid_rate(records) -> float:
    return _value(records, "invalid_rate")


def invalid_rate_stderr(records) -> float:
    return _stderr(records, "invalid_rate")


def refusal_rate(records) -> float:
    return _value(records, "refusal_rate")


def refusal_rate_stderr(records) -> float:
    return _stderr(records, "refusal_rate")


def yes_accuracy(records) -> float:
    return _value(records, "yes_accuracy")


def yes_accuracy_stderr(records) -> float:
    return _stderr(records, "yes_accuracy")


def no_accuracy(records) -> float:
    return _value(records, "no_accuracy")


def no_accuracy_stderr(records) -> float:
    return _stderr(records, "no_accuracy")


def yes_rate(records) -> float:
    return _value(records, "yes_rate")


def yes_rate_stderr(records) -> float:
    return _stderr(records, "yes_rate")


def first_option_rate(records) -> float:
    return _value(records, "first_option_rate")


def first_option_rate_stderr(records) -> float:
    return _stderr(records, "first_option_rate")


def position_gap(records) -> float:
    return _value(records, "position_gap")


def position_gap_stderr(records) -> float:
    return _stderr(records, "position_gap")


def rate_0_10s(records) -> float:
    return _value(records, "rate_0_10s")


def rate_0_10s_stderr(records) -> float:
    return _stderr(records, "rate_0_10s")


def rate_10_20s(records) -> float:
    return _value(records, "rate_10_20s")


def rate_10_20s_stderr(records) -> float:
    return _stderr(records, "rate_10_20s")


def rate_20_30s(records) -> float:
    return _value(records, "rate_20_30s")


def rate_20_30s_stderr(records) -> float:
    return _stderr(records, "rate_20_30s")


def time_bias(records) -> float:
    return _value(records, "time_bias")


def time_bias_stderr(records) -> float:
    return _stderr(records, "time_bias")


def exact_set_accuracy(records) -> float:
    return _value(records, "exact_set_accuracy")


def exact_set_accuracy_stderr(records) -> float:
    return _stderr(records, "exact_set_accuracy")


def precision(records) -> float:
    return _value(records, "precision")


def precision_stderr(records) -> float:
    return _stderr(records, "precision")


def recall(records) -> float:
    return _value(records, "recall")


def recall_stderr(records) -> float:
    return _stderr(records, "recall")


def f1(records) -> float:
    return _value(records, "f1")


def f1_stderr(records) -> float:
    return _stderr(records, "f1")
