"""Shared fixtures: a tiny random chat model built locally, and helpers to drive the real CLIs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from symphony_bench.plugin.cli import tasks_path
from symphony_bench.plugin.tiny_models import build_tiny_llama

OFFLINE_ENV = {"HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}


@pytest.fixture(scope="session")
def tiny_llama(tmp_path_factory) -> Path:
    return build_tiny_llama(tmp_path_factory.mktemp("tiny-llama"))


def run_cli(args: list[str], cwd: Path, timeout: int = 900) -> subprocess.CompletedProcess:
    env = {**os.environ, **OFFLINE_ENV}
    return subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


def run_lm_eval(model: str, model_args: str, tasks: str, output: Path, *extra: str) -> subprocess.CompletedProcess:
    lm_eval = Path(sys.executable).with_name("lm_eval")
    args = [
        str(lm_eval), "--model", model, "--model_args", model_args, "--tasks", tasks,
        "--include_path", str(tasks_path()), "--output_path", str(output), "--log_samples",
        "--apply_chat_template", *extra,
    ]
    completed = run_cli(args, cwd=output.parent)
    assert completed.returncode == 0, completed.stderr[-4000:]
    return completed


def read_samples(output: Path, task: str) -> list[dict]:
    files = sorted(output.rglob(f"samples_{task}_*.jsonl"))
    assert len(files) == 1, f"expected one samples file for {task}, found {files}"
    return [json.loads(line) for line in files[0].read_text().splitlines()]


def read_results(output: Path) -> dict:
    files = sorted(output.rglob("results_*.json"))
    assert len(files) == 1, f"expected one results file, found {files}"
    return json.loads(files[0].read_text())["results"]


def run_lmms_eval(model: str, model_args: str, tasks: str, output: Path, env: dict, *extra: str) -> subprocess.CompletedProcess:
    """lmms-eval exits 0 on many failures: callers check the result and samples files."""
    lmms_eval = Path(sys.executable).with_name("lmms-eval")
    args = [
        str(lmms_eval), "--model", model, "--model_args", model_args, "--tasks", tasks,
        "--include_path", str(tasks_path()), "--output_path", str(output), "--log_samples", *extra,
    ]
    completed = subprocess.run(
        args, cwd=output.parent, env={**os.environ, **OFFLINE_ENV, **env}, capture_output=True, text=True, timeout=900
    )
    assert completed.returncode == 0, completed.stderr[-4000:]
    return completed


def read_lmms_samples(output: Path, task: str) -> list[dict]:
    files = sorted(output.rglob(f"*_samples_{task}.jsonl"))
    assert len(files) == 1, f"expected one samples file for {task}, found {files}"
    return [json.loads(line) for line in files[0].read_text().splitlines()]


def read_lmms_results(output: Path) -> dict:
    files = sorted(output.rglob("*_results.json"))
    assert len(files) == 1, f"expected one results file, found {files}"
    return json.loads(files[0].read_text())["results"]


def expected_association(frame: pd.DataFrame, stereotypes: dict) -> tuple[pd.DataFrame, dict]:
    """GAS/ABS per instrument and the headline numbers, computed with pandas from a frame with one row
    per doc: scenario, instrument, valid, male, female, non_binary (Likert values)."""
    valid = frame[frame.valid].copy()
    total = valid[["male", "female", "non_binary"]].sum(axis=1)
    for g in ("male", "female", "non_binary"):
        valid[g] = valid[g] / total
    gas = valid.groupby("instrument")[["male", "female", "non_binary"]].mean() - 1 / 3
    sign = gas.index.map(lambda name: {"male": 1.0, "female": -1.0}.get(stereotypes[name], np.nan))
    abs_ = (gas.male - gas.female) * sign
    categorised = abs_.dropna()
    headline = {
        "consistency_rate": float((categorised > 0).mean()),
        "mean_abs": float(categorised.mean()),
        "non_binary_gas": float(gas.non_binary.mean()),
        "invalid_rate": float((~frame.valid).mean()),
    }
    counts = frame.groupby("instrument").valid.agg(["sum", "size"])
    gas["abs"] = abs_
    gas["n_valid"] = counts["sum"]
    gas["n_invalid"] = counts["size"] - counts["sum"]
    return gas, headline
