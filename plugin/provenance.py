"""Where a run's numbers come from: model, software versions and, per task, everything whose change
makes two runs incomparable, with one hash over all of it.

Read from a model folder (the folder a harness writes one model's files into): the newest results
file (lm-eval `results_<time>.json`, lmms-eval `<time>_results.json`) and, per task, the newest
samples file. lm-eval samples carry the doc; lmms-eval samples carry only our per-doc records, so a
task fact is looked up in the doc first, then in the record. A fact recorded nowhere is None (JSON
null), never "N/A".
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import re
from pathlib import Path

from symphony_bench.plugin.core.errors import DataFileError

RESULTS_NAMES = (
    re.compile(r"^results_(?P<stamp>\d{4}-\d{2}-\d{2}T[\d.\-]+)\.json$"),  # lm-eval
    re.compile(r"^(?P<stamp>\d{8}_\d{6})_results\.json$"),  # lmms-eval
)
# Task facts whose difference makes two runs of a task incomparable item by item.
COMPARED_FIELDS = (
    "version",
    "hash",
    "dataset_repo",
    "dataset_revision",
    "stereotype_table_sha256",
    "scenario_set_sha256",
    "seed",
)
UNKNOWN_TEXTS = ("", "N/A", "n/a", "None")
# dataset_path values that name a `datasets` loader, not a dataset (our tasks load data themselves)
LOADER_NAMES = ("csv", "json", "parquet", "arrow", "text", "imagefolder", "audiofolder")


def provenance(model_folder: Path) -> dict:
    """{"model", "versions", "tasks", "config_hash"} of the newest run in `model_folder`."""
    results_path = newest_results_file(model_folder)
    results = read_json(results_path)
    config = results.get("config") or {}
    model_args = parse_model_args(config.get("model_args"))
    samples = newest_samples_files(model_folder)
    contents = {task: SamplesContent.read(samples.get(task)) for task in sorted(results.get("configs") or {})}
    tasks = {task: task_provenance(task, results, content) for task, content in contents.items()}
    facts = {
        "model": {
            "id": known(model_args.get("pretrained") or model_args.get("model") or results.get("model_name")
                        or config.get("model")),
            "revision": known(config.get("model_revision") or model_args.get("revision")),
            "sha": known(config.get("model_sha")),
            "dtype": dtype_name(config.get("model_dtype") or model_args.get("dtype")),
            "chat_template_sha": known(results.get("chat_template_sha")),
        },
        "versions": {
            "lm_eval": known(results.get("lm_eval_version")),
            "lmms_eval": known(results.get("lmms_eval_version")),
            "symphony_bench": single_value(
                [content.value("symphony_bench_version") for content in contents.values()], model_folder),
            "transformers": known(results.get("transformers_version")),
        },
        "tasks": tasks,
    }
    return {**facts, "config_hash": canonical_sha256(facts)}


def canonical_sha256(value) -> str:
    """sha256 of the canonical JSON text (sorted keys, no spaces) of `value`."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def known(value):
    """None for what harnesses write when a fact is unknown ("", "N/A", NaN), else the value."""
    if value is None or (isinstance(value, str) and value.strip() in UNKNOWN_TEXTS):
        return None
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def dtype_name(value) -> str | None:
    """"torch.float32" (lm-eval's config) and "float32" (model_args) name the same dtype."""
    value = known(value)
    return None if value is None else str(value).removeprefix("torch.")


def parse_model_args(model_args) -> dict:
    """lm-eval writes model_args as a dict, lmms-eval as the command line's "k=v,k=v" text."""
    if isinstance(model_args, dict):
        return model_args
    if not isinstance(model_args, str):
        return {}
    pairs = (item.split("=", 1) for item in model_args.split(",") if "=" in item)
    return {key.strip(): value.strip() for key, value in pairs}


def results_stamp(name: str) -> tuple[str, str] | None:
    """A sort key from a results file's time stamp (both harnesses' formats order the same way)."""
    for pattern in RESULTS_NAMES:
        match = pattern.match(name)
        if match:
            digits = re.sub(r"\D", "", match["stamp"])
            return digits[:14], digits[14:]
    return None


def newest_results_file(model_folder: Path) -> Path:
    stamped = [(stamp, path) for path in model_folder.glob("*.json") if (stamp := results_stamp(path.name))]
    if not stamped:
        raise DataFileError(f"{model_folder}: no lm-eval or lmms-eval results file (results_<time>.json, <time>_results.json)")
    return max(stamped)[1]


def newest_samples_files(model_folder: Path) -> dict[str, Path]:
    """{task: its newest samples file} in the folder."""
    from symphony_bench.plugin.report import samples_file_match

    newest: dict[str, tuple[str, Path]] = {}
    for path in model_folder.glob("*samples_*.jsonl"):
        match = samples_file_match(path.name)
        if match and (match["task"] not in newest or match["stamp"] > newest[match["task"]][0]):
            newest[match["task"]] = (match["stamp"], path)
    return {task: path for task, (_, path) in newest.items()}


def read_json(path: Path) -> dict:
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as error:
        raise DataFileError(f"{path}: not a readable JSON file ({error})") from error
    if not isinstance(value, dict):
        raise DataFileError(f"{path}: expected a JSON object, found {type(value).__name__}")
    return value


class SamplesContent:
    """The docs (lm-eval samples only) and our per-doc records of one samples file, in file order and
    by the harness's doc_id. Files are parsed once per process while unchanged (the leaderboard's
    paired tests read them again)."""

    def __init__(self, path: Path | None, docs: list[dict], records: list[dict], records_by_doc_id: dict[int, dict]):
        self.path, self.docs, self.records, self.records_by_doc_id = path, docs, records, records_by_doc_id

    @classmethod
    def read(cls, path: Path | None) -> SamplesContent:
        if path is None:
            return cls(None, [], [], {})
        try:
            stat = path.stat()
        except OSError as error:
            raise DataFileError(f"{path}: cannot read ({error})") from error
        return _parsed_samples(path, stat.st_mtime_ns, stat.st_size)

    def value(self, field: str):
        """A per-run fact from the docs, else from the records: one value across the file, or None."""
        values = [doc.get(field) for doc in self.docs] or [record.get(field) for record in self.records]
        return single_value(values, self.path)


@functools.lru_cache(maxsize=512)
def _parsed_samples(path: Path, modified_ns: int, size: int) -> SamplesContent:
    """(modified_ns and size key the cache: a rewritten file is parsed again.)"""
    from symphony_bench.plugin.report import sample_record

    docs, records, by_doc_id = [], [], {}
    for _, sample in _json_lines(path):
        if not isinstance(sample, dict):
            continue
        if isinstance(sample.get("doc"), dict):
            docs.append(sample["doc"])
        record = sample_record(sample)
        if record is not None:
            records.append(record)
            if isinstance(sample.get("doc_id"), int):
                by_doc_id[sample["doc_id"]] = record
    return SamplesContent(path, docs, records, by_doc_id)


def _json_lines(path: Path):
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as error:
        raise DataFileError(f"{path}: cannot read ({error})") from error
    for line_number, line in enumerate(lines, start=1):
        if line.strip():
            try:
                yield line_number, json.loads(line)
            except ValueError as error:
                raise DataFileError(f"{path}, line {line_number}: not valid JSON ({error})") from error


def task_provenance(task: str, results: dict, content: SamplesContent) -> dict:
    config = (results.get("configs") or {}).get(task) or {}
    dataset_kwargs = config.get("dataset_kwargs") or {}
    return {
        "version": known((results.get("versions") or {}).get(task)),
        "hash": known((results.get("task_hashes") or {}).get(task)),
        "dataset_repo": content.value("dataset_repo") or dataset_repo(config.get("dataset_path")),
        "dataset_revision": content.value("dataset_revision") or known(dataset_kwargs.get("revision")),
        "stereotype_table_sha256": stereotype_table_sha256(content.docs or content.records),
        "scenario_set_sha256": content.value("scenario_set_sha256"),
        "seed": content.value("seed"),
    }


def dataset_repo(dataset_path) -> str | None:
    path = known(dataset_path)
    return None if path in LOADER_NAMES else path


def single_value(values: list, where: Path | None):
    """The one known value among `values`, None if none is known; an error naming `where` if they differ."""
    distinct = {json.dumps(value, sort_keys=True) for value in values if known(value) is not None}
    if len(distinct) > 1:
        raise DataFileError(f"{where}: docs of one run disagree on a fact that must be constant: {sorted(distinct)[:3]}")
    return json.loads(distinct.pop()) if distinct else None


def stereotype_table_sha256(items: list[dict]) -> str | None:
    """canonical_sha256 of {instrument: stereotype category} over the instruments the docs show (the
    instrument-free control docs left out); None for tasks whose docs carry no stereotype."""
    table = {item["instrument"]: item["stereotype"] for item in items
             if isinstance(item.get("instrument"), str) and item["instrument"] and "stereotype" in item}
    return canonical_sha256(table) if table else None
