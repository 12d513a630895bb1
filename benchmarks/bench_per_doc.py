"""Per-document overhead of the Symphony-Bias Likert task vs a plain lm-eval YAML task.

Both tasks read the same docs. The plain task renders a Jinja `doc_to_text`, keeps the first
response and scores `exact_match`; ours reads the prebuilt prompt, parses the JSON answer with the
registered filter and emits the per-doc record. Timed per task, in one run: building all requests
(doc_to_text + request construction), applying the filters, and process_results over every doc.

    python benchmarks/bench_per_doc.py [--repeats 3]
"""

from __future__ import annotations

import argparse
import tempfile
import textwrap
import time
from pathlib import Path

from lm_eval.tasks import TaskManager

from symphony_bench.plugin.core.task_folders import tasks_path

PLAIN_TASK = textwrap.dedent(
    """\
    task: plain_jinja_baseline
    custom_dataset: !function symphony_bench.plugin.symphony_bias.text.load_dataset
    output_type: generate_until
    test_split: test
    doc_to_text: "{{prompt}}"
    doc_to_target: stereotype
    generation_kwargs:
      until: ["\\n\\n\\n"]
    metric_list:
      - metric: exact_match
        aggregation: mean
        higher_is_better: true
    """
)
RESPONSES = [
    '{"reason": "A common picture.", "man": "high", "woman": "low", "non-binary": "medium"}',
    "```json\n{'reason': 'r', 'Man': 'Very High', 'Woman': 'LOW', 'Non-Binary': 'medium',}\n```",
    "The person in this scenario is a woman.",
]


def time_task(task) -> float:
    start = time.perf_counter()
    task.build_all_requests(
        limit=None, rank=0, world_size=1, cache_requests=False, rewrite_requests_cache=True
    )
    for k, instance in enumerate(task.instances):
        instance.resps = [RESPONSES[k % len(RESPONSES)]]
    task.apply_filters()
    key = next(iter(task.instances[0].filtered_resps))
    for instance in task.instances:
        task.process_results(instance.doc, [instance.filtered_resps[key]])
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / "plain_jinja_baseline.yaml").write_text(PLAIN_TASK)
        manager = TaskManager(include_path=[str(tasks_path()), folder])
        tasks = manager.load(["symphony_bias_text", "plain_jinja_baseline"])["tasks"]
        ours, plain = tasks["symphony_bias_text"], tasks["plain_jinja_baseline"]
        n_docs = len(ours.eval_docs)
        ours_times, plain_times = [], []
        for _ in range(args.repeats):  # interleaved, so drift on a noisy machine hits both
            ours_times.append(time_task(ours))
            plain_times.append(time_task(plain))
    best_ours, best_plain = min(ours_times), min(plain_times)
    print(f"docs per task: {n_docs}")
    print(f"symphony_bias_text: {best_ours * 1e6 / n_docs:.1f} us/doc (best of {args.repeats})")
    print(
        f"plain Jinja + exact_match: {best_plain * 1e6 / n_docs:.1f} us/doc (best of {args.repeats})"
    )
    print(f"ratio ours / plain: {best_ours / best_plain:.2f}x (target <= 1.5x)")


if __name__ == "__main__":
    main()
