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
from PIL import Image, ImageDraw

from symphony_bench.plugin.core.task_folders import tasks_path
from symphony_bench.plugin.core.errors import forget_announced
from symphony_bench.plugin.core.vocabulary import load_instruments
from symphony_bench.plugin.devtools.tiny_models import build_tiny_llama

OFFLINE_ENV = {
    "HF_HUB_OFFLINE": "1",
    "HF_DATASETS_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "TOKENIZERS_PARALLELISM": "false",
}


@pytest.fixture(autouse=True)
def no_repeated_errors_at_exit():
    """Errors that tests provoke on purpose are not repeated when pytest exits."""
    yield
    forget_announced()


@pytest.fixture(scope="session")
def tiny_llama(tmp_path_factory) -> Path:
    return build_tiny_llama(tmp_path_factory.mktemp("tiny-llama"))


def run_cli(
    args: list[str], cwd: Path, timeout: int = 900, env: dict | None = None
) -> subprocess.CompletedProcess:
    env = {**os.environ, **OFFLINE_ENV, **(env or {})}
    return subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


def _run_harness(
    executable: str, model: str, model_args: str, tasks: str, output: Path, extra, env=None
):
    args = [
        str(Path(sys.executable).with_name(executable)),
        "--model",
        model,
        "--model_args",
        model_args,
        "--tasks",
        tasks,
        "--include_path",
        str(tasks_path(executable.replace("_", "-"))),
        "--output_path",
        str(output),
        "--log_samples",
        *extra,
    ]
    completed = run_cli(args, cwd=output.parent, env=env)
    assert completed.returncode == 0, completed.stderr[-4000:]
    return completed


def run_lm_eval(
    model: str, model_args: str, tasks: str, output: Path, *extra: str
) -> subprocess.CompletedProcess:
    return _run_harness(
        "lm_eval", model, model_args, tasks, output, ["--apply_chat_template", *extra]
    )


def run_lmms_eval(
    model: str, model_args: str, tasks: str, output: Path, env: dict, *extra: str
) -> subprocess.CompletedProcess:
    """lmms-eval exits 0 on many failures: callers check the result and samples files."""
    return _run_harness("lmms-eval", model, model_args, tasks, output, extra, env)


def _only_file(output: Path, pattern: str) -> Path:
    files = sorted(output.rglob(pattern))
    assert len(files) == 1, f"expected one {pattern} file, found {files}"
    return files[0]


def read_samples(output: Path, task: str) -> list[dict]:
    """lm-eval's samples_<task>_<timestamp>.jsonl."""
    return [
        json.loads(line)
        for line in _only_file(output, f"samples_{task}_*.jsonl").read_text().splitlines()
    ]


def read_results(output: Path) -> dict:
    return json.loads(_only_file(output, "results_*.json").read_text())["results"]


def read_lmms_samples(output: Path, task: str) -> list[dict]:
    """lmms-eval's <timestamp>_samples_<task>.jsonl."""
    return [
        json.loads(line)
        for line in _only_file(output, f"*_samples_{task}.jsonl").read_text().splitlines()
    ]


def read_lmms_results(output: Path) -> dict:
    return json.loads(_only_file(output, "*_results.json").read_text())["results"]


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


def pictogram(instrument: str, variant: int) -> Image.Image:
    """A generated stand-in for a photo: a shape whose size and colour encode the instrument."""
    index = [i.name for i in load_instruments()].index(instrument)
    image = Image.new("RGB", (64, 64), "white")
    draw = ImageDraw.Draw(image)
    size = 10 + index * 2
    draw.ellipse(
        (32 - size // 2, 32 - size // 2 + variant, 32 + size // 2, 32 + size // 2),
        fill=(index * 11, 90, 200 - variant * 20),
    )
    return image


def pictogram_photos(folder: Path, per_instrument: int) -> Path:
    """`folder/<instrument>/<k>.png` pictograms plus the `manifest.csv` (CC0, generated) the image builder reads."""
    rows = []
    for instrument in load_instruments():
        (folder / instrument.name).mkdir(parents=True)
        for k in range(per_instrument):
            pictogram(instrument.name, k).save(folder / instrument.name / f"{k}.png")
            rows.append(
                {"file": f"{instrument.name}/{k}.png", "licence": "CC0-1.0", "source": "generated"}
            )
    pd.DataFrame(rows, columns=["file", "licence", "source"]).to_csv(
        folder / "manifest.csv", index=False
    )
    return folder
