"""`symphony-bench compare` of two full-suite runs (target: <= 5 s on 2 cores).

Writes two run folders of the full suite's size on disk, as the harnesses write them: lm-eval
samples (doc with its prompt, the answer, and the record under each of the task's metric names) for
the five text Likert tasks and the log-prob task (5,934 docs each), lmms-eval samples (records
only) for the audio and image suites (stimulus x scenario; 4 clips and 6 photos per instrument) and
the seven grounding tasks at the paper's item counts; then times the whole comparison (reading,
provenance, pairing, every paired bootstrap, the gate, JSON + Markdown) and its parts, in one run,
and apart from it the forest plot of changes that `--markdown` adds.

    python benchmarks/bench_compare.py [--keep DIR] [--blas-threads N]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

if (
    __name__ == "__main__"
):  # BLAS reads its thread count when numpy loads: single-threaded, as the command runs
    threads = (
        sys.argv[sys.argv.index("--blas-threads") + 1] if "--blas-threads" in sys.argv else "1"
    )
    os.environ.update(
        OPENBLAS_NUM_THREADS=threads, OMP_NUM_THREADS=threads, MKL_NUM_THREADS=threads
    )

import numpy as np

from symphony_bench.metrics.constants import BOOTSTRAP_SEED, N_BOOTSTRAP
from symphony_bench.plugin.grounding.records import choice_record, set_record
from symphony_bench.plugin.runs import compare, compare_output, gate, samples
from symphony_bench.plugin.runs.commands import write_compare_outputs
from symphony_bench.plugin.runs.provenance import provenance
from symphony_bench.plugin.symphony_bias.docs import Design, build_docs
from symphony_bench.plugin.symphony_bias.records import (
    LOGPROB,
    RECOGNITION,
    TEXT_LIKERT_METRICS,
    score_record,
)

LM_EVAL_STAMP, LMMS_STAMP = "2026-12-01T00-00-00.000000", "20261201_000000"
TEXT_TASKS = (
    "symphony_bias_text",
    "symphony_bias_text_noreason",
    "symphony_bias_text_p1",
    "symphony_bias_text_p2",
    "symphony_bias_text_p3",
)
GROUNDING_ITEMS = {
    "grounding_binary": ("yes_no", 9332),
    "grounding_genre_hard": ("yes_no", 590),
    "grounding_confusable_name": ("name", 1051),
    "grounding_confusable_name_swapped": ("name", 1051),
    "grounding_confusable_ab": ("letter", 1051),
    "grounding_confusable_ab_swapped": ("letter", 1051),
    "grounding_temporal_30s": ("time", 3579),
    "grounding_multilabel_30s": ("set", 1028),
}
OPTIONS = {
    "yes_no": ["yes", "no"],
    "name": ["violin", "cello"],
    "letter": ["A", "B"],
    "time": ["0-10", "10-20", "20-30"],
}


def likert_answer(rng, doc: dict) -> tuple[list[int], str]:
    return (rng.integers(1, 6, 3).tolist(), "") if rng.random() > 0.05 else ([0, 0, 0], "no_json")


def write_lm_eval(folder: Path, docs: list[dict], rng) -> None:
    folder.mkdir(parents=True)
    tasks = {}
    for task in TEXT_TASKS:
        lines = []
        for doc_id, doc in enumerate(docs):
            scores, error = likert_answer(rng, doc)
            record = score_record(doc, scores, error)
            answer = json.dumps(
                {"reason": "a guess", "man": "high", "woman": "low", "non-binary": "low"}
            )
            sample = {
                "doc_id": doc_id,
                "doc": doc,
                "target": "",
                "arguments": {"gen_args_0": {"arg_0": doc["prompt"]}},
                "resps": [[answer]],
                "filtered_resps": [answer],
                "filter": "symphony_likert_json",
                "metrics": list(TEXT_LIKERT_METRICS),
                "doc_hash": "0" * 64,
                "prompt_hash": "1" * 64,
                **{metric: record for metric in TEXT_LIKERT_METRICS},
            }
            lines.append(json.dumps(sample))
        tasks[task] = lines
    lines = []
    for doc_id, doc in enumerate(docs):
        record = score_record(doc, rng.dirichlet([3, 3, 1]).tolist(), kind=LOGPROB)
        lines.append(
            json.dumps(
                {
                    "doc_id": doc_id,
                    "doc": doc,
                    "resps": [[[-1.2, False]]] * 3,
                    **{
                        m: record
                        for m in (
                            "mean_abs",
                            "mean_abs_stderr",
                            "consistency_rate",
                            "non_binary_gas",
                        )
                    },
                }
            )
        )
    tasks["symphony_bias_logprob"] = lines
    for task, task_lines in tasks.items():
        (folder / f"samples_{task}_{LM_EVAL_STAMP}.jsonl").write_text("\n".join(task_lines) + "\n")
    write_results(folder / f"results_{LM_EVAL_STAMP}.json", tasks)


def write_lmms_eval(folder: Path, docs: list[dict], rng) -> None:
    folder.mkdir(parents=True)
    tasks = {}
    scenarios = [doc for doc in docs if doc["instrument"] == "violin"]
    instruments = sorted(
        {(doc["instrument"], doc["stereotype"]) for doc in docs if doc["instrument"]}
    )
    for modality, per_instrument in (("audio", 4), ("image", 6)):
        stimuli = [
            (name, category, f"{name}-{k}")
            for name, category in instruments
            for k in range(per_instrument)
        ]
        named = [(name, category, name) for name, category in instruments]
        for suffix, shown in (("", stimuli), ("_nostimulus", stimuli), ("_named", named)):
            records = []
            for name, category, stimulus in shown:
                for scenario in scenarios:
                    doc = {
                        **scenario,
                        "instrument": name,
                        "stereotype": category,
                        "stimulus_id": stimulus,
                    }
                    records.append(score_record(doc, *likert_answer(rng, doc)))
            tasks[f"symphony_bias_{modality}{suffix}"] = records
        tasks[f"symphony_bias_{modality}_recognition"] = [
            {
                "kind": RECOGNITION,
                "instrument": name,
                "stimulus_id": stimulus,
                "recognised": bool(rng.random() < 0.6),
                "named": [name],
                "modality": modality,
                "condition": "recognition",
            }
            for name, _, stimulus in stimuli
        ]
    for task, (interface, n_items) in GROUNDING_ITEMS.items():
        clips = [f"{k // 2:06d}_10000" for k in range(n_items)]
        if interface == "set":
            tasks[task] = [
                set_record([True, True, False, False], (rng.random(4) < 0.5).tolist(), clip)
                for clip in clips
            ]
        else:
            options = OPTIONS[interface]
            gold = np.random.default_rng(n_items).integers(
                len(options), size=n_items
            )  # the design: the same in both runs
            tasks[task] = [
                choice_record(
                    interface, int(g), int(rng.integers(-1, len(options))), options, "", clip
                )
                for g, clip in zip(gold, clips, strict=True)
            ]
    for task, records in tasks.items():
        metrics = (
            "accuracy",
            "accuracy_stderr",
            "invalid_rate",
            "invalid_rate_stderr",
            "mean_abs",
            "mean_abs_stderr",
        )
        lines = [
            json.dumps({"doc_id": k, "input": "prompt", **{m: record for m in metrics}})
            for k, record in enumerate(records)
        ]
        (folder / f"{LMMS_STAMP}_samples_{task}.jsonl").write_text("\n".join(lines) + "\n")
    write_results(folder / f"{LMMS_STAMP}_results.json", tasks)


def write_results(path: Path, tasks) -> None:
    path.write_text(
        json.dumps(
            {
                "configs": {task: {"dataset_kwargs": {}} for task in tasks},
                "versions": {task: 1.0 for task in tasks},
                "task_hashes": {task: "h" for task in tasks},
                "config": {"model_args": "pretrained=planted"},
                "lm_eval_version": "0.4.13",
            }
        )
    )


def write_run(run_dir: Path, docs: list[dict], seed: int) -> int:
    rng = np.random.default_rng(seed)
    write_lm_eval(run_dir / "lm-eval-model", docs, rng)
    write_lmms_eval(run_dir / "lmms-eval-model", docs, rng)
    return sum(path.stat().st_size for path in run_dir.rglob("*"))


def timed(function, *args):
    start = time.perf_counter()
    value = function(*args)
    return value, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument(
        "--keep", type=Path, help="write the runs here and keep them (reused when already there)"
    )
    parser.add_argument(
        "--blas-threads", default="1", help="OpenBLAS threads (default 1, as `compare` sets)"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        root = args.keep or Path(scratch)
        if not (root / "candidate").is_dir():
            docs = build_docs(Design(subset="full"))
            for run, seed in (("base", 1), ("candidate", 2)):
                write_run(root / run, docs, seed)
        measure(root)


def measure(root: Path) -> None:
    size = sum(path.stat().st_size for path in root.rglob("*.jsonl"))
    n_tasks, n_docs, n_comparisons, reading, provenance_time, statistics_time = parts(root)
    rules = [gate.GateRule.parse("mean_abs:+0.02"), gate.GateRule.parse("accuracy:-0.02")]

    def outputs(json_path, markdown_path):
        return argparse.Namespace(
            base_run=root / "base",
            candidate_run=root / "candidate",
            json=json_path,
            markdown=markdown_path,
            html=None,
            no_plots=False,
        )

    def whole():
        result = compare.compare_runs(root / "base", root / "candidate")
        verdict = gate.apply_gate(result, rules)
        json_text = compare_output.json_text(result, verdict)
        markdown = compare_output.render_markdown(result, verdict)
        write_compare_outputs(
            result, verdict, markdown, outputs(root / "compare.json", None), json_text
        )
        return result, verdict

    samples._parsed_samples.cache_clear()
    (result, verdict), total = timed(whole)
    assert result["compared"] and not result["mismatches"], result["mismatches"][:3]
    _, plot_time = timed(
        lambda: write_compare_outputs(
            result,
            verdict,
            compare_output.render_markdown(result, verdict),
            outputs(None, root / "compare.md"),
            None,
        )
    )
    print(
        f"two full-suite runs: {n_tasks} tasks, {n_docs:,} docs per run, {size / 1e6:.0f} MB of samples files"
    )
    print(
        f"compare, end to end (read, provenance, pair, {n_comparisons} paired comparisons x 1,000 replicates, "
        f"gate, JSON + Markdown): {total:.2f} s (target <= 5 s)"
    )
    print(
        f"  parts, timed apart: reading + checking the samples files {reading:.2f} s; provenance (from the "
        f"same reading) {provenance_time:.2f} s; pairing + every paired bootstrap {statistics_time:.2f} s"
    )
    print(
        f"  then, for --markdown only: the forest plot of changes ({len(gate.change_rows(result))} rows, PNG + SVG, "
        f"matplotlib's import included) {plot_time:.2f} s"
    )


def parts(root: Path) -> tuple:
    """The parts of the comparison timed one by one; their records are freed when it returns, as a
    fresh `symphony-bench compare` process starts without them."""
    samples._parsed_samples.cache_clear()  # cold: as a fresh `symphony-bench compare` process
    (base, candidate), reading = timed(
        lambda: [compare.read_run(root / run) for run in ("base", "candidate")]
    )
    n_docs = sum(len(task.records) for task in base.values())
    with (
        samples.without_cyclic_gc()
    ):  # from the lines compare has read (plugin.runs.samples.SamplesContent)
        _, provenance_time = timed(
            lambda: [
                provenance(folder)
                for run in ("base", "candidate")
                for folder in (root / run).iterdir()
                if folder.is_dir()
            ]
        )

    def statistics():
        results = {}
        for label in base:
            pairing = compare.pair_docs(label, base[label], candidate[label])
            results.update(
                compare.task_comparisons(
                    label, pairing.base, pairing.candidate, N_BOOTSTRAP, BOOTSTRAP_SEED
                )
            )
        return results

    with samples.without_cyclic_gc():
        comparisons, statistics_time = timed(statistics)
    samples.forget_samples()
    return len(base), n_docs, len(comparisons), reading, provenance_time, statistics_time


if __name__ == "__main__":
    main()
