"""OpenMIC diagnostics build on 1 and on W worker processes (`build openmic --workers`): seconds,
archive clips per second, the ratio, and whether the two outputs are the same bytes. Each build
runs in a fresh process; the SynthMIC archive is rendered first and not timed. The 1-worker and
W-worker builds alternate `--repeats` times and the medians are compared: a shared virtual machine
does not always give a process both its cores, and one pair of builds can land on a slow moment.

    python benchmarks/bench_openmic_workers.py [--clips 400] [--workers 2] [--repeats 3]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def timed_build(archive: Path, out: Path, workers: int) -> float:
    code = (
        "import sys, time\n"
        "from pathlib import Path\n"
        "from symphony_bench.hub_upload.openmic import build\n"
        "start = time.perf_counter()\n"
        f"build(Path({str(archive)!r}), Path({str(out)!r}), seed=0, workers={workers})\n"
        "print(time.perf_counter() - start)\n"
    )
    completed = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    return float(completed.stdout.strip().splitlines()[-1])


def same_bytes(first: Path, second: Path) -> bool:
    def files(root: Path) -> dict[str, bytes]:
        return {
            str(path.relative_to(root)): path.read_bytes()
            for path in root.rglob("*")
            if path.is_file()
        }

    return files(first) == files(second)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--clips", type=int, default=400, help="SynthMIC archive size")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    from symphony_bench.hub_upload import synthmic

    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        start = time.perf_counter()
        archive = synthmic.build(root / "archive", clips=args.clips, seed=0, workers=args.workers)
        print(f"rendered {args.clips} SynthMIC clips in {time.perf_counter() - start:.1f} s")
        serial, parallel = [], []
        for repeat in range(args.repeats):
            serial.append(timed_build(archive, root / f"serial{repeat}", 1))
            parallel.append(timed_build(archive, root / f"parallel{repeat}", args.workers))
        one, many = statistics.median(serial), statistics.median(parallel)
        print(
            json.dumps(
                {
                    "clips": args.clips,
                    "seconds_1_worker": [round(s, 2) for s in serial],
                    f"seconds_{args.workers}_workers": [round(s, 2) for s in parallel],
                    "clips_per_s_1_worker": round(args.clips / one, 1),
                    f"clips_per_s_{args.workers}_workers": round(args.clips / many, 1),
                    "throughput_ratio": round(one / many, 2),
                    "same_bytes": all(
                        same_bytes(root / "serial0", root / name)
                        for name in [f"serial{r}" for r in range(1, args.repeats)]
                        + [f"parallel{r}" for r in range(args.repeats)]
                    ),
                },
                indent=1,
            )
        )


if __name__ == "__main__":
    main()
