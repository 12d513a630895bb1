"""Start-up time of the `symphony-bench` command: `tasks-path` and `--help` against a bare interpreter
start, median of several runs each, measured in one run (these machines are noisy).

    python benchmarks/bench_cli_startup.py [--runs 15]

Target: `tasks-path` and `--help` in <= 0.3 s (the CLI imports only the standard library before
it parses its arguments; each command imports what it needs when it runs).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

CLI = str(Path(sys.executable).with_name("symphony-bench"))
COMMANDS = {
    "python -c pass (interpreter start)": [sys.executable, "-c", "pass"],
    "symphony-bench tasks-path": [CLI, "tasks-path"],
    "symphony-bench tasks-path --harness lmms-eval": [CLI, "tasks-path", "--harness", "lmms-eval"],
    "symphony-bench --help": [CLI, "--help"],
}


def median_seconds(command: list[str], runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(command, check=True, capture_output=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    runs = parser.parse_args().runs
    # interleave the commands round by round so a burst of load hits all of them alike
    samples: dict[str, list[float]] = {name: [] for name in COMMANDS}
    for _ in range(runs):
        for name, command in COMMANDS.items():
            samples[name].append(median_seconds(command, 1))
    bare = statistics.median(samples["python -c pass (interpreter start)"])
    for name, times in samples.items():
        median = statistics.median(times)
        print(
            f"{name:48s} median {median:.3f} s  ({median / bare:.2f}x the bare interpreter, +{median - bare:.3f} s)"
        )


if __name__ == "__main__":
    main()
