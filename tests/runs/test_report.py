"""The report dispatcher: records are read by their kind, files of other tasks are passed over, and
a record that breaks the file's pattern is an error naming the file and line."""

from __future__ import annotations

import random
import re

import pytest
from support.runs import likert_sample, write_planted_run, write_samples

from symphony_bench.metrics.constants import RATE_MIN_TEMPLATES, SKEW_STDERR_MIN_TEMPLATES
from symphony_bench.plugin.core.errors import DataFileError
from symphony_bench.plugin.grounding.records import choice_record, set_record
from symphony_bench.plugin.runs.report import build_report, render_markdown
from symphony_bench.plugin.runs.samples import read_task
from symphony_bench.plugin.symphony_bias.records import LIKERT_METRICS, score_record


def test_records_are_read_by_kind_and_reported_by_their_benchmark(tmp_path):
    samples = [
        likert_sample(f"s{k}", name, category, scores)
        for k in range(3)
        for name, category, scores in (("harp", "female", [1, 5, 3]), ("drums", "male", [5, 1, 3]))
    ]
    write_samples(
        tmp_path / "run" / "model" / "samples_symphony_bias_text_2026-01-01T00-00-00.000001.jsonl",
        samples,
    )
    report = build_report(tmp_path / "run")
    body = report.entries["symphony_bias_text"].body
    assert body["summary"]["n_docs"] == 6 and body["summary"]["consistency_rate"] == 1.0
    assert "## symphony_bias_text" in render_markdown(report)


def test_a_file_of_another_task_is_passed_over(tmp_path):
    path = tmp_path / "samples_other_task_2026-01-01T00-00-00.000001.jsonl"
    write_samples(path, [{"doc_id": 0, "acc": 1.0}])
    assert read_task(path, "other_task") is None


@pytest.mark.parametrize("bad_line", [{"doc_id": 1, "acc": 1.0}, [], None, 42])
def test_a_line_without_the_files_kind_of_record_is_an_error_naming_file_and_line(
    tmp_path, bad_line
):
    path = tmp_path / "samples_symphony_bias_text_2026-01-01T00-00-00.000001.jsonl"
    write_samples(path, [likert_sample("s0", "harp", "female", [1, 5, 3]), bad_line])
    with pytest.raises(
        DataFileError, match=rf"{path.name}, line 2: not a symphony_bias.likert record"
    ):
        read_task(path, "symphony_bias_text")


def test_truncated_answers_read_apart_from_other_invalid_ones(tmp_path):
    records = [
        likert_sample("s0", "harp", "female", [1, 5, 3]),
        likert_sample("s1", "harp", "female", [1, 5, 3]),
    ]
    for sample, error in zip(records, ("truncated", "no_json"), strict=True):
        for metric in LIKERT_METRICS:
            sample[metric] = {**sample[metric], "error": error, "scores": [0, 0, 0]}
    samples = records + [likert_sample(f"s{k}", "harp", "female", [1, 5, 3]) for k in range(2, 4)]
    write_samples(
        tmp_path / "run" / "m" / "samples_symphony_bias_text_2026-01-01T00-00-00.000001.jsonl",
        samples,
    )
    report = build_report(tmp_path / "run")
    summary = report.entries["symphony_bias_text"].body["summary"]
    assert (summary["truncated_rate"], summary["other_invalid_rate"], summary["invalid_rate"]) == (
        0.25,
        0.25,
        0.5,
    )
    assert "cut off inside the answer (budget too small): 0.250" in render_markdown(report)


def sample_of(record: dict) -> dict:
    return {"doc_id": 0, "accuracy": record, "accuracy_stderr": record}


def choice(**changes) -> dict:
    return {**choice_record("letter", 1, 0, ["guitar", "banjo"], "plucked", "000_1"), **changes}


LIKERT_OK = likert_sample("s0", "harp", "female", [1, 5, 3])["mean_abs"]
BAD_RECORDS = [
    ({**LIKERT_OK, "scores": [float("nan"), 5, 3]}, "'scores' is"),
    ({**LIKERT_OK, "scores": [float("inf"), 5, 3]}, "'scores' is"),
    ({**LIKERT_OK, "scores": None}, "expected three finite numbers"),
    ({**LIKERT_OK, "scores": ["1", 5, 3]}, "expected three finite numbers"),
    ({**LIKERT_OK, "scores": [-1, 5, 3]}, "expected Likert values 1..5"),
    ({**LIKERT_OK, "scores": [1, 5]}, "expected three finite numbers"),
    ({**LIKERT_OK, "stereotype": "unknown"}, "'stereotype' is 'unknown'"),
    ({**LIKERT_OK, "instrument": None}, "'instrument' is None"),
    ({k: v for k, v in LIKERT_OK.items() if k != "error"}, "no 'error' field"),
    (
        {**LIKERT_OK, "kind": "symphony_bias.logprob", "scores": [2, 0, 0]},
        "probabilities in [0, 1]",
    ),
    (choice(gold=2), "'gold' is 2, outside the 2 options"),
    (choice(chosen=-2), "'chosen' is -2"),
    (choice(gold=True), "'gold' is True"),
    (choice(interface="essay"), "'interface' is 'essay'"),
    (set_record([True, False], [True], "000_1"), "'chosen' has 1 entries but 'gold' has 2"),
    (set_record([True, "no"], None, "000_1"), "'gold' is"),
]


VALID_OF_KIND = {
    "symphony_bias.likert": LIKERT_OK,
    "symphony_bias.logprob": {
        **LIKERT_OK,
        "kind": "symphony_bias.logprob",
        "scores": [0.2, 0.5, 0.3],
    },
    "grounding.choice": choice(),
    "grounding.set": set_record([True, False], [True, False], "000_1"),
}


@pytest.mark.parametrize(("bad_record", "message"), BAD_RECORDS)
def test_an_unusable_record_is_an_error_naming_file_line_and_field(tmp_path, bad_record, message):
    path = tmp_path / "run" / "m" / "samples_some_task_2026-01-01T00-00-00.000001.jsonl"
    write_samples(path, [sample_of(VALID_OF_KIND[bad_record["kind"]]), sample_of(bad_record)])
    expected = (
        re.escape(f"{path}, line 2: {bad_record['kind']} record: ") + ".*" + re.escape(message)
    )
    with pytest.raises(DataFileError, match=expected):
        build_report(tmp_path / "run")


def test_mixed_record_kinds_name_the_line(tmp_path):
    path = tmp_path / "samples_t_2026-01-01T00-00-00.000001.jsonl"
    write_samples(path, [sample_of(choice()), sample_of(LIKERT_OK)])
    with pytest.raises(DataFileError, match=rf"{path.name}, line 2: not a grounding.choice record"):
        read_task(path, "t")


def test_a_broken_first_line_does_not_make_the_file_another_tasks(tmp_path):
    path = tmp_path / "samples_t_2026-01-01T00-00-00.000001.jsonl"
    write_samples(path, [[], sample_of(choice())])
    with pytest.raises(DataFileError, match=rf"{path.name}, line 1: not a grounding.choice record"):
        read_task(path, "t")


def test_non_utf8_bytes_name_the_file(tmp_path):
    path = tmp_path / "run" / "m" / "samples_t_2026-01-01T00-00-00.000001.jsonl"
    write_samples(path, [sample_of(choice())])
    path.write_bytes(path.read_bytes() + b'{"x": "\xff\xfe"}\n')
    with pytest.raises(DataFileError, match=rf"{re.escape(str(path))}: not UTF-8"):
        build_report(tmp_path / "run")


def test_records_that_do_not_fit_together_name_the_file(tmp_path):
    path = tmp_path / "run" / "m" / "samples_symphony_bias_text_2026-01-01T00-00-00.000001.jsonl"
    write_samples(
        path,
        [
            likert_sample("s0", "harp", "female", [1, 5, 3]),
            likert_sample("s1", "harp", "male", [1, 5, 3]),
        ],
    )
    with pytest.raises(DataFileError, match=rf"{re.escape(str(path))}: .*more than one stereotype"):
        build_report(tmp_path / "run")


def test_model_folders_of_the_same_name_in_different_places_are_two_runs(tmp_path):
    for run, scores in (("a", [1, 5, 3]), ("b", [5, 1, 3])):
        samples = [likert_sample(f"s{k}", "harp", "female", scores) for k in range(3)]
        write_samples(
            tmp_path
            / "runs"
            / run
            / "M"
            / "samples_symphony_bias_text_2026-01-01T00-00-00.000001.jsonl",
            samples,
        )
    report = build_report(tmp_path / "runs")
    assert set(report.entries) == {"a/M/symphony_bias_text", "b/M/symphony_bias_text"}
    consistency = {
        label: entry.body["summary"]["consistency_rate"] for label, entry in report.entries.items()
    }
    assert consistency == {"a/M/symphony_bias_text": 1.0, "b/M/symphony_bias_text": 0.0}


def test_conditions_with_different_instruments_list_the_missing_ones_and_compare_on_the_common_ones(
    tmp_path,
):
    folder = tmp_path / "run" / "m"
    shown = {
        "harp": ("female", [1, 5, 3]),
        "drums": ("male", [5, 1, 3]),
        "flute": ("female", [5, 1, 3]),
    }
    named = [
        likert_sample(f"s{k}", name, category, scores)
        for k in range(3)
        for name, (category, scores) in shown.items()
    ]
    stimulus = [
        sample for sample in named if sample["mean_abs"]["instrument"] != "flute"
    ]  # no flute recording
    write_samples(
        folder / "samples_symphony_bias_audio_named_mini_2026-01-01T00-00-00.000001.jsonl", named
    )
    write_samples(
        folder / "samples_symphony_bias_audio_mini_2026-01-01T00-00-00.000001.jsonl", stimulus
    )
    report = build_report(tmp_path / "run")
    audio, named_entry = (
        report.entries["symphony_bias_audio_mini"].body,
        report.entries["symphony_bias_audio_named_mini"].body,
    )
    assert (
        "flute" in audio["missing_instruments"]
        and "flute" not in named_entry["missing_instruments"]
    )
    assert len(audio["missing_instruments"]) == 20 and len(named_entry["missing_instruments"]) == 19
    # flute (ABS -4/9 on the GAS scale) pulls the named condition's mean down; on harp + drums both agree
    assert named_entry["summary"]["mean_abs"] < audio["summary"]["mean_abs"]
    for entry in (audio, named_entry):
        assert entry["common_instruments"]["instruments"] == ["drums", "harp"]
        assert entry["common_instruments"]["summary"]["mean_abs"] == pytest.approx(
            audio["summary"]["mean_abs"]
        )
    markdown = render_markdown(report)
    assert (
        "| symphony_bias_audio_named_mini (on the 2 instruments every condition has) |" in markdown
    )
    assert (
        "no docs in this task (no stimulus in the set, or left out by --limit): " in markdown
        and "flute" in markdown
    )


def test_conditions_with_the_same_instruments_get_no_common_comparison(tmp_path):
    samples = [likert_sample(f"s{k}", "harp", "female", [1, 5, 3]) for k in range(3)]
    for task in ("symphony_bias_audio_mini", "symphony_bias_audio_named_mini"):
        write_samples(
            tmp_path / "run" / "m" / f"samples_{task}_2026-01-01T00-00-00.000001.jsonl", samples
        )
    entries = build_report(tmp_path / "run").entries
    assert set(entries) == {"symphony_bias_audio_mini", "symphony_bias_audio_named_mini"}
    assert all("common_instruments" not in entry.body for entry in entries.values())


def test_each_entry_records_the_data_its_records_came_from(tmp_path):
    facts = {
        "dataset_repo": "org/text",
        "dataset_revision": "v1.0",
        "dataset_commit": "ab" * 20,
        "dataset_sha256": "12" * 32,
        "dataset_verified": False,
    }
    samples = [
        likert_sample(f"s{k}", name, category, scores)
        for k in range(2)
        for name, category, scores in (("harp", "female", [1, 5, 3]), ("drums", "male", [5, 1, 3]))
    ]
    samples = [
        {
            key: {**value, **facts} if isinstance(value, dict) else value
            for key, value in sample.items()
        }
        for sample in samples
    ]
    path = tmp_path / "run" / "m" / "samples_symphony_bias_text_2026-01-01T00-00-00.000001.jsonl"
    write_samples(path, samples)
    report = build_report(tmp_path / "run")
    assert report.entries["symphony_bias_text"].body["data"] == facts
    line = f"Data: org/text @ v1.0 (commit {'ab' * 6}), content sha256 {'12' * 6} (not the data the task is pinned to)"
    assert line in render_markdown(report).splitlines()
    samples[-1] = {
        key: {**value, "dataset_commit": "cd" * 20} if isinstance(value, dict) else value
        for key, value in samples[-1].items()
    }
    write_samples(path, samples)
    with pytest.raises(
        DataFileError, match=f"{path.name}: records from more than one dataset \\(dataset_commit"
    ):
        build_report(tmp_path / "run")


def test_records_without_data_facts_get_nulls_and_no_data_line(tmp_path):
    samples = [
        likert_sample("s0", "harp", "female", [1, 5, 3]),
        likert_sample("s1", "drums", "male", [5, 1, 3]),
    ]
    write_samples(
        tmp_path / "run" / "m" / "samples_symphony_bias_text_2026-01-01T00-00-00.000001.jsonl",
        samples,
    )
    report = build_report(tmp_path / "run")
    assert report.entries["symphony_bias_text"].body["data"] == dict.fromkeys(
        ("dataset_repo", "dataset_revision", "dataset_commit", "dataset_sha256", "dataset_verified")
    )
    assert "Data:" not in render_markdown(report)


def test_a_task_whose_answers_are_all_invalid_is_one_line_not_a_table_of_n_a(tmp_path):
    import warnings

    from support.runs import lm_eval_results, write_model_folder

    from symphony_bench.plugin.symphony_bias.docs import Design, build_docs
    from symphony_bench.plugin.symphony_bias.records import score_record

    docs = build_docs(Design(subset="mini"))  # 5 control docs among the 115
    tasks = {"t": [score_record(doc, [0, 0, 0], "no_json") for doc in docs]}
    write_model_folder(tmp_path / "run" / "m", tasks, lm_eval_results(tasks), seed=1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no numpy warning on an empty analysis
        report = build_report(tmp_path / "run")
    markdown = render_markdown(report)
    summary = report.entries["t"].body["summary"]
    assert summary["invalid_reasons"] == {"no_json": 110}  # the docs the invalid rate counts
    assert "- all 110 answers invalid: no_json 110; no association can be computed" in markdown
    assert "| t | Likert, generated JSON | all answers invalid | | | 1.000 | 110 |" in markdown
    assert "n/a ± n/a" not in markdown
    # the overview says there is nothing to read here, and where there is
    assert "Every answer was invalid in t, t:prior_adjusted: no association" in markdown
    assert "No task of this run has a valid answer." in markdown
    check = report.entries["t:prior_adjusted"].body["control_check"]
    assert check["n_templates"] == 0 and isinstance(check["n_templates"], int)


def test_variance_components_of_a_model_whose_answers_depend_on_the_instrument_alone(tmp_path):
    from support.runs import lm_eval_results, write_model_folder

    from symphony_bench.plugin.symphony_bias.docs import Design, build_docs
    from symphony_bench.plugin.symphony_bias.records import score_record

    docs = build_docs(Design(subset="mini"))
    ratings = {}  # a fixed (man, woman) rating per instrument, the same in every template
    for doc in docs:
        ratings.setdefault(doc["instrument"], (1 + len(ratings) % 5, 5 - len(ratings) % 5))
    tasks = {"t": [score_record(doc, [*ratings[doc["instrument"]], 3]) for doc in docs]}
    write_model_folder(tmp_path / "run" / "m", tasks, lm_eval_results(tasks), seed=1)
    report = build_report(tmp_path / "run")
    components = report.entries["t"].body["variance_components"]
    assert components["components"]["instrument"]["share"] == pytest.approx(1.0)
    assert components["components"]["template"]["share"] == pytest.approx(0.0, abs=1e-12)
    assert not components["separable"]  # the mini subset: one doc per template x instrument
    assert "100% between instruments" in render_markdown(report)


@pytest.mark.parametrize("templates", [5, 24, 44])
def test_a_text_tasks_rates_have_an_interval_only_from_the_template_floor(tmp_path, templates):
    """On one stimulus the invalid and refusal rates' interval does not hold below
    RATE_MIN_TEMPLATES templates (docs/statistics.md): none there, and the report says why."""
    rng = random.Random(templates)
    records = []
    for t in range(templates):
        for scenario in range(3):
            for instrument, category in (("harp", "female"), ("drums", "male")):
                refused = rng.random() < 0.2
                doc = {
                    "scenario_id": f"t{t}-{scenario}",
                    "template_id": f"t{t}",
                    "instrument": instrument,
                    "stereotype": category,
                }
                scores = [0, 0, 0] if refused else [4, 2, 3]
                records.append(score_record(doc, scores, "refused" if refused else ""))
    write_planted_run(tmp_path, "org/m", records)
    report = build_report(tmp_path)
    summary = next(iter(report.entries.values())).body["summary"]
    markdown = render_markdown(report)
    few = templates < RATE_MIN_TEMPLATES
    for name in ("invalid_rate", "refusal_rate"):
        assert (summary[f"{name}_ci"] == [None, None]) == few, name
        assert summary[f"{name}_stderr"] is not None
    floor = f"no interval: it does not hold on fewer than {RATE_MIN_TEMPLATES} templates"
    assert (floor in markdown) == few
    # the skew's ± understates its spread on few templates: the report points to its interval
    spread = f"on {templates} templates the ± understates the skew's spread"
    assert (spread in markdown) == (templates < SKEW_STDERR_MIN_TEMPLATES)
