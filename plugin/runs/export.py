"""`symphony-bench export RUN_DIR --format hf-leaderboard|eval-results --out PATH`: one model's run in
the shapes Hugging Face tools read.

- hf-leaderboard: the results file of Hugging Face's leaderboard template (demo-leaderboard Space,
  README "Results files should have the following format"): {"config": {"model_dtype",
  "model_name", "model_sha"}, "results": {task: {metric: score}}}. Every headline metric and its
  stderr; a value the run could not compute is null (the template skips a task with a None score).
- eval-results: the Hub's model-repo evaluation results (https://huggingface.co/docs/hub/eval-results):
  files for the repo's `.eval_results/` folder, each a YAML list of {dataset: {id, task_id,
  revision?}, value, notes?}; one file per report entry with its ranking metric (plugin/runs/leaderboard.py),
  the 95% interval, invalid rate, n and config hash in the notes.

"""

from __future__ import annotations

import json
import re
from pathlib import Path

import yaml

from symphony_bench.plugin.core.errors import DataFileError
from symphony_bench.plugin.runs.leaderboard import run_rows

HUB_REPO_ID = re.compile(r"^[A-Za-z0-9][\w.-]*/[\w.-]+$")
TORCH_DTYPES = ("float16", "bfloat16", "float32", "float64")


def model_rows(run_dir: Path) -> list[dict]:
    """The leaderboard rows of the one model folder under `run_dir`."""
    rows = run_rows(run_dir)
    runs = sorted({row["run"] for row in rows})
    if len(runs) > 1:
        raise DataFileError(
            f"{run_dir}: holds runs of {len(runs)} model folders ({', '.join(runs)}); export one at a time"
        )
    return rows


# ---- hf-leaderboard ------------------------------------------------------------------------------
def hf_leaderboard_results(rows: list[dict]) -> dict:
    model = rows[0]["provenance"]["model"]
    results = {}
    for row in rows:
        scores = {}
        for name, metric in [*row["metrics"].items(), ("invalid_rate", row["invalid_rate"])]:
            if metric is not None:
                scores[name], scores[f"{name}_stderr"] = metric["value"], metric["stderr"]
        results[row["entry"]] = scores
    return {
        "config": {
            "model_dtype": hf_dtype(model["dtype"]),
            "model_name": row_model_name(rows[0]),
            "model_sha": model_sha(model),
        },
        "results": results,
    }


COMMIT = re.compile(r"[0-9a-f]{7,40}")


def model_sha(model: dict) -> str:
    """The model's commit: its recorded sha, else a revision that is a commit hash; a revision that
    names a branch or tag ("main", "v1") is no sha (the template's field would claim a commit)."""
    if model["sha"]:
        return model["sha"]
    revision = model["revision"] or ""
    return revision if COMMIT.fullmatch(revision) else ""


def hf_dtype(dtype: str | None) -> str | None:
    """The template writes torch dtypes as "torch.float16"; other precisions ("8bit") as they are."""
    return f"torch.{dtype}" if dtype in TORCH_DTYPES else dtype


def row_model_name(row: dict) -> str:
    return row["provenance"]["model"]["id"] or row["model"]


def export_files(
    rows: list[dict], export_format: str, out: Path, dataset_id: str | None
) -> dict[Path, str]:
    """{path: text} of the files an export writes: hf-leaderboard one JSON file `out`, eval-results
    one YAML file per entry in the folder `out`."""
    if export_format == "hf-leaderboard":
        return {out: json.dumps(hf_leaderboard_results(rows), indent=2, allow_nan=False) + "\n"}
    return {
        out / name: yaml.safe_dump(entries, sort_keys=False, allow_unicode=True)
        for name, entries in eval_results_entries(rows, dataset_id).items()
    }


# ---- eval-results --------------------------------------------------------------------------------
def eval_results_entries(rows: list[dict], dataset_id: str | None) -> dict[str, list[dict]]:
    """{file name: the YAML list of one entry} per report entry with a value."""
    files = {}
    for row in rows:
        metric = row["metrics"].get(row["rank"]["metric"])
        if metric is None or metric["value"] is None:
            continue
        task = row["provenance"]["task"]
        repo = (
            task["dataset_repo"]
            if task["dataset_repo"] and HUB_REPO_ID.match(task["dataset_repo"])
            else dataset_id
        )
        if repo is None:
            raise DataFileError(
                f"{row['run']}: {row['entry']} records no Hub dataset id; pass --dataset-id"
            )
        dataset = {"id": repo, "task_id": row["entry"]}
        if task["dataset_revision"] and repo == task["dataset_repo"]:
            dataset["revision"] = task["dataset_revision"]
        files[safe_file_name(row["entry"]) + ".yaml"] = [
            {"dataset": dataset, "value": metric["value"], "notes": notes(row, metric)}
        ]
    return files


def notes(row: dict, metric: dict) -> str:
    low, high = metric["ci"]
    interval = "n/a" if low is None else f"[{low:.4f}, {high:.4f}]"
    invalid = row["invalid_rate"]["value"] if row["invalid_rate"] else None
    digest = row["provenance"]["task"].get("dataset_sha256")
    return (
        f"{row['rank']['metric']}; 95% CI {interval}; invalid rate "
        f"{'n/a' if invalid is None else f'{invalid:.4f}'}; n={row['n']}; data sha256 "
        f"{digest or 'n/a'}; symphony-bench config {row['provenance']['config_hash'][:12]}"
    )


def safe_file_name(entry: str) -> str:
    return re.sub(r"[^\w.-]+", "_", entry)
