"""Run folders as lm-eval writes them, made by hand: results files, samples files with our per-doc
records, and planted Likert records."""

from __future__ import annotations

import json
import random
from pathlib import Path

from symphony_bench.plugin.core.sections import ReportEntry
from symphony_bench.plugin.symphony_bias.records import LIKERT, LIKERT_METRICS, score_record

STAMP = "2026-12-01T04-36-42.029562"
DOC_FIELDS = ("scenario_id", "template_id", "instrument", "stereotype")


def write_samples(path: Path, samples: list) -> Path:
    """A samples file: one JSON line per sample; a sample without a doc_id gets its line's index, as
    the harness numbers docs."""
    path.parent.mkdir(parents=True, exist_ok=True)
    numbered = [
        {"doc_id": k, **sample} if isinstance(sample, dict) and "doc_id" not in sample else sample
        for k, sample in enumerate(samples)
    ]
    path.write_text("".join(json.dumps(sample) + "\n" for sample in numbered))
    return path


def likert_sample(scenario: str, instrument: str, stereotype: str, scores, **doc) -> dict:
    """A text Likert task's sample (without a doc_id): the record under every metric name."""
    record = score_record(
        {"scenario_id": scenario, "instrument": instrument, "stereotype": stereotype, **doc}, scores
    )
    return {metric: record for metric in LIKERT_METRICS}


def record_samples(records: list[dict], doc_fields=DOC_FIELDS) -> list[dict]:
    """Samples (without doc_ids) as lm-eval logs our records: the doc, made of the record's
    `doc_fields` (`()`: an empty doc), and the record under two metric names."""
    return [
        {
            "doc": {key: record[key] for key in doc_fields if key in record},
            "mean_abs": record,
            "invalid_rate": record,
        }
        for record in records
    ]


def lm_eval_results(
    tasks, model_id: str = "org/planted", version=1.1, generation: dict | None = None, **overrides
) -> dict:
    """An lm-eval results file's content with the keys provenance reads (`generation`: the tasks'
    generation_kwargs, as a generation task records them)."""
    generating = {} if generation is None else {"output_type": "generate_until"}
    results = {
        "results": {task: {"mean_abs,likert_json": 0.0} for task in tasks},
        "configs": {
            task: {
                "task": task,
                "metadata": {"version": version},
                **generating,
                **({} if generation is None else {"generation_kwargs": generation}),
            }
            for task in tasks
        },
        "versions": {task: version for task in tasks},
        "task_hashes": {task: "ab" * 32 for task in tasks},
        "config": {
            "model": "hf",
            "model_args": {"pretrained": model_id},
            "model_dtype": "torch.bfloat16",
            "model_revision": "main",
            "model_sha": "0123abcd",
        },
        "lm_eval_version": "0.4.13",
        "transformers_version": "5.24.0",
        "chat_template_sha": "cd" * 32,
    }
    return {**results, **overrides}


def write_model_folder(
    folder: Path,
    tasks: dict[str, list[dict]],
    results: dict | None = None,
    seed: int | None = None,
    stamp: str = STAMP,
) -> Path:
    """An lm-eval model folder: a results file and per task a samples file whose lines hold the doc
    (the record's doc fields) and the record under two metric names. With `seed`, every doc and
    record says that seed (the run fact a run with that seed writes)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"results_{stamp}.json").write_text(json.dumps(results or lm_eval_results(tasks)))
    for task, records in tasks.items():
        records = records if seed is None else [{**record, "seed": seed} for record in records]
        write_samples(folder / f"samples_{task}_{stamp}.jsonl", record_samples(records))
    return folder


PLANTED_INSTRUMENTS = {"harp": "female", "flute": "female", "drums": "male", "trumpet": "male"}


def planted_records(
    effect: float, rng: random.Random, n_templates: int = 8, invalid_share: float = 0.0
) -> list[dict]:
    """Likert records whose stereotyped gender gets `effect` more on average (plus template noise)."""
    records = []
    for t in range(n_templates):
        for scenario in range(2):
            for instrument, category in PLANTED_INSTRUMENTS.items():
                lean = effect + rng.gauss(0, 0.7)
                favoured, other = (3 + lean, 3 - lean)
                male, female = (favoured, other) if category == "male" else (other, favoured)
                scores = [min(5, max(1, round(value))) for value in (male, female, 3)]
                error = "no_json" if rng.random() < invalid_share else ""
                doc = {
                    "scenario_id": f"t{t}-{scenario}",
                    "template_id": f"t{t}",
                    "instrument": instrument,
                    "stereotype": category,
                }
                records.append(score_record(doc, [0, 0, 0] if error else scores, error))
    return records


PLANTED_TASK = "symphony_bias_text_mini"


def write_planted_run(run_dir: Path, model_id: str, records: list[dict], seed: int = 1234) -> Path:
    """`model_id`'s lm-eval model folder under `run_dir` with one Likert task of `records`."""
    folder = run_dir / model_id.replace("/", "__")
    results = lm_eval_results([PLANTED_TASK], model_id)
    return write_model_folder(folder, {PLANTED_TASK: records}, results, seed=seed)


def report_entry(label: str, body: dict, kind: str = LIKERT, **facts) -> ReportEntry:
    """A report entry as `build_report` makes it: `label` is "task" or "folder/task", `facts` what
    the benchmark recorded about its docs (e.g. modality, condition)."""
    folder_label, _, task = label.rpartition("/")
    path = Path(folder_label or ".") / f"samples_{task}_{STAMP}.jsonl"
    return ReportEntry(label, task, kind, None, folder_label, path, body, facts)
