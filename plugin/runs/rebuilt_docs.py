"""`verify --docs`: every doc an lm-eval samples file logs, against the doc its task builds now.

Each task is loaded through lm-eval's own task index over this package's task folder, with the
metadata its results file recorded (the `--metadata` options and the model arguments lm-eval
merged in, as at evaluation time), and its docs are built as the evaluation built them; a logged
doc must equal the built doc of its doc_id. lmms-eval logs no doc: nothing to compare there.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

from symphony_bench.plugin.core.task_folders import tasks_path
from symphony_bench.plugin.runs.files import samples_file_match
from symphony_bench.plugin.runs.rereading import SamplesReading, results_stamp_text

# metadata lm-eval adds itself: not an option the docs were built with
HARNESS_METADATA = ("version", "config_source")


def rebuilt_doc_problems(reading: SamplesReading, results: dict) -> tuple[list[str], str]:
    """(the docs of the file that differ from the task's, why the docs could not be built or "")."""
    logged = {
        sample["doc_id"]: sample["doc"]
        for sample in reading.samples.values()
        if isinstance(sample.get("doc"), dict)
    }
    if not logged:
        return [], ""
    config = (results.get("configs") or {}).get(reading.task) or {}
    metadata = {
        key: value
        for key, value in (config.get("metadata") or {}).items()
        if key not in HARNESS_METADATA
    }
    try:
        docs = _built_docs(reading.task, json.dumps(metadata, sort_keys=True))
    except Exception as error:  # noqa: BLE001 - lm-eval raises whatever its loader raised; said, not crashed
        return [], f"{type(error).__name__}: {error}"
    return [
        f"{reading.task} doc {doc_id}"
        for doc_id, doc in sorted(logged.items())
        if not (isinstance(doc_id, int) and 0 <= doc_id < len(docs) and docs[doc_id] == doc)
    ], ""


def _built_docs(task: str, metadata: str) -> list[dict]:
    loaded = _task_index(metadata).load_task_or_group([task])[task]
    # as lm-eval logs a doc: through JSON
    return [json.loads(json.dumps(doc, default=str)) for doc in loaded.eval_docs]


@functools.lru_cache(maxsize=8)
def _task_index(metadata: str):
    """lm-eval's index of our task folder, built once per metadata (JSON text) in a process."""
    from lm_eval.tasks import TaskManager

    return TaskManager(
        include_path=str(tasks_path()), include_defaults=False, metadata=json.loads(metadata)
    )


def results_of(path: Path, results_files: list[Path]) -> Path | None:
    """The results file of the run a samples file belongs to (same folder and time stamp)."""
    stamp = samples_file_match(path.name)["stamp"]
    return next(
        (
            results
            for results in results_files
            if results.parent == path.parent and results_stamp_text(results.name) == stamp
        ),
        None,
    )
