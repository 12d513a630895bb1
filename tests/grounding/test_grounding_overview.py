"""The grounding report's overview: one row per entry with its score's interval and invalid rate,
and, where the genre-prior floor gave no answer on a benchmark (by design: only the genre-prior-
reduced docs carry a prior prediction), a line saying so."""

from __future__ import annotations

import numpy as np
from support.runs import lm_eval_results, write_model_folder

from symphony_bench.plugin.grounding.records import choice_record
from symphony_bench.plugin.runs.report import build_report, render_markdown


def floor_run(root, folder: str, answered: bool):
    """A run folder with two choice tasks of 60 docs on 20 clips: answered at random, or never."""
    rng = np.random.default_rng(3)
    clips = [f"clip{k // 3}" for k in range(60)]
    gold = rng.integers(0, 2, 60)
    tasks = {
        task: [
            choice_record(
                interface, int(g), int(rng.integers(0, 2)) if answered else -1, options, "", clip
            )
            for g, clip in zip(gold, clips, strict=True)
        ]
        for task, interface, options in (
            ("grounding_binary", "yes_no", ["yes", "no"]),
            ("grounding_confusable_ab", "letter", ["A", "B"]),
        )
    }
    write_model_folder(root / folder / "model", tasks, lm_eval_results(tasks), seed=1)
    return root


def test_the_overview_lists_every_entry_and_explains_the_genre_prior_floors_invalid_answers(
    tmp_path,
):
    run = floor_run(tmp_path, "grounding_genre_prior", answered=False)
    markdown = render_markdown(build_report(run))
    overview = markdown.split("## Instrument grounding: overview", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in overview.splitlines() if line.startswith("| ") and "task" not in line]
    assert len(rows) == 2 and all("| 1.000 | 60 |" in row for row in rows)
    assert "genre-prior floor answers only the genre-prior-reduced benchmark" in overview
    assert '"no option read"' in overview


def test_a_floor_that_answers_gets_no_such_line(tmp_path):
    run = floor_run(tmp_path, "grounding_random", answered=True)
    overview = render_markdown(build_report(run)).split("## Instrument grounding: overview", 1)[1]
    assert "accuracy 0." in overview and "95% CI" in overview
    assert "genre-prior floor" not in overview
