"""A `symphony-bench` command stopped by SIGTERM or SIGHUP at any step of writing its outputs leaves
its earlier outputs intact or the new ones complete, and no hidden file; one killed outright
(SIGKILL) leaves debris that the next run of the command sweeps. The real command runs in a
subprocess; tests/support/kill_hook stops it at the N-th file step of its staged outputs."""

from __future__ import annotations

import json
import os
import random
import sys
from pathlib import Path

import pytest
from support.harness import executable, run_cli
from support.runs import planted_records, write_planted_run

HOOK = Path(__file__).parents[1] / "support" / "kill_hook"
LOOP = Path(__file__).parents[1] / "support" / "kill_loop.py"


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("runs")
    base, candidate = root / "base", root / "candidate"
    write_planted_run(base, "org/base", planted_records(0.0, random.Random(1)))
    write_planted_run(candidate, "org/candidate", planted_records(0.6, random.Random(2)))
    return base, candidate


def command_lines(name: str, runs: tuple[Path, Path], out: Path) -> tuple[list[str], list[str]]:
    """The command writing the earlier outputs into `out`, and the one writing new ones there."""
    base, candidate = map(str, runs)
    files = ["--json", str(out / "r.json"), "--markdown", str(out / "r.md")]
    if name == "report":
        return ["report", base, *files], [
            "report",
            candidate,
            *files,
            "--html",
            str(out / "r.html"),
        ]
    if name == "compare":
        both = ["--n-boot", "20", *files, "--html", str(out / "r.html")]
        return ["compare", base, candidate, *both], ["compare", candidate, base, *both]
    if name == "leaderboard":
        return ["leaderboard", base, "--out", str(out)], [
            "leaderboard",
            base,
            candidate,
            "--out",
            str(out),
        ]
    export = ["--format", "eval-results", "--dataset-id", "org/set", "--out", str(out)]
    return ["export", base, *export], ["export", candidate, *export]


def symphony_bench(args: list[str], cwd: Path, kill_at: int = 0, signal_name: str = "SIGTERM"):
    env = {
        "PYTHONPATH": os.pathsep.join([str(HOOK), os.environ.get("PYTHONPATH", "")]),
        "MPLBACKEND": "Agg",
    }
    if kill_at:
        env |= {"SYMPHONY_KILL_AT": str(kill_at), "SYMPHONY_KILL_SIGNAL": signal_name}
    return run_cli([executable("symphony-bench"), *args], cwd=cwd, timeout=300, env=env)


def hidden(folder: Path) -> list[str]:
    return [path.relative_to(folder).as_posix() for path in folder.rglob(".*")]


def state(found: dict[str, str], old: dict[str, str], new: dict[str, str]) -> str:
    """'old' or 'new' when `found` is exactly one of them; otherwise what is mixed."""
    if found == old:
        return "old"
    if found == new:
        return "new"
    return f"mixed: {sorted(found)} against old {sorted(old)} and new {sorted(new)}"


@pytest.mark.e2e
@pytest.mark.parametrize("name", ["report", "compare", "leaderboard", "export"])
def test_sigterm_at_each_commit_point_leaves_the_old_outputs_or_the_new_ones(name, runs, tmp_path):
    out = tmp_path / "out"
    old_args, new_args = command_lines(name, runs, out)
    spec, result = tmp_path / "spec.json", tmp_path / "result.json"
    spec.write_text(json.dumps({"out": str(out), "old": old_args, "new": new_args}))
    env = {"PYTHONPATH": os.pathsep.join([str(HOOK), os.environ.get("PYTHONPATH", "")])}
    looped = run_cli(
        [sys.executable, str(LOOP), str(spec), str(result)],
        cwd=tmp_path,
        timeout=600,
        env={**env, "SYMPHONY_KILL_AT": "0", "MPLBACKEND": "Agg", "SOURCE_DATE_EPOCH": "0"},
    )
    assert looped.returncode == 0, looped.stderr[-3000:]
    found = json.loads(result.read_text())
    old, new = found["old"], found["new"]
    assert old and new and old != new and found["steps"] >= 3
    assert [stop["kill_at"] for stop in found["stops"]] == list(range(1, found["steps"] + 1))
    for stop in found["stops"]:
        assert stop["status"] == 143, stop
        assert state(stop["files"], old, new) in ("old", "new"), stop["kill_at"]
    assert hidden(out) == []


@pytest.mark.e2e
def test_sighup_mid_commit_and_sigkill_debris_swept_by_the_next_run(runs, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    write_old, write_new = command_lines("report", runs, out)
    symphony_bench(write_old, tmp_path)
    stopped = symphony_bench(write_new, tmp_path, kill_at=5, signal_name="SIGHUP")
    assert stopped.returncode == 128 + 1, stopped.stderr[-2000:]
    assert "Traceback" not in stopped.stderr and hidden(out) == []
    for kill_at in (2, 5):  # a staged file written; the plots folder moved aside
        killed = symphony_bench(write_new, tmp_path, kill_at=kill_at, signal_name="SIGKILL")
        assert killed.returncode == -9
        assert hidden(out) != [], kill_at  # what a killed command leaves
        again = symphony_bench(write_new, tmp_path)
        assert again.returncode == 0, again.stderr[-2000:]
        assert hidden(out) == [], kill_at
