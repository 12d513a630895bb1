"""Long builds show their progress on a terminal, and add nothing to a log."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from support.harness import executable
from support.tcav import write_embedding_inputs
from support.terminal import stderr_on_a_terminal

SYMPHONY_BENCH = executable("symphony-bench")


def build_synthmic(out: Path) -> list[str]:
    return [SYMPHONY_BENCH, "build", "synthmic", "--out", str(out), "--clips", "3", "--seed", "3"]


@pytest.mark.e2e
def test_a_build_on_a_terminal_shows_a_bar_that_reaches_the_end(tmp_path):
    shown = stderr_on_a_terminal(build_synthmic(tmp_path / "tty"))
    assert "rendering clips" in shown and "3/3" in shown
    assert "█" in shown  # a drawn bar


@pytest.mark.e2e
def test_a_build_into_a_log_writes_no_bar(tmp_path):
    completed = subprocess.run(
        build_synthmic(tmp_path / "log"), capture_output=True, text=True, timeout=300, check=True
    )
    assert "rendering clips" not in completed.stderr


@pytest.mark.e2e
def test_tcav_analyse_counts_its_concepts_on_a_terminal_and_not_in_a_log(tmp_path):
    metadata = write_embedding_inputs(tmp_path)
    analyse = [SYMPHONY_BENCH, "tcav", "analyse", "--metadata", str(metadata)]
    analyse += ["--embeddings", str(tmp_path / "emb.npy"), "--ids", str(tmp_path / "ids.txt")]
    analyse += ["--runs", "10", "--concept", "gender=female", "--concept", "language=es"]
    shown = stderr_on_a_terminal([*analyse, "--out", str(tmp_path / "tty")])
    assert "fitting CAVs (concepts)" in shown and "2/2" in shown
    logged = subprocess.run(
        [*analyse, "--out", str(tmp_path / "log")], capture_output=True, text=True, check=True
    )
    assert "fitting CAVs" not in logged.stderr
