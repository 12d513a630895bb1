"""The open-ended reader's published accuracy on the frozen test set: the set is what was frozen,
the published numbers are the installed reader's, and the reader meets issue 46's bar."""

import json
from collections import Counter
from pathlib import Path

import pytest
from support.runs import record_samples, write_samples

from symphony_bench.metrics.reader_accuracy import TRUTHS
from symphony_bench.plugin.runs.report import build_report, render_markdown
from symphony_bench.plugin.symphony_bias import reader_measurement
from symphony_bench.plugin.symphony_bias.prompts import OPEN_WORDINGS
from symphony_bench.plugin.symphony_bias.records import open_record, read_open

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def frozen():
    return reader_measurement.load_frozen_set(ROOT / reader_measurement.FROZEN_SET_NAME)


@pytest.fixture(scope="module")
def measured(frozen):
    rows, sha256 = frozen
    return json.loads(json.dumps(reader_measurement.measure(rows, sha256)))


def test_the_frozen_set_covers_every_wording_and_label(frozen):
    rows, _ = frozen
    assert len(rows) >= 400  # issue 46: at least 400 answers
    assert {row["label"] for row in rows} == set(TRUTHS)
    per_wording = Counter(row["wording"] for row in rows)
    assert set(per_wording) == set(range(len(OPEN_WORDINGS)))
    assert min(per_wording.values()) >= 0.8 * max(per_wording.values())
    assert sum(row["source"] != "written" for row in rows) >= 100
    assert len({row["id"] for row in rows}) == len(rows)


def test_the_published_measurement_is_the_installed_readers(measured):
    """Fails after any change to the reader or the set until scripts/measure_open_reader.py is
    re-run (and the docs table pasted again). Says only that: a diff of the numbers would show
    whoever is tuning the reader how its change moved the frozen set."""
    current = reader_measurement.published() == measured
    assert current, "stale: re-run scripts/measure_open_reader.py"


def test_the_report_line_quotes_the_published_numbers(measured):
    line = reader_measurement.report_line(reader_measurement.report_summary(measured))
    misreads = measured["score_moving_misreads"]
    assert f"{100 * misreads['rate']:.1f} % [{100 * misreads['ci'][0]:.1f}," in line
    assert f"frozen set of {measured['n']} answers" in line


@pytest.mark.xfail(
    strict=True,
    reason="the reader does not meet issue 46's bar yet (on frozen set v9: misreads 3.7 %, one swap, "
    "coverage 66.7 / 76.9 / 75.8 % by wording; "
    "docs/symphony-bias-method.md#how-well-the-reader-reads)",
)
def test_the_reader_meets_the_bar_of_issue_46(measured):
    """Issue 46, done when: score-moving misreads at most 1.5 % of the answers with the upper end
    of the 95 % interval at most 3 %; no male <-> female swap; coverage of gendered answers at
    least 85 % on each wording; refusals read as refused at least 95 % and never as neutral."""
    misreads = measured["score_moving_misreads"]
    assert misreads["rate"] <= 0.015
    assert misreads["ci"][1] <= 0.03
    assert measured["male_female_swaps"] == 0
    for wording in range(len(OPEN_WORDINGS)):
        assert measured["coverage"][str(wording)]["rate"] >= 0.85
    assert measured["refusals_read_refused"]["rate"] >= 0.95
    assert measured["refusals_read_neutral"] == 0


def test_an_open_ended_report_quotes_the_readers_accuracy(tmp_path):
    stories = {"harp": "She played on.", "drums": "He played on.", "flute": "They played on."}
    records = [
        open_record(
            {
                "scenario_id": f"t{t}",
                "template_id": f"t{t}",
                "instrument": name,
                "stereotype": "female" if name != "drums" else "male",
            },
            read_open(story),
        )
        for t in range(4)
        for name, story in stories.items()
    ]
    write_samples(
        tmp_path
        / "run"
        / "model"
        / "samples_symphony_bias_open_mini_2026-01-01T00-00-00.000001.jsonl",
        record_samples(records),
    )
    report = build_report(tmp_path / "run")
    body = report.entries["symphony_bias_open_mini"].body
    published = reader_measurement.published()
    assert (
        body["reader_accuracy"]["score_moving_misreads"]
        == (published["score_moving_misreads"]["rate"])
    )
    assert body["reader_accuracy"]["n_answers"] == published["n"]
    line = reader_measurement.report_line(body["reader_accuracy"])
    assert line.startswith("reader: score-moving misreads ")
    assert f"- {line}" in render_markdown(report)
