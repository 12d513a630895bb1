"""A builder on 1 and on W worker processes: seconds, the throughput ratio, and whether the outputs
are the same bytes. `openmic`: `build openmic` on a SynthMIC archive (rendered first, not timed);
`voice`: the default speaker-voice set (`build symphony-bias-voice`). Each build runs in a fresh
process. The 1-worker and W-worker builds alternate `--repeats` times and the medians are compared:
a shared virtual machine does not always give a process both its cores, and one pair of builds can
land on a slow moment.

    python benchmarks/bench_builder_workers.py [--builder openmic|voice] [--clips 400] [--workers 2] [--repeats 3]
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

BUILDS = {
    "openmic": "from symphony_bench.hub_upload.openmic import build\n"
    "build(Path({archive!r}), Path({out!r}), seed=0, workers={workers})\n",
    "voice": "from symphony_bench.hub_upload.symphony_bias_voice import build\n"
    "build(Path({out!r}), workers={workers})\n",
}


def timed_build(builder: str, archive: Path, out: Path, workers: int) -> float:
    code = (
        "import time\n"
        "from pathlib import Path\n"
        "start = time.perf_counter()\n"
        + BUILDS[builder].format(archive=str(archive), out=str(out), workers=workers)
        + "print(time.perf_counter() - start)\n"
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


def synthmic_archive(root: Path, clips: int, workers: int) -> Path:
    from symphony_bench.hub_upload import synthmic

    start = time.perf_counter()
    archive = synthmic.build(root / "archive", clips=clips, seed=0, workers=workers)
    print(f"rendered {clips} SynthMIC clips in {time.perf_counter() - start:.1f} s")
    return archive


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--builder", choices=sorted(BUILDS), default="openmic")
    parser.add_argument("--clips", type=int, default=400, help="SynthMIC archive size (openmic)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        archive = (
            synthmic_archive(root, args.clips, args.workers) if args.builder == "openmic" else root
        )
        serial, parallel = [], []
        for repeat in range(args.repeats):
            serial.append(timed_build(args.builder, archive, root / f"serial{repeat}", 1))
            parallel.append(
                timed_build(args.builder, archive, root / f"parallel{repeat}", args.workers)
            )
        one, many = statistics.median(serial), statistics.median(parallel)
        print(
            json.dumps(
                {
                    "builder": args.builder,
                    "seconds_1_worker": [round(s, 2) for s in serial],
                    f"seconds_{args.workers}_workers": [round(s, 2) for s in parallel],
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
