"""The report dispatcher: records are read by their kind, files of other tasks are passed over, and
a record that breaks the file's pattern is an error naming the file and line."""

from __future__ import annotations

import json

import pytest

from symphony_bench.plugin.core.errors import DataFileError
from symphony_bench.plugin.report import build_report, read_task_records, render_markdown
from symphony_bench.plugin.symphony_bias.records import LIKERT_METRICS, score_record


def likert_sample(scenario: str, instrument: str, stereotype: str, scores) -> dict:
    record = score_record({"scenario_id": scenario, "instrument": instrument, "stereotype": stereotype}, scores)
    return {"doc_id": 0, **{metric: record for metric in LIKERT_METRICS}}


def write_samples(path, samples) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(sample) + "\n" for sample in samples))


def test_records_are_read_by_kind_and_reported_by_their_benchmark(tmp_path):
    samples = [likert_sample(f"s{k}", name, category, scores)
               for k in range(3)
               for name, category, scores in (("harp", "female", [1, 5, 3]), ("drums", "male", [5, 1, 3]))]
    write_samples(tmp_path / "run" / "model" / "samples_symphony_bias_text_2026-01-01T00-00-00.000001.jsonl", samples)
    report = build_report(tmp_path / "run")
    body = report.entries["symphony_bias_text"]
    assert body["summary"]["n_docs"] == 6 and body["summary"]["consistency_rate"] == 1.0
    assert "## symphony_bias_text" in render_markdown(report)


def test_a_file_of_another_task_is_passed_over(tmp_path):
    path = tmp_path / "samples_other_task_2026-01-01T00-00-00.000001.jsonl"
    write_samples(path, [{"doc_id": 0, "acc": 1.0}])
    assert read_task_records(path, "other_task", "other_task") is None


@pytest.mark.parametrize("bad_line", [{"doc_id": 1, "acc": 1.0}, [], None, 42])
def test_a_line_without_the_files_kind_of_record_is_an_error_naming_file_and_line(tmp_path, bad_line):
    path = tmp_path / "samples_symphony_bias_text_2026-01-01T00-00-00.000001.jsonl"
    write_samples(path, [likert_sample("s0", "harp", "female", [1, 5, 3]), bad_line])
    with pytest.raises(DataFileError, match=rf"{path.name}, line 2: not a symphony_bias.likert record"):
        read_task_records(path, "symphony_bias_text", "symphony_bias_text")


def test_truncated_answers_read_apart_from_other_invalid_ones(tmp_path):
    records = [likert_sample("s0", "harp", "female", [1, 5, 3]), likert_sample("s1", "harp", "female", [1, 5, 3])]
    for sample, error in zip(records, ("truncated", "no_json"), strict=True):
        for metric in LIKERT_METRICS:
            sample[metric] = {**sample[metric], "error": error, "scores": [0, 0, 0]}
    samples = records + [likert_sample(f"s{k}", "harp", "female", [1, 5, 3]) for k in range(2, 4)]
    write_samples(tmp_path / "run" / "m" / "samples_symphony_bias_text_2026-01-01T00-00-00.000001.jsonl", samples)
    report = build_report(tmp_path / "run")
    summary = report.entries["symphony_bias_text"]["summary"]
    assert (summary["truncated_rate"], summary["other_invalid_rate"], summary["invalid_rate"]) == (0.25, 0.25, 0.5)
    assert "cut off inside the answer (budget too small): 0.250" in render_markdown(report)
