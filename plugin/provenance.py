"""Where a run's numbers come from: model, software versions and, per task, everything whose change
makes two runs incomparable, with one hash over all of it.

Read from a model folder (the folder a harness writes one model's files into): the newest results
file (lm-eval `results_<time>.json`, lmms-eval `<time>_results.json`) and, per task, the newest
samples file. Every per-doc record copies the run's facts from its doc (plugin.core.run_facts);
lmms-eval samples carry only those records, lm-eval samples the doc too. A task fact is the one
value that the records and the docs of the file's first and last lines hold (an error naming the
file if they disagree; see SamplesContent). A fact recorded nowhere is None (JSON null), never "N/A".
"""

from __future__ import annotations

import functools
import hashlib
import itertools
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
    "dataset_commit",
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
    contents = {
        task: SamplesContent.read(samples.get(task))
        for task in sorted(results.get("configs") or {})
    }
    tasks = {task: task_provenance(task, results, content) for task, content in contents.items()}
    facts = {
        "model": {
            "id": known(
                model_args.get("pretrained")
                or model_args.get("model")
                or results.get("model_name")
                or config.get("model")
            ),
            "revision": known(config.get("model_revision") or model_args.get("revision")),
            "sha": known(config.get("model_sha")),
            "dtype": dtype_name(config.get("model_dtype") or model_args.get("dtype")),
            "chat_template_sha": known(results.get("chat_template_sha")),
        },
        "versions": {
            "lm_eval": known(results.get("lm_eval_version")),
            "lmms_eval": known(results.get("lmms_eval_version")),
            "symphony_bench": single_value(
                [content.value("symphony_bench_version") for content in contents.values()],
                model_folder,
            ),
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
    """ "torch.float32" (lm-eval's config) and "float32" (model_args) name the same dtype."""
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
    stamped = [
        (stamp, path) for path in model_folder.glob("*.json") if (stamp := results_stamp(path.name))
    ]
    if not stamped:
        raise DataFileError(
            f"{model_folder}: no lm-eval or lmms-eval results file (results_<time>.json, <time>_results.json)"
        )
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
    """One samples file, read once per process while unchanged and shared by `compare`, `leaderboard`
    (its paired tests) and provenance: per non-blank line (line number, doc_id, our per-doc record or
    None); the records in file order and by the harness's doc_id; and the docs (lm-eval samples only)
    of the first and last lines.

    Only those two docs are decoded (a full suite's docs and prompts are most of its samples files):
    a run's facts are constant per task by construction (computed once per doc build) and every
    per-doc record copies them (plugin.core.run_facts), so `value` checks them on every record of
    the file, and the stereotype table is built from every record (each names its instrument and
    category). What is checked only at the file's ends: a fact that the docs hold and the records
    do not (files written before the records carried the run facts), and a doc that disagrees with
    its own record (the doc's value is taken, as before). A file of two runs appended still
    disagrees at its ends."""

    def __init__(
        self, path: Path | None, lines: list[tuple[int, object, dict | None]], docs: list[dict]
    ):
        self.path, self.lines, self.docs = path, lines, docs
        self.records = [record for _, _, record in lines if record is not None]

    @functools.cached_property
    def records_by_doc_id(self) -> dict[int, dict]:
        return {
            doc_id: record
            for _, doc_id, record in self.lines
            if record is not None and isinstance(doc_id, int)
        }

    @classmethod
    def read(cls, path: Path | None) -> SamplesContent:
        if path is None:
            return cls(None, [], [])
        try:
            stat = path.stat()
        except OSError as error:
            raise DataFileError(f"{path}: cannot read ({error})") from error
        return _parsed_samples(path, stat.st_mtime_ns, stat.st_size)

    def value(self, field: str):
        """A per-run fact: the one value of the end docs, else of the records (None if none holds it);
        an error if the docs, or the records, disagree among themselves."""
        from_docs = single_value([doc.get(field) for doc in self.docs], self.path)
        from_records = single_value(_values(self.records, field), self.path)
        return from_records if from_docs is None else from_docs


def forget_samples() -> None:
    """Drops every samples file read so far: a command done with them frees them at once (a full
    suite's records left alive cost the cyclic garbage collector about a second per full pass)."""
    _parsed_samples.cache_clear()


def _values(records: list[dict], field: str):
    """The records' values of `field`: only the distinct ones where that loses nothing (texts and
    None; 1, 1.0 and True would be one in a set)."""
    values = list(map(dict.get, records, itertools.repeat(field)))
    first = values[0] if values else None
    if (first is None or type(first) is str) and values.count(first) == len(values):
        return values[
            :1
        ]  # the usual case: one text (or none) in every record, compared without hashing each copy
    try:
        distinct = set(values)
    except TypeError:  # unhashable values (lists, dicts)
        distinct = None
    if distinct is not None and all(value is None or type(value) is str for value in distinct):
        return list(distinct)
    return values


@functools.lru_cache(maxsize=512)
def _parsed_samples(path: Path, modified_ns: int, size: int) -> SamplesContent:
    """(modified_ns and size key the cache: a rewritten file is read again.)

    Lines are read one at a time, each just after it is decoded, and dropped once read: on two
    full-suite runs (most of a gigabyte of text) that took about a tenth less time than decoding a
    whole file's lines first, and holds one line instead of a file. A line in the harnesses' layout
    is read in place (`_fast_read_in`), any other stripped and read as before. A file that is not
    UTF-8 is that error wherever the bad bytes are, as when the file was read whole first."""
    lines, first, last, kinds, problem = [], None, None, _record_kinds(), None
    try:
        with open(path, encoding="utf-8") as handle:
            for line_number, line in enumerate(handle, start=1):
                # in the harnesses' layout a line starts with "{" and ends with "}" and its newline:
                # stripping it would change nothing but cost a copy of the whole line
                read = (
                    _fast_read_in(line, len(line) - (line[-1:] == "\n"), kinds)
                    if line[:1] == "{"
                    else None
                )
                if read is None:
                    text = line.strip()
                    if not text:
                        continue
                    try:
                        read = fast_read(text) or _full_read(text, f"{path}, line {line_number}")
                    except (
                        DataFileError
                    ) as error:  # raised once the rest of the file is known to be text
                        problem = error
                        break
                lines.append((line_number, *read))
                first, last = first or (line_number, line), (line_number, line)
            for _ in handle:  # after a bad line: the rest only decoded
                pass
    except UnicodeDecodeError as error:
        raise DataFileError(f"{path}: not UTF-8 text ({error})") from error
    except OSError as error:
        raise DataFileError(f"{path}: cannot read ({error})") from error
    if problem is not None:
        raise problem
    ends = [] if first is None else [first] if last[0] == first[0] else [first, last]
    docs = [
        doc
        for line_number, line in ends
        if isinstance(
            doc := _full_sample(line.strip(), f"{path}, line {line_number}").get("doc"), dict
        )
    ]
    return SamplesContent(path, lines, docs)


# Both harnesses write each sample with json.dumps' default separators, doc_id first, and our record
# (its "kind" first) under every metric name: 6-10 copies, plus the doc and prompt in lm-eval's
# files. Decoding only the first copy is several times faster than the whole line; a line that does
# not look like that is decoded whole.
SAMPLE_START = re.compile(r'\{"doc_id": (-?\d+)[,}]')
RECORD_START = '{"kind": "'
_SCAN_ONCE = json.JSONDecoder().scan_once


@functools.cache
def _record_kinds() -> frozenset[str]:
    from symphony_bench.plugin.report import SECTION_OF_KIND

    return frozenset(SECTION_OF_KIND)


def fast_read(line: str) -> tuple[int, dict] | None:
    """(doc_id, the first record copy) of a line in the harnesses' layout; None for any other line."""
    return _fast_read_in(line, len(line), _record_kinds())


def _fast_read_in(line: str, end: int, kinds: frozenset[str]) -> tuple[int, dict] | None:
    """`fast_read` of line[:end], without cutting it out: None unless it ends with "}" and its first
    record copy ends inside it (so what follows `end` changes nothing)."""
    start = SAMPLE_START.match(line, 0, end)
    if start is None or end < 1 or line[end - 1] != "}":
        return None
    at = line.find(RECORD_START, 0, end)
    if at < 0:
        return None
    try:
        record, stop = _SCAN_ONCE(
            line, at
        )  # what JSONDecoder.raw_decode calls, without its Python frame
    except (StopIteration, ValueError):
        return None
    return (int(start[1]), record) if stop <= end and record.get("kind") in kinds else None


def _full_sample(line: str, where: str) -> dict:
    try:
        sample = json.loads(line)
    except ValueError as error:
        raise DataFileError(f"{where}: not valid JSON ({error})") from error
    return sample if isinstance(sample, dict) else {}


def _full_read(line: str, where: str) -> tuple[object, dict | None]:
    """(doc_id, our record) of a line decoded whole; (None, None) for JSON that is not an object."""
    from symphony_bench.plugin.report import sample_record

    sample = _full_sample(line, where)
    return sample.get("doc_id"), sample_record(sample) if sample else None


def task_provenance(task: str, results: dict, content: SamplesContent) -> dict:
    config = (results.get("configs") or {}).get(task) or {}
    dataset_kwargs = config.get("dataset_kwargs") or {}
    return {
        "version": known((results.get("versions") or {}).get(task)),
        "hash": known((results.get("task_hashes") or {}).get(task)),
        "dataset_repo": content.value("dataset_repo") or dataset_repo(config.get("dataset_path")),
        "dataset_revision": content.value("dataset_revision")
        or known(dataset_kwargs.get("revision")),
        "dataset_commit": content.value("dataset_commit"),
        "stereotype_table_sha256": stereotype_table_sha256(content.records or content.docs),
        "scenario_set_sha256": content.value("scenario_set_sha256"),
        "seed": content.value("seed"),
    }


def dataset_repo(dataset_path) -> str | None:
    path = known(dataset_path)
    return None if path in LOADER_NAMES else path


def single_value(values: list, where: Path | None):
    """The one known value among `values`, None if none is known; an error naming `where` if they differ."""
    try:  # a run's values are mostly one repeated text or number: JSON-encode each distinct one once
        values = [value for _, value in set(zip(map(type, values), values))]
    except TypeError:  # unhashable values (lists, dicts)
        pass
    distinct = {json.dumps(value, sort_keys=True) for value in values if known(value) is not None}
    if len(distinct) > 1:
        raise DataFileError(
            f"{where}: docs of one run disagree on a fact that must be constant: {sorted(distinct)[:3]}"
        )
    return json.loads(distinct.pop()) if distinct else None


_ABSENT = object()


def stereotype_table_sha256(items: list[dict]) -> str | None:
    """canonical_sha256 of {instrument: stereotype category} over the instruments the docs show (the
    instrument-free control docs left out); None for tasks whose docs carry no stereotype."""
    try:  # the distinct (instrument, stereotype) pairs, gathered in C; the loop below where they do not decide
        pairs = set(
            zip(
                map(dict.get, items, itertools.repeat("instrument")),
                map(dict.get, items, itertools.repeat("stereotype"), itertools.repeat(_ABSENT)),
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
        item["instrument"]: item["stereotype"]
        for item in items
        if isinstance(item.get("instrument"), str) and item["instrument"] and "stereotype" in item
    }
    return canonical_sha256(table) if table else None
