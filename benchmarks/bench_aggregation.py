"""Aggregation over 50,000 docs: our vectorised scenario bootstrap vs lm-eval's bootstrap route.

Prints, from one run: the wall time of the eight harness aggregations (what lm-eval calls at the
end of a task), and the ratio of lm-eval's `bootstrap_stderr` (resampling docs and re-running the
point statistic per iteration) to our 1,000-replicate bootstrap for the same statistic (mean ABS).
lm-eval's route is timed at fewer iterations and scaled linearly to 1,000 (it is a loop over draws).

    python benchmarks/bench_aggregation.py [--docs 50000] [--lm-eval-iters 100]
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

from symphony_bench.metrics import analyse, point_estimates
from symphony_bench.plugin.core.vocabulary import load_instruments
from symphony_bench.plugin.symphony_bias import records as symphony_bias_records
from symphony_bench.plugin.symphony_bias.records import score_record
from symphony_bench.plugin.symphony_bias.scenarios import load_stereotypes


def synthetic_records(n_docs: int, seed: int = 0) -> list[dict]:
    rng = np.random.default_rng(seed)
    instruments = [i.name for i in load_instruments()]
    table = load_stereotypes()
    n_scenarios = -(-n_docs // len(instruments))
    records = []
    for s in range(n_scenarios):
        for name in instruments:
            error = "no_json" if rng.random() < 0.05 else ""
            doc = {
                "scenario_id": f"s{s:05d}",
                "instrument": name,
                "stereotype": table[name].category,
            }
            records.append(score_record(doc, rng.integers(1, 6, size=3).tolist(), error))
    return records[:n_docs]


def mean_abs_point(records) -> float:
    """The point statistic alone, as lm-eval's bootstrap would re-run it per resample."""
    _, abs_scores = point_estimates(symphony_bias_records.records_to_data(records))
    return float(np.nanmean(abs_scores))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--docs", type=int, default=50_000)
    parser.add_argument("--lm-eval-iters", type=int, default=100)
    args = parser.parse_args()
    records = synthetic_records(args.docs)

    start = time.perf_counter()
    for metric in symphony_bias_records.LIKERT_METRICS:
        getattr(symphony_bias_records, metric)(records)
    harness_aggregations = time.perf_counter() - start

    start = time.perf_counter()
    analyse(symphony_bias_records.records_to_data(records), n_boot=1000)
    ours = time.perf_counter() - start

    from lm_eval.api.metrics import bootstrap_stderr

    os.environ["DISABLE_MULTIPROC"] = "1"  # one process, like ours; the pool only divides by cores
    start = time.perf_counter()
    bootstrap_stderr(mean_abs_point, records, iters=args.lm_eval_iters)
    lm_eval_measured = time.perf_counter() - start
    lm_eval_per_1000 = lm_eval_measured * 1000 / args.lm_eval_iters

    print(f"docs: {len(records)}")
    print(
        f"all {len(symphony_bias_records.LIKERT_METRICS)} harness aggregations (4 headline numbers + stderrs): "
        f"{harness_aggregations:.3f} s"
    )
    print(f"one analyse() with 1,000 scenario-bootstrap replicates + t-tests: {ours:.3f} s")
    print(
        f"lm-eval bootstrap_stderr, {args.lm_eval_iters} iterations: {lm_eval_measured:.3f} s "
        f"(scaled to 1,000: {lm_eval_per_1000:.1f} s)"
    )
    print(f"ratio lm-eval route / ours at 1,000 replicates: {lm_eval_per_1000 / ours:.0f}x")


if __name__ == "__main__":
    main()
