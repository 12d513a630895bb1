"""Plot costs, measured in one run on synthetic data of full size:

- the leaderboard page for 50 models x 15 entries (every entry's metrics and invalid rate as forest
  plots), against drawing one of its 50-model forest plots with matplotlib (why the page writes its
  SVG itself);
- `write_report_plots` for a full-suite report (6 Likert entries of 22 instruments with protocol
  agreement, 8 grounding entries), PNG + SVG each;
- `write_compare_plots` for 150 change rows (every headline metric of a full suite).

    python benchmarks/bench_plots.py

Target: the page well inside the leaderboard's 5 s for 50 runs.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

import numpy as np

from symphony_bench.plugin.core.sections import ReportEntry
from symphony_bench.plugin.core.vocabulary import instrument_names
from symphony_bench.plugin.grounding.records import CHOICE, choice_record
from symphony_bench.plugin.grounding.report import grounding_report
from symphony_bench.plugin.runs import plots
from symphony_bench.plugin.runs.page import forest_svg, page_html
from symphony_bench.plugin.symphony_bias.links import agreement_report
from symphony_bench.plugin.symphony_bias.records import LIKERT, LOGPROB, score_record
from symphony_bench.plugin.symphony_bias.summaries import task_report

RNG = np.random.default_rng(0)
N_MODELS, N_ENTRIES = 50, 15


def estimate(center: float) -> dict:
    value = float(center + RNG.normal(0, 0.05))
    return {"value": value, "stderr": 0.02, "ci": [value - 0.04, value + 0.04]}


def leaderboard() -> dict:
    rows = []
    for entry in range(N_ENTRIES):
        for model in range(N_MODELS):
            rows.append(
                {
                    "model": f"org/model-{model:02d}",
                    "run": f"runs/{model}",
                    "entry": f"task_{entry}",
                    "task": f"task_{entry}",
                    "variant": None,
                    "family": "likert",
                    "n": 1500,
                    "metrics": {
                        name: estimate(0.1)
                        for name in ("mean_abs", "consistency_rate", "non_binary_gas")
                    },
                    "invalid_rate": estimate(0.1),
                    "rank": {
                        "metric": "mean_abs",
                        "better": "closer_to_zero",
                        "position": 1 + model % 7,
                        "tied": True,
                        "tied_with": [],
                    },
                    "provenance": {
                        "model": {"id": f"org/model-{model:02d}", "sha": None},
                        "config_hash": "0" * 64,
                    },
                }
            )
    return {"rows": rows, "rank_rule": "benchmark"}


def likert_entry() -> dict:
    records = []
    for scenario in range(40):
        for k, name in enumerate(instrument_names()):
            doc = {
                "scenario_id": f"s{scenario}",
                "instrument": name,
                "stereotype": ("male", "female")[k % 2],
            }
            records.append(score_record(doc, RNG.integers(1, 6, 3).tolist()))
    return task_report(records)


def grounding_entry() -> dict:
    records = [
        choice_record(
            "letter",
            int(RNG.integers(0, 2)),
            int(RNG.integers(-1, 2)),
            ["guitar", "banjo"],
            "plucked",
            f"{clip:04d}_{k}",
        )
        for clip in range(300)
        for k in range(3)
    ]
    return grounding_report(records, CHOICE)


def report_entries() -> list[ReportEntry]:
    """The report entries of a text, audio, image and log-prob run and eight grounding tasks."""
    bodies = {
        f"symphony_bias_{name}": likert_entry()
        for name in ("text", "text_noreason", "audio", "image", "logprob")
    }
    bodies["symphony_bias_logprob:calibrated"] = likert_entry()
    for label in ("symphony_bias_logprob", "symphony_bias_logprob:calibrated"):
        bodies[label]["agreement"] = {
            "symphony_bias_text": agreement_report(bodies["symphony_bias_text"], bodies[label])
        }
    bodies.update({f"grounding_{k}": grounding_entry() for k in range(8)})
    entries = []
    for label, body in bodies.items():
        task, _, variant = label.partition(":")
        kind = (
            CHOICE if task.startswith("grounding") else LIKERT if "logprob" not in task else LOGPROB
        )
        modality = next((m for m in ("audio", "image") if m in task), "text")
        facts = {"modality": modality, "condition": "named" if modality == "text" else "stimulus"}
        path = Path(f"samples_{task}.jsonl")
        entries.append(ReportEntry(label, task, kind, variant or None, "", path, body, facts))
    return entries


def seconds(action) -> float:
    start = time.perf_counter()
    action()
    return time.perf_counter() - start


def main() -> None:
    board = leaderboard()
    rows = [row for row in board["rows"] if row["task"] == "task_0"]
    labels, intervals = [row["model"] for row in rows], [row["metrics"]["mean_abs"] for row in rows]
    change_rows = [
        {
            "metric": "mean_abs",
            "task": label,
            "change": e["value"],
            "ci_low": e["ci"][0],
            "ci_high": e["ci"][1],
            "p": 0.5,
        }
        for label, e in zip(labels, intervals, strict=True)
    ]
    with tempfile.TemporaryDirectory() as folder:
        seconds(
            lambda: plots.write_compare_plots(change_rows[:3], Path(folder) / "warm")
        )  # import matplotlib once
        own = min(
            seconds(lambda: forest_svg("mean_abs", labels, intervals, [False] * N_MODELS))
            for _ in range(5)
        )
        matplotlib_svg = min(
            seconds(lambda: plots.change_forest(change_rows).savefig(Path(folder) / "f.svg"))
            for _ in range(3)
        )
        page = min(seconds(lambda: page_html(board)) for _ in range(3))
        size = len(page_html(board).encode())
        entries = report_entries()
        written = {}
        report = seconds(
            lambda: written.update(plots.write_report_plots(entries, Path(folder) / "report"))
        )
        many_changes = [
            {**row, "task": f"{row['task']}_{k}"} for k in range(3) for row in change_rows
        ]
        compare = seconds(lambda: plots.write_compare_plots(many_changes, Path(folder) / "compare"))
    n_plots = N_ENTRIES * 4
    print(
        f"leaderboard page, {N_MODELS} models x {N_ENTRIES} entries ({n_plots} forest plots): {page:.3f} s, "
        f"{size / 1e6:.2f} MB"
    )
    print(
        f"one {N_MODELS}-model forest plot: own SVG {own * 1e3:.2f} ms, matplotlib SVG {matplotlib_svg * 1e3:.0f} ms "
        f"({matplotlib_svg / own:.0f}x)"
    )
    print(
        f"write_report_plots, full-suite report ({len(entries)} entries): {len(written)} plots, PNG + SVG, "
        f"{report:.2f} s ({report / len(written):.2f} s per plot)"
    )
    print(f"write_compare_plots, {len(many_changes)} change rows: {compare:.2f} s")


if __name__ == "__main__":
    main()
