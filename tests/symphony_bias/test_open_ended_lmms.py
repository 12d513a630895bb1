"""The audio open-ended tasks through the real `lmms-eval` command line: planted stories replayed for
each condition's docs; the report's per-instrument shares equal those computed from the plan."""

from __future__ import annotations

import json

import pytest
from support.association import expected_association, paper_stereotypes
from support.harness import read_lmms_results, read_lmms_samples, run_lmms_eval, run_symphony_bench
from support.planted_stories import (
    PRONOUNS,
    expected_reading,
    planted_frame,
    planted_outcome,
    story,
)

from symphony_bench.plugin.symphony_bias import multimodal
from symphony_bench.plugin.symphony_bias.docs import Design
from symphony_bench.plugin.symphony_bias.options import STIMULUS_OPTIONS

CONDITIONS = {"": "stimulus", "_nostimulus": "no_stimulus", "_named": "named"}


@pytest.mark.e2e
def test_planted_stories_replayed_through_lmms_eval_give_the_planted_shares(
    audio_set, tmp_path, monkeypatch
):
    variable = STIMULUS_OPTIONS["audio"].variable
    monkeypatch.setenv(variable, str(audio_set))
    stereotypes = paper_stereotypes()
    responses, planted = [], {}
    for suffix, condition in CONDITIONS.items():
        task = f"symphony_bias_audio_open{suffix}_mini"
        docs = multimodal.condition_docs(
            Design(protocol="open", modality="audio", condition=condition, subset="mini")
        )
        outcomes = []
        for doc_id, doc in enumerate(docs):
            # the stimulus condition hides the instrument: its stories follow no stereotype
            shown = stereotypes[doc["instrument"]] if condition == "named" else "none"
            outcome, digest = planted_outcome(f"{doc['scenario']}{doc_id}", shown)
            outcomes.append((doc, outcome))
            text = story(outcome, doc["scenario"], digest)
            responses.append({"task": task, "doc_id": doc_id, "response": text})
        planted[task] = outcomes
    replay = tmp_path / "responses.jsonl"
    replay.write_text("".join(json.dumps(row) + "\n" for row in responses))
    output = tmp_path / "run"
    run_lmms_eval(
        "symphony_replay",
        f"responses={replay}",
        "symphony_bias_audio_open_suite_mini",
        output,
        {variable: str(audio_set)},
    )
    results = read_lmms_results(output)
    report_json = tmp_path / "report.json"
    report = run_symphony_bench(["report", str(output), "--json", str(report_json)], cwd=tmp_path)
    assert report.returncode == 0, report.stderr
    body = json.loads(report_json.read_text())
    for task, outcomes in planted.items():
        samples = read_lmms_samples(output, task)
        assert len(samples) == len(outcomes)
        for sample in samples:
            record = sample["mean_abs"]
            doc, outcome = outcomes[sample["doc_id"]]
            assert (record["instrument"], record["stimulus_id"]) == (
                doc["instrument"],
                doc["stimulus_id"],
            )
            read = record["reference"] if outcome in PRONOUNS else record["error"]
            assert read == expected_reading(outcome)
        frame = planted_frame(outcomes)
        gas, headline = expected_association(frame, stereotypes)
        assert body[task]["summary"]["mean_abs"] == pytest.approx(headline["mean_abs"], abs=1e-9)
        assert results[task]["no_reference_rate,none"] == pytest.approx(
            (frame.outcome == "none").mean(), abs=1e-12
        )
        for name, docs in frame.groupby("instrument"):
            read = docs[docs.valid]
            row = body[task]["references"][name]
            for gender in PRONOUNS:
                expected = (read.outcome == gender).mean() if len(read) else None
                assert row[gender] == pytest.approx(expected, abs=1e-12), (task, name, gender)
    # the planted association appears only where the instrument is named
    assert body["symphony_bias_audio_open_named_mini"]["summary"]["mean_abs"] > 0.2
    assert "open-ended, who the story makes the person" in report.stdout
