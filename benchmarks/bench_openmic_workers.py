"""OpenMIC diagnostics build on 1 and on W worker processes (`build openmic --workers`): seconds,
archive clips per second, the ratio, and whether the two outputs are the same bytes. Each build
runs in a fresh process; the SynthMIC archive is rendered first and not timed.

    python benchmarks/bench_openmic_workers.py [--clips 400] [--workers 2]
"""

from __future__ import annotations

import argparse
import json
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
    args = parser.parse_args()
    from symphony_bench.hub_upload import synthmic

    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        start = time.perf_counter()
        archive = synthmic.build(root / "archive", clips=args.clips, seed=0, workers=args.workers)
        print(f"rendered {args.clips} SynthMIC clips in {time.perf_counter() - start:.1f} s")
        serial = timed_build(archive, root / "serial", 1)
        parallel = timed_build(archive, root / "parallel", args.workers)
        print(
            json.dumps(
                {
                    "clips": args.clips,
                    "seconds_1_worker": round(serial, 2),
                    f"seconds_{args.workers}_workers": round(parallel, 2),
                    "clips_per_s_1_worker": round(args.clips / serial, 1),
                    f"clips_per_s_{args.workers}_workers": round(args.clips / parallel, 1),
                    "throughput_ratio": round(serial / parallel, 2),
                    "same_bytes": same_bytes(root / "serial", root / "parallel"),
                },
                indent=1,
            )
        )


if __name__ == "__main__":
    main()
