"""The main job's console (plugin/devtools/job_console.py and scripts/main_job.sh) and the local
model it takes (SYMPHONY_MODEL: a GGUF file or a transformers folder)."""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from symphony_bench.plugin.core.errors import DataFileError
from symphony_bench.plugin.devtools import job_console
from symphony_bench.plugin.devtools.default_model import local_model_path

REPO = Path(__file__).resolve().parents[1]


def tqdm_stream(total: int, what: str = "Running generate_until requests") -> bytes:
    """What lm-eval's bar writes into a pipe: one \\r-update per request, ending in a newline."""
    updates = [
        f"\r{what}: {100 * done // total:3d}%|##   | {done}/{total} [00:0{done % 10}<00:05, 1.0it/s]"
        for done in range(total + 1)
    ]
    return ("".join(updates) + "\n").encode()


class Clock:
    """One second per line read: the rate after the first tenth is constant."""

    def __init__(self, slow_start: float = 0.0) -> None:
        self.now = 0.0
        self.slow_start = slow_start

    def __call__(self) -> float:
        self.now += 1.0 + (self.slow_start if self.now < 10 else 0.0)
        return self.now


def follow(data: bytes, terminal: bool = False, clock=None) -> tuple[str, bytes]:
    out, log = io.StringIO(), io.BytesIO()
    job_console.follow(io.BytesIO(data), log, job_console.Console(out, terminal), clock or Clock())
    return out.getvalue(), log.getvalue()


def test_the_log_keeps_everything_and_the_console_a_few_counter_lines():
    data = b"INFO building contexts\n" * 50 + tqdm_stream(200) + b"|  Tasks  |Version|\n" * 40
    console, log = follow(data)
    assert log == data
    lines = console.splitlines()
    assert len(lines) == job_console.STEPS + 1  # 0, 1/5, ..., 5/5 of the way
    assert lines[0].startswith("  Running generate_until requests: 0/200")
    assert lines[-1].startswith("  Running generate_until requests: 200/200")
    assert "INFO" not in console and "Tasks" not in console


def test_the_estimate_leaves_out_the_slow_start():
    # the first ten updates take 30 s each, the rest 1 s: the time left is read from the rest
    console, _ = follow(tqdm_stream(100), clock=Clock(slow_start=29.0))
    halfway = next(line for line in console.splitlines() if ": 40/100" in line)
    assert "about 1 min 00 s left" in halfway, halfway
    assert "left" not in console.splitlines()[0]


def test_errors_reach_the_console_without_colour():
    data = b"INFO fine\n\x1b[31mERROR\x1b[0m model failed\nTraceback (most recent call last):\n"
    console, _ = follow(data)
    assert console.splitlines() == ["ERROR model failed", "Traceback (most recent call last):"]


def test_on_a_terminal_the_counter_rewrites_one_line():
    console, _ = follow(tqdm_stream(30), terminal=True)
    assert console.count("\n") == 1 and console.count("\r") == 31


def test_a_transformers_folder_is_used_as_it_is_and_anything_else_is_refused(tmp_path):
    folder = tmp_path / "model"
    folder.mkdir()
    with pytest.raises(DataFileError, match="no config.json"):
        local_model_path(folder)
    (folder / "config.json").write_text("{}")
    assert local_model_path(folder) == folder.resolve()
    (tmp_path / "weights.bin").write_bytes(b"x")
    with pytest.raises(DataFileError, match="not a .gguf file"):
        local_model_path(tmp_path / "weights.bin")
    with pytest.raises(DataFileError, match="not a .gguf file"):
        local_model_path(tmp_path / "missing.gguf")


def test_a_broken_gguf_file_is_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.setenv("SYMPHONY_BENCH_CACHE", str(tmp_path / "cache"))
    (tmp_path / "broken.gguf").write_bytes(b"GGUF but not really")
    with pytest.raises(DataFileError, match="transformers cannot load it"):
        local_model_path(tmp_path / "broken.gguf")
    assert not list((tmp_path / "cache").rglob("config.json"))


@pytest.mark.slow
def test_a_gguf_file_is_converted_once_and_cached(tmp_path):
    from symphony_bench.plugin.devtools.default_model import GGUF_FILE, gguf_folder

    gguf = tmp_path / "mine" / "SmolLM2.gguf"
    gguf.parent.mkdir()
    os.symlink(gguf_folder() / GGUF_FILE, gguf)
    environment = {**os.environ, "SYMPHONY_BENCH_CACHE": str(tmp_path / "cache")}

    def folder() -> Path:
        printed = subprocess.run(
            [sys.executable, "-m", "symphony_bench.plugin.cli", "default-model", str(gguf)],
            env=environment,
            capture_output=True,
            text=True,
            check=True,
        )
        return Path(printed.stdout.strip())

    first = folder()
    assert first.parent == tmp_path / "cache" / "models" and (first / "config.json").is_file()
    written = (first / "config.json").stat().st_mtime_ns
    assert folder() == first and (first / "config.json").stat().st_mtime_ns == written


def test_the_main_job_script_parses_and_names_every_step():
    text = (REPO / "scripts" / "main_job.sh").read_text()
    subprocess.run(["bash", "-n", str(REPO / "scripts" / "main_job.sh")], check=True)
    steps = int(text.split("steps=", 1)[1].split()[0])
    assert text.count('\nbanner "') == steps - 1  # the model's banner is one of two branches
    assert shutil.which("bash")


def test_a_bar_update_shows_before_the_next_one_arrives():
    out = io.StringIO()
    chunks = [b"\rRunning loglikelihood requests:   0%|     | 0/1725 [00:00<?, ?it/s]", b""]
    seen_before_second_read = []

    class Pipe:
        def read1(self, size):
            if len(chunks) == 1:
                seen_before_second_read.append(out.getvalue())
            return chunks.pop(0)

    job_console.follow(Pipe(), io.BytesIO(), job_console.Console(out, terminal=False), Clock())
    assert seen_before_second_read == ["  Running loglikelihood requests: 0/1725, 0 s\n"]
