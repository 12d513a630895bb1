"""lmms-eval glue for the instrument-grounding tasks (tasks/lmms_eval/instrument_grounding).

The benchmark set is a folder built by `symphony-bench build openmic` (or a Hub repo id in that
layout), named by the option `grounding` ($SYMPHONY_GROUNDING for lmms-eval, which has no
--metadata). Each task's YAML loads its variant file (variants/<task>.csv: the interface), which
`process_docs` swaps for one config of that set with what every interface needs: the prompt shown,
the options in display order, the gold option. The aggregations the YAMLs name are in `records`.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import datasets

from symphony_bench.metrics.grounding import INVALID
from symphony_bench.plugin.core.audio import checked_audio_input
from symphony_bench.plugin.core.dataset_source import DatasetSource, pinned_dataset, resolve
from symphony_bench.plugin.core.errors import DataFileError, announced
from symphony_bench.plugin.core.hub_folder import open_folder
from symphony_bench.plugin.core.model_classes import refuse_known_failures
from symphony_bench.plugin.core.options import given_options, read_options
from symphony_bench.plugin.core.reasoning import is_empty, split_reasoning
from symphony_bench.plugin.core.run_facts import READER_VERSION, package_version, run_facts
from symphony_bench.plugin.core.vocabulary import TIME_RANGES
from symphony_bench.plugin.grounding import readers
from symphony_bench.plugin.grounding.answers import (
    answer_refused,
    read_choice,
    read_instrument_set,
    read_letter,
    read_time_range,
    read_yes_no,
)
from symphony_bench.plugin.grounding.options import BENCHMARK
from symphony_bench.plugin.grounding.records import METRICS_BY_INTERFACE, choice_record, set_record

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


BENCHMARK_YAML = "lmms_eval/instrument_grounding/_grounding_common_yaml"


def benchmark_source() -> DatasetSource:
    """The option's folder or repo id, else the Hub repo pinned in the task YAML."""
    return resolve_benchmark(read_options((BENCHMARK,))[BENCHMARK.name])


def resolve_benchmark(value: str | None) -> DatasetSource:
    how_to_build = (
        f"build it locally with `symphony-bench build openmic --source OPENMIC --out DIR` and set "
        f"{BENCHMARK.variable}=DIR"
    )
    return resolve(value, pinned_dataset(BENCHMARK_YAML), how_to_build)


@lru_cache(maxsize=8)
def benchmark_config(folder: Path, config: str) -> datasets.Dataset:
    return open_folder(
        folder,
        f"a benchmark set with a {config!r} config (built by `symphony-bench build openmic`)",
        config,
    )


def _options_and_gold(rows: datasets.Dataset, interface: Interface) -> tuple[list[list[str]], list]:
    if interface.kind == "yes_no":
        return [YES_NO] * len(rows), [
            0 if answer.lower() == "yes" else 1 for answer in rows["answer"]
        ]
    if interface.kind == "time":
        return [list(TIME_RANGES)] * len(rows), list(rows["gold_segment"])
    if interface.kind == "set":
        return list(rows["candidates"]), [
            [name in present for name in candidates]
            for candidates, present in zip(rows["candidates"], rows["present"], strict=True)
        ]
    candidates = rows["candidates_swapped" if interface.swapped else "candidates"]
    gold = [1 - g if interface.swapped else g for g in rows["gold_position"]]
    return list(candidates), gold


def unbuilt_config(source: str, config: str) -> bool:
    """True when `source` is a built folder that left `config` out: the builder writes no config that
    would have no rows (e.g. multilabel_30s on a sparse release with --max-clip-uses 1)."""
    data = Path(source).expanduser() / "data"
    built = {path.name for path in data.iterdir() if path.is_dir()} if data.is_dir() else set()
    return bool(built) and config not in built


def interface_docs(task: str) -> datasets.Dataset:
    """One config's rows plus prompt, options, gold and interface, for the task `grounding_<task>`."""
    interface = INTERFACES[task]
    source = benchmark_source()
    if unbuilt_config(str(source.folder), interface.config):
        raise DataFileError(
            f"grounding_{task}: {source.repo} has no {interface.config!r} config (it had no rows when built; a larger "
            "--max-clip-uses "
            "may fill it). `symphony-bench tasks-path --harness lmms-eval` with SYMPHONY_GROUNDING set gives an "
            "instrument_grounding group of the tasks that were built"
        )
    rows = benchmark_config(source.folder, interface.config)
    options, gold = _options_and_gold(rows, interface)
    added = {
        "prompt": rows[interface.prompt_column],
        "options": options,
        "gold": gold,
        "interface": [interface.kind] * len(rows),
        "symphony_bench_version": [package_version()] * len(rows),
        "task_options": [given_options((BENCHMARK,))] * len(rows),
        **{field: [value] * len(rows) for field, value in source.facts().items()},
    }
    for column, values in added.items():
        rows = rows.add_column(column, values)
    return rows


@announced
def task_docs(variant: datasets.Dataset) -> datasets.Dataset:
    """`process_docs` of every grounding task: the docs of the interface its YAML's variant file
    names (one row: interface, a key of INTERFACES)."""
    (row,) = variant
    return interface_docs(row["interface"])


# ---- what the model hears, and how an answer is read ------------------------------------------
def doc_to_visual(doc: dict) -> list[dict]:
    """The item's audio; its samples must be the ones its row records (`pcm_sha256`). A stock model
    class known to fail on every doc stops here, naming the adapter to use."""
    refuse_known_failures(attached=True)
    where = f"{doc.get('dataset_repo')}: item {doc.get('item_id')}"
    return checked_audio_input(doc["audio"]["bytes"], doc["pcm_sha256"], where)


def read_answer(doc: dict, answer) -> int | list[bool] | None:
    """The option index (or, for the set task, the chosen mask) an answer means; None if unreadable.
    A yes/no answer is read about the instrument its row asks about (`instrument`, an OpenMIC class;
    else `instrument_name`): what it says of other instruments is no answer."""
    kind, options = doc["interface"], doc["options"]
    if kind == "yes_no":
        said = read_yes_no(answer, doc.get("instrument") or doc.get("instrument_name"))
        return None if said is None else (0 if said else 1)
    if kind == "time":
        return read_time_range(answer)
    if kind == "name":
        return read_choice(answer, options)
    if kind == "letter":
        return read_letter(answer, options)
    chosen = read_instrument_set(answer, options)
    return None if chosen is None else [k in chosen for k in range(len(options))]


# the grounding YAMLs' `until`
ANSWER_STOP = ("\n\n",)


def clip_of(doc: dict) -> str:
    """The clip an item was built from (a 30-second item: its three clips), the unit stderrs cluster on."""
    return doc.get("sample_key") or "+".join(doc.get("source_keys") or [])


def process_results(doc: dict, results: list) -> dict:
    """The answer is read after any reasoning and up to the first blank line, where the tasks' stop
    sequence would have cut it (chat model classes ignore it); one that gives no answer and declines
    the task (answers.answer_refused) is refused."""
    reply = split_reasoning(results[0] if results else "")
    answer = None if reply.unfinished else reply.answer_until(ANSWER_STOP)
    chosen = None if answer is None else read_answer(doc, answer)
    refused = chosen is None and answer is not None and answer_refused(answer)
    if doc["interface"] == "set":
        record = set_record(list(doc["gold"]), chosen, clip_of(doc), refused)
    else:
        chosen_option = INVALID if chosen is None else int(chosen)
        record = choice_record(
            doc["interface"],
            int(doc["gold"]),
            chosen_option,
            list(doc["options"]),
            doc.get("group") or "",
            clip_of(doc),
            refused,
        )
    record.update(reply.record_fields())
    record["empty"] = not reply.unfinished and is_empty(reply.answer)
    record.update(run_facts(doc))
    record[READER_VERSION] = readers.version()
    names = METRICS_BY_INTERFACE[doc["interface"]]
    return {f"{name}{suffix}": record for name in names for suffix in ("", "_stderr")}
