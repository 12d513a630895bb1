"""Run as a script (with tests/support/kill_hook on PYTHONPATH and SYMPHONY_KILL_AT set): drives
`symphony-bench`'s own entry point (`plugin.cli.main`) in this one process, stopping the command
with a real SIGTERM at each file step of its outputs in turn, and writes what each stop left.

    kill_loop.py SPEC.json RESULT.json

SPEC: {"out": folder, "old": args, "new": args}. The old command's outputs are put back in `out`
before each stop; RESULT: {"old": snapshot, "new": snapshot, "stops": [{"kill_at", "status",
"files"}]}, a snapshot mapping each file under `out` (hidden ones included) to its SHA-256."""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import shutil
import sys
from pathlib import Path

import matplotlib
import sitecustomize  # the kill hook: on PYTHONPATH

from symphony_bench.plugin.cli import main


def snapshot(folder: Path) -> dict[str, str]:
    return {
        path.relative_to(folder).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


def run(args: list[str], kill_at: int) -> int:
    sitecustomize.stepping.kill_at, sitecustomize.stepping.steps = kill_at, 0
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        return main(args)


def stops(spec: dict) -> dict:
    out = Path(spec["out"])
    kept = out.with_name(out.name + "-old")
    run(spec["old"], 0)
    old = snapshot(out)
    shutil.copytree(out, kept)
    run(spec["new"], 0)
    result = {"old": old, "new": snapshot(out), "steps": sitecustomize.stepping.steps, "stops": []}
    for kill_at in range(1, result["steps"] + 1):
        shutil.rmtree(out)
        shutil.copytree(kept, out)
        status = run(spec["new"], kill_at)
        result["stops"].append({"kill_at": kill_at, "status": status, "files": snapshot(out)})
    return result


if __name__ == "__main__":
    matplotlib.rcParams["svg.hashsalt"] = "kill-loop"  # the same figures, byte for byte
    spec_file, result_file = map(Path, sys.argv[1:])
    result_file.write_text(json.dumps(stops(json.loads(spec_file.read_text()))))
