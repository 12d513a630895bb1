"""`symphony-bench leaderboard` over 50 run folders, made by copying one real lm-eval run (the
Likert and log-prob mini tasks) and perturbing each copy: another model id and, per copy, a share
of the Likert answers replaced by other valid ones, so every copy has its own numbers.

    python benchmarks/bench_leaderboard.py RUN_FOLDER [--runs 50]

RUN_FOLDER: a model folder written by `lm_eval ... --log_samples` with symphony-bench tasks (the
e2e tests and `./run.sh main` make one). Prints the time of build_leaderboard + writing the three
files (best of 3), and the per-run time. Target: <= 5 s for 50 runs on 2 cores.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import tempfile
import time
from pathlib import Path

from symphony_bench.plugin.core.atomic import staged_outputs
from symphony_bench.plugin.runs import samples
from symphony_bench.plugin.runs.leaderboard import build_leaderboard, write_leaderboard
from symphony_bench.plugin.runs.samples import sample_record


def perturbed_copy(
    source: Path, target: Path, model_id: str, share_changed: float, rng: random.Random
) -> None:
    target.mkdir(parents=True)
    for path in source.iterdir():
        if path.name.startswith("results") and path.suffix == ".json":
            results = json.loads(path.read_text())
            results["config"]["model_args"]["pretrained"] = model_id
            (target / path.name).write_text(json.dumps(results))
        elif path.suffix == ".jsonl":
            lines = [
                _perturbed_sample(json.loads(line), share_changed, rng)
                for line in path.read_text().splitlines()
                if line
            ]
            (target / path.name).write_text("\n".join(lines) + "\n")


def _perturbed_sample(sample: dict, share_changed: float, rng: random.Random) -> str:
    record = sample_record(sample)
    if record and record["kind"] == "symphony_bias.likert" and rng.random() < share_changed:
        new = {**record, "error": "", "scores": [rng.randint(1, 5) for _ in range(3)]}
        sample.update(
            {
                key: new
                for key, value in sample.items()
                if isinstance(value, dict) and value.get("kind")
            }
        )
    return json.dumps(sample)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run_folder", type=Path)
    parser.add_argument("--runs", type=int, default=50)
    args = parser.parse_args()
    rng = random.Random(20240611)
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        run_dirs = []
        for k in range(args.runs):
            run_dir = root / f"run{k:02d}"
            perturbed_copy(
                args.run_folder, run_dir / "model", f"org/model-{k:02d}", rng.uniform(0.0, 0.5), rng
            )
            run_dirs.append(run_dir)
        docs = sum(1 for path in (run_dirs[0] / "model").glob("*.jsonl") for _ in path.open())
        timings = []
        for _ in range(3):
            shutil.rmtree(root / "board", ignore_errors=True)
            samples._parsed_samples.cache_clear()  # cold: every file parsed as in a fresh process
            start = time.perf_counter()
            board = build_leaderboard(run_dirs)
            with staged_outputs() as outputs:
                write_leaderboard(board, root / "board", outputs)
            timings.append(time.perf_counter() - start)
        best = min(timings)
        print(
            f"leaderboard over {args.runs} runs ({docs} docs each, {len(board['rows'])} rows): {best:.2f} s "
            f"(best of 3; {best / args.runs * 1000:.0f} ms per run); target <= 5 s: {'met' if best <= 5 else 'NOT met'}"
        )


if __name__ == "__main__":
    main()
