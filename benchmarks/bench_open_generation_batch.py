"""The main job's longest step is generation: the open-ended stories on the default model
(SmolLM2-135M-Instruct, `symphony-hf`, chat template). The first DOCS docs of
symphony_bias_open_mini generated in batches of 16 (the earlier route) and of 64 (the main job's),
in this one process: seconds, the ratio, and how many stories differ between the two.

    python benchmarks/bench_open_generation_batch.py [--docs 64] [--batch-sizes 16 64]
"""

from __future__ import annotations

import argparse
import json

from lm_eval_runs import timed_task

TASK = "symphony_bias_open_mini"


def stories(folder: str, docs: int, batch_size: int) -> tuple[float, list[str]]:
    from symphony_bench.plugin.symphony_bias.prefix_sharing import PrefixSharingHFLM

    lm = PrefixSharingHFLM(pretrained=folder, dtype="float32", device="cpu", batch_size=batch_size)
    seconds, samples = timed_task(lm, TASK, docs)
    answers = sorted((sample["doc_id"], sample["resps"][0][0]) for sample in samples)
    return seconds, [answer for _, answer in answers]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--docs", type=int, default=64)
    parser.add_argument("--batch-sizes", type=int, nargs=2, default=[16, 64])
    args = parser.parse_args()
    from symphony_bench.plugin.devtools.default_model import default_model_path

    folder = str(default_model_path())
    before, after = args.batch_sizes
    slow, slow_stories = stories(folder, args.docs, before)
    fast, fast_stories = stories(folder, args.docs, after)
    print(
        json.dumps(
            {
                "docs": args.docs,
                f"seconds_batch_{before}": round(slow, 1),
                f"seconds_batch_{after}": round(fast, 1),
                "speed_ratio": round(slow / fast, 2),
                "stories_that_differ": sum(
                    a != b for a, b in zip(slow_stories, fast_stories, strict=True)
                ),
            },
            indent=1,
        )
    )


if __name__ == "__main__":
    main()
