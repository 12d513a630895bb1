"""OpenMIC diagnostics build: throughput (archive clips per second) and peak memory on SynthMIC
archives of several sizes. The builder streams (a clip is decoded only when a row needs it, rows
go to parquet in small batches), so peak memory must not grow with the archive.

Each build runs in a fresh process, since peak resident memory is per process: once timed, once
under tracemalloc (Python and numpy allocations; pyarrow's own buffers are not traced).
Rendering the archives is timed apart and is not part of the build.

    python benchmarks/bench_openmic_build.py [--sizes 500 2000] [--workers 2]
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def measure(archive: Path, out: Path, trace: bool) -> dict:
    """In the child process: one build, with the resident memory after imports as the baseline."""
    import tracemalloc

    import datasets  # noqa: F401  (imported before the baseline is read)
    import pandas  # noqa: F401
    import pyarrow.parquet  # noqa: F401
    import soundfile  # noqa: F401

    from symphony_bench.hub_upload.openmic import build
    from symphony_bench.plugin.core.audio import encode_flac  # noqa: F401

    baseline_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    if trace:
        tracemalloc.start()
    start = time.perf_counter()
    summary = build(archive, out, seed=0)
    seconds = time.perf_counter() - start
    result = {
        "seconds": seconds,
        "rows": sum(summary["counts"].values()),
        "counts": summary["counts"],
        "baseline_mib": baseline_mib,
        "peak_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }
    if trace:
        result["traced_peak_mib"] = tracemalloc.get_traced_memory()[1] / 2**20
    return result


def run_child(archive: Path, out: Path, trace: bool) -> dict:
    command = [sys.executable, __file__, "--child", str(archive), str(out)] + (
        ["--trace"] if trace else []
    )
    completed = subprocess.run(command, capture_output=True, text=True, check=True)
    return json.loads(completed.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument(
        "--sizes", type=int, nargs="+", default=[500, 2000], help="archive sizes in clips"
    )
    parser.add_argument("--workers", type=int, default=2, help="processes rendering the archives")
    parser.add_argument(
        "--child", nargs=2, type=Path, metavar=("ARCHIVE", "OUT"), help=argparse.SUPPRESS
    )
    parser.add_argument("--trace", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(measure(*args.child, trace=args.trace)))
        return

    from symphony_bench.hub_upload import synthmic

    results = {}
    print(
        f"{'clips':>6} {'render s':>9} {'build s':>8} {'clips/s':>8} {'rows':>6} {'peak RSS MiB':>13} "
        f"{'RSS growth MiB':>15} {'traced peak MiB':>16}"
    )
    for size in args.sizes:
        with tempfile.TemporaryDirectory() as folder:
            start = time.perf_counter()
            archive = synthmic.build(
                Path(folder) / "archive", clips=size, seed=0, workers=args.workers
            )
            render_seconds = time.perf_counter() - start
            timed = run_child(archive, Path(folder) / "timed", trace=False)
            traced = run_child(archive, Path(folder) / "traced", trace=True)
        results[size] = {**timed, "traced_peak_mib": traced["traced_peak_mib"]}
        growth = timed["peak_mib"] - timed["baseline_mib"]
        print(
            f"{size:>6} {render_seconds:>9.1f} {timed['seconds']:>8.1f} {size / timed['seconds']:>8.1f} "
            f"{timed['rows']:>6} "
            f"{timed['peak_mib']:>13.0f} {growth:>15.0f} {traced['traced_peak_mib']:>16.1f}",
            flush=True,
        )
        print(f"       rows per config: {timed['counts']}", flush=True)
    small, large = results[min(args.sizes)], results[max(args.sizes)]
    growth = (large["peak_mib"] - large["baseline_mib"]) / (
        small["peak_mib"] - small["baseline_mib"]
    )
    print(
        f"peak memory ratio, {max(args.sizes)} vs {min(args.sizes)} clips: resident "
        f"{large['peak_mib'] / small['peak_mib']:.2f}, "
        f"growth over imports {growth:.2f}, "
        f"traced {large['traced_peak_mib'] / small['traced_peak_mib']:.2f} (archive ratio "
        f"{max(args.sizes) / min(args.sizes):.1f})"
    )


if __name__ == "__main__":
    main()
