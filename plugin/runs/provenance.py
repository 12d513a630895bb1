"""Where a run's numbers come from: model, software versions and, per task, everything whose change
makes two runs incomparable, with one hash over all of it.

Read from a model folder (the folder a harness writes one model's files into): the newest results
file and, per task, the newest samples file. Every per-doc record copies the run's facts from its
doc (plugin.core.run_facts), so a task fact is the one value its records hold (an error naming the
file if they disagree); a benchmark adds the facts only it knows (ReportSection.task_facts, e.g.
the stereotype table). A fact recorded nowhere is None (JSON null), never "N/A".
"""

from __future__ import annotations

import re
from pathlib import Path

from symphony_bench.plugin.core.dataset_source import is_repo_id
from symphony_bench.plugin.core.run_facts import DATA_FIELDS, READER_VERSION, canonical_sha256
from symphony_bench.plugin.runs.files import newest_results_file, newest_samples_files, read_results
from symphony_bench.plugin.runs.samples import SamplesContent, known, single_value
from symphony_bench.plugin.runs.sections import SECTION_OF_KIND, SECTIONS

SECTION_FACTS = tuple(name for section in SECTIONS for name in section.task_facts)
SECTION_RUN_FIELDS = tuple(name for section in SECTIONS for name in section.run_fields)
TASK_FACTS = (
    "version",
    "hash",
    *DATA_FIELDS,
    *SECTION_FACTS,
    *SECTION_RUN_FIELDS,
    "seed",
    "generation",
    READER_VERSION,
)
# Task facts whose difference makes two runs of a task incomparable item by item. The data is
# compared by content (dataset_sha256), not by where it came from: the same content under another
# commit, or embedded instead of fetched, is the same data. lm-eval's task hash is recorded, not
# compared: it covers those provenance fields of the docs, and the model's prompt formatting.
# The generation settings (stop sequences, budget, sampling; a --gen_kwargs override included) change
# what a model writes: two runs generated under other settings are not compared either.
COMPARED_FIELDS = (
    "version",
    "dataset_sha256",
    *SECTION_FACTS,
    *SECTION_RUN_FIELDS,
    "seed",
    "generation",
)
# dataset_path values that name a `datasets` loader, not a dataset (our tasks load data themselves)
LOADER_NAMES = ("csv", "json", "parquet", "arrow", "text", "imagefolder", "audiofolder")


def provenance(model_folder: Path) -> dict:
    """{"model", "versions", "tasks", "config_hash"} of the newest run in `model_folder`."""
    results = read_results(newest_results_file(model_folder))
    config = results.get("config") or {}
    model_args = parse_model_args(config.get("model_args"))
    samples = newest_samples_files(model_folder)
    contents = {
        task: SamplesContent.read(samples.get(task))
        for task in sorted(results.get("configs") or {})
    }
    tasks = {task: task_provenance(task, results, content) for task, content in contents.items()}
    versions = [content.value("symphony_bench_version") for content in contents.values()]
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
            "symphony_bench": single_value(versions, model_folder),
            "transformers": known(results.get("transformers_version")),
        },
        "tasks": tasks,
    }
    return {**facts, "config_hash": canonical_sha256(facts)}


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


def task_provenance(task: str, results: dict, content: SamplesContent) -> dict:
    config = (results.get("configs") or {}).get(task) or {}
    dataset_kwargs = config.get("dataset_kwargs") or {}
    section = SECTION_OF_KIND[content.records[0]["kind"]] if content.records else None
    benchmark_facts = {
        name: fact(content.records) if section and (fact := section.task_facts.get(name)) else None
        for name in SECTION_FACTS
    }
    return {
        "version": known((results.get("versions") or {}).get(task)),
        "hash": known((results.get("task_hashes") or {}).get(task)),
        "dataset_repo": content.value("dataset_repo") or dataset_repo(config.get("dataset_path")),
        "dataset_revision": content.value("dataset_revision")
        or known(dataset_kwargs.get("revision")),
        "dataset_commit": content.value("dataset_commit"),
        "dataset_sha256": content.value("dataset_sha256"),
        "dataset_verified": content.value("dataset_verified"),
        **benchmark_facts,
        **{name: content.value(name) for name in SECTION_RUN_FIELDS},
        "seed": content.value("seed"),
        "generation": generation_settings(config),
        # recorded, not compared: `symphony-bench rescore` reads a run again with another reader
        READER_VERSION: content.value(READER_VERSION),
    }


def generation_settings(task_config: dict) -> dict | None:
    """The generation settings a task ran with, as the harness recorded them in its results file
    (the task's `generation_kwargs` with any `--gen_kwargs` override merged in); None for a task that
    generates nothing (log-likelihood tasks)."""
    if task_config.get("output_type") not in (None, "generate_until"):
        return None
    kwargs = task_config.get("generation_kwargs")
    return dict(sorted(kwargs.items())) if isinstance(kwargs, dict) and kwargs else None


def dataset_repo(dataset_path) -> str | None:
    path = known(dataset_path)
    return None if path in LOADER_NAMES else path


def local_folder_name(dataset: str | None) -> str | None:
    """The last component of a dataset_repo that is a local folder's path as the user gave it
    (`SYMPHONY_AUDIO=/data/openmic`, `--metadata text=~/sets/text`, a task config's local
    dataset_path); None for a Hub repo id, a bare name or nothing recorded."""
    if not isinstance(dataset, str) or is_repo_id(dataset):
        return None
    if not re.search(r"[/\\]", dataset) and not dataset.startswith(("~", ".")):
        return None  # "name": a canonical Hub dataset or a folder of the working directory
    return re.split(r"[/\\]", dataset.rstrip("/\\"))[-1]


def published_task_facts(facts: dict) -> dict:
    """A task's facts as a published leaderboard shows them: a local dataset folder as
    "local folder NAME" (its content is identified by dataset_sha256), never its path, which names
    this machine's folders."""
    name = local_folder_name(facts.get("dataset_repo"))
    if name is None:
        return facts
    return {**facts, "dataset_repo": f"local folder {name}".rstrip()}
