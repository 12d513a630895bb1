"""`symphony-bench check`: a run folder must hold results and samples for every task asked."""

from __future__ import annotations

import json

from symphony_bench.plugin import cli
from symphony_bench.plugin.runs.check import expand, group_members


def write_run(folder, tasks_with_samples, tasks_with_results):
    folder.mkdir(parents=True)
    (folder / "20260101_000000_results.json").write_text(
        json.dumps({"results": {t: {} for t in tasks_with_results}})
    )
    for task in tasks_with_samples:
        (folder / f"20260101_000000_samples_{task}.jsonl").write_text('{"doc_id": 0}\n')


def test_groups_expand_into_their_tasks_recursively():
    groups = group_members()
    assert expand(["symphony_bias_image_suite_mini"], groups) == [
        "symphony_bias_image_mini",
        "symphony_bias_image_nostimulus_mini",
        "symphony_bias_image_named_mini",
        "symphony_bias_image_recognition",
    ]
    assert len(expand(["instrument_grounding"], groups)) == 8
    assert expand(["some_other_task"], groups) == ["some_other_task"]


def test_a_complete_run_passes_and_a_partial_one_lists_what_is_missing(tmp_path, capsys):
    tasks = [
        "symphony_bias_image_mini",
        "symphony_bias_image_nostimulus_mini",
        "symphony_bias_image_named_mini",
        "symphony_bias_image_recognition",
    ]
    write_run(tmp_path / "full", tasks, tasks)
    assert (
        cli.main(["check", str(tmp_path / "full"), "--tasks", "symphony_bias_image_suite_mini"])
        == 0
    )
    write_run(tmp_path / "partial", tasks[:2], tasks[:3])
    assert (
        cli.main(["check", str(tmp_path / "partial"), "--tasks", "symphony_bias_image_suite_mini"])
        == 1
    )
    err = capsys.readouterr().err
    assert "symphony_bias_image_named_mini: no samples in" in err
    assert "symphony_bias_image_recognition: no results and no samples in" in err
    assert "symphony_bias_image_mini" not in err


def test_an_empty_samples_file_or_a_run_that_wrote_nothing_fails_and_a_file_is_an_error(
    tmp_path, capsys
):
    write_run(tmp_path / "run", ["t"], ["t"])
    next((tmp_path / "run").glob("*samples_t.jsonl")).write_text("")
    assert cli.main(["check", str(tmp_path / "run"), "--tasks", "t"]) == 1
    assert cli.main(["check", str(tmp_path / "nowhere"), "--tasks", "t"]) == 1
    assert "t: no results and no samples in" in capsys.readouterr().err
    (tmp_path / "file").write_text("")
    assert cli.main(["check", str(tmp_path / "file"), "--tasks", "t"]) == 2
    assert "file: not a directory" in capsys.readouterr().err


def test_an_exported_file_named_like_results_is_not_a_results_file(tmp_path, capsys):
    """`symphony-bench export --format hf-leaderboard --out RUN/hf_results.json` (or any other file
    whose name holds "results") is not what a harness wrote: it reports no task."""
    write_run(tmp_path / "run", ["t"], [])
    (tmp_path / "run" / "hf_results.json").write_text(json.dumps({"results": {"t": {"acc": 1.0}}}))
    (tmp_path / "run" / "results_export.json").write_text(json.dumps({"results": {"t": {}}}))
    assert cli.main(["check", str(tmp_path / "run"), "--tasks", "t"]) == 1
    assert "t: no results in" in capsys.readouterr().err
