"""`symphony-bench tcav` through the installed console script: an analysis, and a bad input's exit."""

from __future__ import annotations

import json

import pytest
from support.harness import executable, run_cli
from support.tcav import write_embedding_inputs

SYMPHONY_BENCH = executable("symphony-bench")


@pytest.mark.e2e
def test_tcav_analyse_through_the_console_script(tmp_path):
    metadata = write_embedding_inputs(tmp_path)
    common = [
        SYMPHONY_BENCH,
        "tcav",
        "analyse",
        "--metadata",
        str(metadata),
        "--embeddings",
        str(tmp_path / "emb.npy"),
        "--ids",
        str(tmp_path / "ids.txt"),
        "--runs",
        "20",
        "--threads",
        "1",
    ]
    completed = run_cli(
        common + ["--out", str(tmp_path / "out"), "--concept", "gender=female"], cwd=tmp_path
    )
    assert completed.returncode == 0, completed.stderr[-4000:]
    assert (
        "gender=female (CAV accuracy" in completed.stdout
        and f"wrote {tmp_path / 'out'}" in completed.stdout
    )
    assert json.loads((tmp_path / "out" / "tcav.json").read_text())["n_tests"] == 4

    completed = run_cli(
        common + ["--out", str(tmp_path / "bad"), "--concept", "language=xx"], cwd=tmp_path
    )
    assert completed.returncode == 2
    assert (
        "symphony-bench: error:" in completed.stderr
        and "no track has language='xx'" in completed.stderr
    )
    assert not (tmp_path / "bad").exists()
