"""lmms-eval glue for the instrument-grounding tasks (tasks/instrument_grounding).

The benchmark set is a folder built by `symphony-bench build openmic` (or a Hub repo id in that
layout), named by the environment variable SYMPHONY_GROUNDING: lmms-eval has no --metadata. Each
task's `process_docs` swaps the small table its YAML loads for one config of that set and adds what
every interface needs: the prompt shown, the options in display order, the gold option.

Per-doc records are plain lists (they survive lmms-eval's gathering and its samples files, which
do not carry the doc):
    choice tasks  [gold option, chosen option or -1, options in display order, confusable group or ""]
    set task      [gold mask, chosen mask or None]
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

import datasets
import numpy as np

from symphony_bench.metrics.association import binomial_rate
from symphony_bench.metrics.grounding import INVALID, accuracy, response_bias, set_scores
from symphony_bench.plugin.grounding_answers import (
    TIME_RANGES,
    read_choice,
    read_instrument_set,
    read_letter,
    read_time_range,
    read_yes_no,
)
from symphony_bench.plugin.lmms_inputs import audio_input, open_source, source_from_environment
from symphony_bench.plugin.lmms_inputs import prompt_text as doc_to_text  # noqa: F401  (the tasks' doc_to_text)

SOURCE_VARIABLE = "SYMPHONY_GROUNDING"
YES_NO = ["Yes", "No"]


@dataclass(frozen=True)
class Interface:
    """How one task shows its config's rows and reads the answers."""

    config: str
    kind: str  # yes_no, name, letter, set, time
    prompt_column: str
    swapped: bool = False


INTERFACES = {
    "binary": Interface("binary", "yes_no", "question"),
    "genre_hard": Interface("genre_hard", "yes_no", "question"),
    "confusable_name": Interface("confusable", "name", "prompt_name"),
    "confusable_name_swapped": Interface("confusable", "name", "prompt_name_swapped", swapped=True),
    "confusable_ab": Interface("confusable", "letter", "prompt_ab"),
    "confusable_ab_swapped": Interface("confusable", "letter", "prompt_ab_swapped", swapped=True),
    "multilabel_30s": Interface("multilabel_30s", "set", "question"),
    "temporal_30s": Interface("temporal_30s", "time", "question"),
}


@lru_cache(maxsize=8)
def benchmark_config(source: str, config: str) -> datasets.Dataset:
    return open_source(source, f"a benchmark set with a {config!r} config (built by `symphony-bench build openmic`)", config)


def _options_and_gold(rows: datasets.Dataset, interface: Interface) -> tuple[list[list[str]], list]:
    if interface.kind == "yes_no":
        return [YES_NO] * len(rows), [0 if answer.lower() == "yes" else 1 for answer in rows["answer"]]
    if interface.kind == "time":
        return [list(TIME_RANGES)] * len(rows), list(rows["gold_segment"])
    if interface.kind == "set":
        return list(rows["candidates"]), [[name in present for name in candidates] for candidates, present in zip(rows["candidates"], rows["present"], strict=True)]
    candidates = rows["candidates_swapped" if interface.swapped else "candidates"]
    gold = [1 - g if interface.swapped else g for g in rows["gold_position"]]
    return list(candidates), gold


def docs_function(task: str) -> Callable[[datasets.Dataset], datasets.Dataset]:
    """A `process_docs` for one task: the config rows plus prompt, options, gold and interface."""
    interface = INTERFACES[task]

    def process_docs(_: datasets.Dataset) -> datasets.Dataset:
        rows = benchmark_config(source_from_environment(SOURCE_VARIABLE, "symphony-bench build openmic"), interface.config)
        options, gold = _options_and_gold(rows, interface)
        added = {
            "prompt": rows[interface.prompt_column],
            "options": options,
            "gold": gold,
            "interface": [interface.kind] * len(rows),
        }
        for column, values in added.items():
            rows = rows.add_column(column, values)
        return rows

    process_docs.__name__ = f"{task}_docs"
    return process_docs


def doc_to_visual(doc: dict) -> list[dict]:
    return audio_input(doc["audio"]["bytes"])


def read_answer(doc: dict, answer) -> int | list[bool] | None:
    """The option index (or, for the set task, the chosen mask) an answer means; None if unreadable."""
    kind, options = doc["interface"], doc["options"]
    if kind == "yes_no":
        said = read_yes_no(answer)
        return None if said is None else (0 if said else 1)
    if kind == "time":
        return read_time_range(answer)
    if kind == "name":
        return read_choice(answer, options)
    if kind == "letter":
        return read_letter(answer, options)
    chosen = read_instrument_set(answer, options)
    return None if chosen is None else [k in chosen for k in range(len(options))]


METRICS_BY_KIND = {
    "yes_no": ("accuracy", "yes_accuracy", "no_accuracy", "yes_rate", "invalid_rate"),
    "name": ("accuracy", "first_option_rate", "position_gap", "invalid_rate"),
    "letter": ("accuracy", "first_option_rate", "position_gap", "invalid_rate"),
    "time": ("accuracy", "rate_0_10s", "rate_10_20s", "rate_20_30s", "time_bias", "invalid_rate"),
    "set": ("exact_set_accuracy", "precision", "recall", "f1", "invalid_rate"),
}


def process_results(doc: dict, results: list) -> dict:
    answer = results[0] if results else ""
    chosen = read_answer(doc, answer)
    if doc["interface"] == "set":
        record = [list(doc["gold"]), chosen]
    else:
        record = [int(doc["gold"]), INVALID if chosen is None else int(chosen), list(doc["options"]), doc.get("group") or ""]
    names = METRICS_BY_KIND[doc["interface"]]
    return {f"{name}{suffix}": record for name in names for suffix in ("", "_stderr")}


# ---- aggregations: (value, stderr) pairs over all records, vectorised ---------------------------
def choice_arrays(records) -> tuple[np.ndarray, np.ndarray]:
    """(gold options, chosen options) of choice-task records."""
    return np.array([r[0] for r in records], dtype=int), np.array([r[1] for r in records], dtype=int)


def _rate_among(flags, mask) -> tuple[float, float]:
    return binomial_rate(np.asarray(flags)[np.asarray(mask, dtype=bool)])


def choice_scores(records, n_options: int) -> dict[str, tuple[float, float]]:
    gold, chosen = choice_arrays(records)
    valid = chosen != INVALID
    scores = {"accuracy": accuracy(gold, chosen), "invalid_rate": binomial_rate(~valid)}
    for option in range(n_options):
        scores[f"option_{option}_rate"] = _rate_among(chosen == option, valid)
    scores["gold_0_accuracy"] = _rate_among(chosen == gold, gold == 0)
    scores["gold_1_accuracy"] = _rate_among(chosen == gold, gold == 1)
    scores["bias"] = response_bias(chosen, n_options)
    return scores


def set_task_scores(records) -> dict[str, tuple[float, float]]:
    gold = np.array([record[0] for record in records], dtype=bool)
    valid = np.array([record[1] is not None for record in records], dtype=bool)
    chosen = np.array([record[1] if record[1] is not None else [False] * gold.shape[1] for record in records], dtype=bool)
    scores = set_scores(gold, chosen, valid)
    return {"exact_set_accuracy": scores["exact_set"], "precision": scores["precision"], "recall": scores["recall"],
            "f1": scores["f1"], "invalid_rate": binomial_rate(~valid)}


# metric name -> (scorer, key in the scorer's dict)
_TWO_WAY = {
    "accuracy": "accuracy", "first_option_rate": "option_0_rate", "position_gap": "bias", "invalid_rate": "invalid_rate",
    "yes_accuracy": "gold_0_accuracy", "no_accuracy": "gold_1_accuracy", "yes_rate": "option_0_rate",
}
_THREE_WAY = {"rate_0_10s": "option_0_rate", "rate_10_20s": "option_1_rate", "rate_20_30s": "option_2_rate", "time_bias": "bias"}


def _aggregation(metric: str, scorer: Callable[[list], dict], key: str) -> tuple[Callable, Callable]:
    def value(records) -> float:
        return scorer(records)[key][0]

    def stderr(records) -> float:
        return scorer(records)[key][1]

    value.__name__, stderr.__name__ = metric, f"{metric}_stderr"
    return value, stderr


def harness_scores(records) -> dict[str, tuple[float, float]]:
    """(value, stderr) of every metric the harness shows for these records, under the harness's names
    (the task kind follows from the options: yes/no, the three time ranges, or two candidates)."""
    if records and len(records[0]) == 2:
        return set_task_scores(records)
    options = records[0][2]
    if options == YES_NO:
        names = {metric: _TWO_WAY[metric] for metric in METRICS_BY_KIND["yes_no"]}
    elif options == list(TIME_RANGES):
        names = {**_THREE_WAY, "accuracy": "accuracy", "invalid_rate": "invalid_rate"}
    else:
        names = {metric: _TWO_WAY[metric] for metric in METRICS_BY_KIND["name"]}
    scores = choice_scores(records, len(options))
    return {metric: scores[key] for metric, key in names.items()}


def aggregations() -> dict[str, Callable]:
    """Every aggregation the task YAMLs name: `<metric>` and `<metric>_stderr`."""
    scorers = {
        "two_way": (lambda records: choice_scores(records, 2), _TWO_WAY),
        "three_way": (lambda records: choice_scores(records, 3), {**_THREE_WAY, "accuracy": "accuracy", "invalid_rate": "invalid_rate"}),
        "set": (set_task_scores, {name: name for name in METRICS_BY_KIND["set"]}),
    }
    functions = {}
    for family, (scorer, keys) in scorers.items():
        for metric, key in keys.items():
            value, stderr = _aggregation(metric, scorer, key)
            functions[f"{family}_{metric}"], functions[f"{family}_{metric}_stderr"] = value, stderr
    return functions
