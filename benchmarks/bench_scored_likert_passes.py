"""Scored Likert on the default model (SmolLM2-135M-Instruct): lm-eval's `hf` against
`symphony-hf` (one pass per gender context), on the first DOCS docs of
symphony_bias_likert_scored_mini with the chat template, in this one process: forward passes per
doc (a probe on the model's forward counts the sequences), seconds, the ratio, and the largest
difference between the two runs' expected Likert values and label probabilities.

    python benchmarks/bench_scored_likert_passes.py [--docs 23] [--batch-size 16]
"""

from __future__ import annotations

import argparse
import json

import numpy as np
from lm_eval_runs import timed_task

TASK = "symphony_bias_likert_scored_mini"


def run(model_class, folder: str, docs: int, batch_size: int) -> dict:
    lm = model_class(pretrained=folder, dtype="float32", device="cpu", batch_size=batch_size)
    forward = lm.model.forward
    sequences = []

    def counted(input_ids=None, *args, **kwargs):
        sequences.append(input_ids.shape[0])
        return forward(input_ids, *args, **kwargs)

    lm.model.forward = counted
    seconds, samples = timed_task(lm, TASK, docs)
    records = sorted((sample["doc_id"], sample["mean_abs"]) for sample in samples)
    return {
        "seconds": seconds,
        "passes_per_doc": sum(sequences) / docs,
        "scores": np.array([record["scores"] for _, record in records]),
        "probabilities": np.array([record["label_probabilities"] for _, record in records]),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--docs", type=int, default=23)
    parser.add_argument("--batch-size", type=int, default=16)
    args = parser.parse_args()
    from lm_eval.models.huggingface import HFLM

    from symphony_bench.plugin.devtools.default_model import default_model_path
    from symphony_bench.plugin.symphony_bias.prefix_sharing import PrefixSharingHFLM

    folder = str(default_model_path())
    stock = run(HFLM, folder, args.docs, args.batch_size)
    shared = run(PrefixSharingHFLM, folder, args.docs, args.batch_size)
    print(
        json.dumps(
            {
                "docs": args.docs,
                "hf_passes_per_doc": stock["passes_per_doc"],
                "symphony_hf_passes_per_doc": shared["passes_per_doc"],
                "hf_seconds": round(stock["seconds"], 2),
                "symphony_hf_seconds": round(shared["seconds"], 2),
                "speed_ratio": round(stock["seconds"] / shared["seconds"], 2),
                "max_expected_value_difference": float(
                    np.abs(stock["scores"] - shared["scores"]).max()
                ),
                "max_label_probability_difference": float(
                    np.abs(stock["probabilities"] - shared["probabilities"]).max()
                ),
            },
            indent=1,
        )
    )


if __name__ == "__main__":
    main()
