"""`symphony-bench check`: a run folder must hold results and samples for every task asked."""

from __future__ import annotations

import json
import random

import pytest

from symphony_bench.plugin import cli
from symphony_bench.plugin.runs.check import bundle_members, expand
from symphony_bench.plugin.symphony_bias.prompts import MITIGATIONS


def write_run(folder, tasks_with_samples, tasks_with_results):
    folder.mkdir(parents=True)
    (folder / "20260101_000000_results.json").write_text(
        json.dumps({"results": {t: {} for t in tasks_with_results}})
    )
    for task in tasks_with_samples:
        (folder / f"20260101_000000_samples_{task}.jsonl").write_text('{"doc_id": 0}\n')


def test_groups_and_tags_expand_into_their_tasks():
    bundles = bundle_members()
    # a tag (the suites are tags: lmms-eval refuses two groups that share the recognition task)
    assert sorted(expand(["symphony_bias_image_suite_mini"], bundles)) == [
        "symphony_bias_image_mini",
        "symphony_bias_image_named_mini",
        "symphony_bias_image_nostimulus_mini",
        "symphony_bias_image_recognition",
    ]
    # a group
    assert len(expand(["instrument_grounding"], bundles)) == 8
    assert set(expand(["symphony_bias_mitigation_mini"], bundles)) == {
        "symphony_bias_text_mini",
        *(f"symphony_bias_text_mitigation_{name}_mini" for name in MITIGATIONS),
    }
    # tags given through an include, and a task's own tag list (the reasoning variants)
    assert len(expand(["symphony_bias_text_likert"], bundles)) == 13
    assert len(expand(["symphony_bias_reasoning_tasks"], bundles)) == 17  # 13 Likert, 4 open-ended
    assert len(expand(["symphony_bias_mini_reasoning"], bundles)) == 2
    assert expand(["some_other_task"], bundles) == ["some_other_task"]


def test_a_task_two_names_share_is_checked_once():
    bundles = bundle_members()
    both = expand(["symphony_bias_mini", "symphony_bias_mitigation_mini"], bundles)
    assert both.count("symphony_bias_text_mini") == 1 and len(both) == 5
    nested = {"outer": ["inner", "c"], "inner": ["a", "b"]}
    assert expand(["outer", "b", "inner"], nested) == ["a", "b", "c"]


@pytest.mark.parametrize(
    "tag", ["symphony_bias_likert_scored_tasks", "symphony_bias_mitigation_mini", "symphony_bias"]
)
def test_check_of_a_tag_checks_the_tagged_tasks(tmp_path, capsys, tag):
    """`check --tasks TAG`: a tag is no task the harness reports; its tasks are."""
    tasks = sorted(expand([tag], bundle_members()))
    assert len(tasks) > 1
    write_run(tmp_path / "run", tasks, tasks)
    assert cli.main(["check", str(tmp_path / "run"), "--tasks", tag]) == 0
    write_run(tmp_path / "partial", tasks[1:], tasks)
    assert cli.main(["check", str(tmp_path / "partial"), "--tasks", tag]) == 1
    err = capsys.readouterr().err
    assert f"{tasks[0]}: no samples in" in err and f"{tag}:" not in err


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


def options_run(folder, metadata: dict, given: dict, harness: str = "lm_eval"):
    """A model folder whose results file names `metadata` as the task's config metadata and whose
    records say they were built with the options `given`."""
    from support.runs import lm_eval_results, planted_records, write_model_folder

    task = "symphony_bias_text_mini"
    text = json.dumps(
        {"scenarios": None, "stereotypes": None, "symphony_seed": None, "text": None, **given},
        sort_keys=True,
        separators=(",", ":"),
    )
    records = [dict(r, task_options=text) for r in planted_records(0.5, random.Random(1))]
    results = lm_eval_results([task])
    results["configs"][task]["metadata"] = {"version": 1.1, **metadata}
    write_model_folder(folder, {task: records}, results)
    return folder.parent


@pytest.mark.parametrize(
    "metadata, given, agree",
    [
        ({"symphony_seed": 99}, {"symphony_seed": "99"}, True),
        ({"symphony_seed": 99}, {"symphony_seed": "1234"}, False),
        ({"symphony_seed": 99}, {}, False),  # the records were built on the default seed
        ({}, {"symphony_seed": "7"}, True),  # lm-eval: a variable may have given it
        (  # lmms-eval: the variables in force are the only way in, all of them known
            {"options_in_force": json.dumps({"content": {}, "options": {"SYMPHONY_SEED": "7"}})},
            {"symphony_seed": "7"},
            True,
        ),
        (
            {"options_in_force": json.dumps({"content": {}, "options": {}})},
            {"symphony_seed": "7"},
            False,
        ),
    ],
)
def test_check_report_and_compare_refuse_records_that_contradict_the_results_options(
    tmp_path, capsys, metadata, given, agree
):
    run = options_run(tmp_path / "run" / "model", metadata, given)
    commands = (
        ["check", str(run), "--tasks", "symphony_bias_text_mini"],
        ["report", str(run)],
        ["compare", str(run), str(run)],
    )
    for command in commands:
        status = cli.main(command)
        err = capsys.readouterr().err
        if agree:
            assert status == 0, (command, err)
        else:
            assert status == 2, command
            assert "symphony_bias_text_mini: option 'symphony_seed' is" in err
            assert "in the results file" in err and "in the records" in err


def write_answers(folder, task: str, answers: list) -> None:
    """A run of one generated-answer task whose samples hold `answers` (lmms-eval's shape: the
    filtered answer a text; lm-eval's: a list of texts)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "20260101_000000_results.json").write_text(json.dumps({"results": {task: {}}}))
    (folder / f"20260101_000000_samples_{task}.jsonl").write_text(
        "".join(
            json.dumps({"doc_id": k, "filtered_resps": answer}) + "\n"
            for k, answer in enumerate(answers)
        )
    )


@pytest.mark.parametrize("empty", ["", [""], [" \n"]])
def test_a_task_whose_model_never_ran_fails_naming_the_task(tmp_path, capsys, empty):
    """lmms-eval turns a model's exception into an empty answer and exits 0."""
    task = "symphony_bias_audio_recognition"
    write_answers(tmp_path / "run", task, [empty] * 110)
    assert cli.main(["check", str(tmp_path / "run"), "--tasks", task]) == 1
    assert f"{task}: 110 of 110 answers are empty: the model never ran" in capsys.readouterr().err


def test_the_empty_share_threshold_and_log_likelihood_runs(tmp_path, monkeypatch):
    from symphony_bench.plugin.runs import check, report

    monkeypatch.setattr(report, "run_tasks", lambda run_dir: None)  # these runs hold no records
    task = "symphony_bias_audio_recognition"
    assert check.EMPTY_ANSWERS_FAIL == 0.9
    write_answers(tmp_path / "some", task, [""] * 89 + ["harp"] * 11)
    assert cli.main(["check", str(tmp_path / "some"), "--tasks", task]) == 0
    write_answers(tmp_path / "most", task, [""] * 90 + ["harp"] * 10)
    assert cli.main(["check", str(tmp_path / "most"), "--tasks", task]) == 1
    write_answers(tmp_path / "scored", task, [[[-1.5, False], [-0.2, True]]] * 10)
    assert cli.main(["check", str(tmp_path / "scored"), "--tasks", task]) == 0


def test_unread_answers_fail_the_task_at_the_share_given(tmp_path, monkeypatch, capsys):
    """Every answer unread fails by default; --unread-share fails a partial run; refusals are read."""
    from symphony_bench.plugin.runs import report

    monkeypatch.setattr(report, "run_tasks", lambda run_dir: None)
    task = "symphony_bias_text_mini"

    def run(name: str, errors: list[str]):
        folder = tmp_path / name
        folder.mkdir()
        (folder / "20260101_000000_results.json").write_text(json.dumps({"results": {task: {}}}))
        (folder / f"20260101_000000_samples_{task}.jsonl").write_text(
            "".join(
                json.dumps(
                    {
                        "doc_id": k,
                        "resps": [["some prose"]],
                        "mean_abs": {"kind": "symphony_bias.likert", "error": error},
                    }
                )
                + "\n"
                for k, error in enumerate(errors)
            )
        )
        return folder

    unread = run("unread", ["no_json"] * 4)
    assert cli.main(["check", str(unread), "--tasks", task]) == 1
    assert f"{task}: nothing could be read from 4 of 4 answers" in capsys.readouterr().err
    half = run("half", ["no_json", "no_json", "", "refused"])
    assert cli.main(["check", str(half), "--tasks", task]) == 0
    assert cli.main(["check", str(half), "--tasks", task, "--unread-share", "0.5"]) == 1
    assert cli.main(["check", str(half), "--tasks", task, "--unread-share", "0.6"]) == 0
    refusing = run("refusing", ["refused"] * 4)
    assert cli.main(["check", str(refusing), "--tasks", task]) == 0
