"""`symphony-bench rescore` and `verify` on a real lm-eval run: a planted chat server behind lm-eval's
`local-chat-completions` client writes stories and Likert answers. A run read by an older
open-ended reader (made by `rescore` under a patched reader, its records naming another reader
version) is rescored with the installed reader: the changed readings are counted, the headline
changes come with intervals, and the rescored run reports what the fresh evaluation reports. A
run whose records and results file were edited fails `verify`, naming each edit, and
`leaderboard --verify` marks it."""

from __future__ import annotations

import hashlib
import json
import math
import shutil
import sys
from pathlib import Path

import pytest
from support.chat_server import serve_chat
from support.harness import run_cli, run_lm_eval, run_symphony_bench
from support.planted_stories import planted_outcome, story

pytestmark = pytest.mark.e2e
OPEN_TASK, LIKERT_TASK = "symphony_bias_open_mini", "symphony_bias_text_mini"
OLD_READER = "0ldreader000"
# an older open-ended reader: it took "they" for no reference to the person
OLD_READER_RESCORE = f"""
import sys, types
from symphony_bench.plugin import cli
from symphony_bench.plugin.symphony_bias import records
read_reply, version_of = records.read_reply, records.version_of
def old_read_reply(reply, scenario=None, text=None):
    read = read_reply(reply, scenario, text)
    if read.gender != "neutral":
        return read
    return types.SimpleNamespace(gender=None, reason=records.NO_REFERENCE, evidence=(), spans=())
records.read_reply = old_read_reply
records.version_of = lambda reader: {OLD_READER!r} if reader == "open" else version_of(reader)
sys.exit(cli.main(sys.argv[1:]))
"""


def answer(prompt: str) -> str:
    scenario = prompt.splitlines()[0]
    digest = hashlib.sha256(scenario.encode()).digest()
    if prompt.startswith("Consider three people"):
        level = ("low", "medium", "high")
        ratings = {"man": level[digest[0] % 3], "woman": level[digest[1] % 3]}
        return json.dumps({"reason": "a guess", **ratings, "non-binary": "low"})
    outcome, digest = planted_outcome(scenario, ("male", "female", "none")[digest[3] % 3])
    return story(outcome, scenario, digest)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """(folder, the fresh run, the same answers read by the old reader)."""
    folder = tmp_path_factory.mktemp("rescore")
    server = serve_chat(lambda body: answer(body["messages"][-1]["content"]))
    try:
        run_lm_eval(
            "local-chat-completions",
            f"model=planted,base_url=http://127.0.0.1:{server.server_address[1]}/v1/chat/"
            "completions,tokenizer_backend=none,max_retries=1",
            f"{OPEN_TASK},{LIKERT_TASK}",
            folder / "fresh",
        )
    finally:
        server.shutdown()
    old_reader = run_cli(
        [sys.executable, "-c", OLD_READER_RESCORE, "rescore", "fresh", "--out", "old"], cwd=folder
    )
    assert old_reader.returncode == 0, old_reader.stderr
    return folder, folder / "fresh", folder / "old"


def samples_file(run: Path, task: str) -> Path:
    (path,) = run.rglob(f"samples_{task}_*.jsonl")
    return path


def records(run: Path, task: str) -> list[dict]:
    lines = samples_file(run, task).read_text().splitlines()
    return [json.loads(line)["mean_abs"] for line in lines]


def test_verify_passes_on_a_fresh_run_and_notes_an_older_readers_records(runs):
    folder, fresh, old = runs
    verified = run_symphony_bench(
        ["verify", str(fresh), "--docs", "--json", "fresh.json"], cwd=folder
    )
    assert verified.returncode == 0, verified.stdout + verified.stderr
    result = json.loads((folder / "fresh.json").read_text())
    assert result["problems"] == {} and result["notes"] == {}
    assert len(result["reader_versions"][OPEN_TASK]) == 1
    older = run_symphony_bench(["verify", str(old)], cwd=folder)
    assert older.returncode == 0, older.stdout
    assert f"{OPEN_TASK}: read by reader {OLD_READER}, installed " in older.stdout
    assert "re-read with rescore" in older.stdout
    board = run_symphony_bench(
        ["leaderboard", str(fresh), str(old), "--verify", "--out", "readers"], cwd=folder
    )
    assert board.returncode == 0, board.stderr
    marked = [line for line in board.stdout.splitlines() if "rescore before ranking" in line]
    assert {line.split(" | ")[1] for line in marked} == {OPEN_TASK, f"{OPEN_TASK}:prior_adjusted"}
    assert len(marked) == 4  # both runs' rows of each open-ended entry
    assert f"| {OLD_READER} |" in "\n".join(marked)


def test_rescore_counts_the_changed_readings_and_reports_as_a_fresh_evaluation(runs):
    folder, fresh, old = runs
    neutral = [r for r in records(fresh, OPEN_TASK) if r["reference"] == "neutral"]
    assert neutral
    assert sum(r["error"] == "no_reference" for r in records(old, OPEN_TASK)) == sum(
        r["error"] == "no_reference" for r in records(fresh, OPEN_TASK)
    ) + len(neutral)
    before = samples_file(old, OPEN_TASK).read_bytes()
    rescored = run_symphony_bench(["rescore", str(old), "--out", "new"], cwd=folder)
    assert rescored.returncode == 0, rescored.stderr
    assert samples_file(old, OPEN_TASK).read_bytes() == before  # the source run untouched
    summary = json.loads((folder / "new" / "rescore.json").read_text())
    by_task = {row["task"]: row for row in summary["files"].values()}
    assert by_task[OPEN_TASK]["n_changed"] == len(neutral)
    assert by_task[OPEN_TASK]["stored_reader_versions"] == {OLD_READER: 115}
    assert by_task[LIKERT_TASK]["n_changed"] == 0
    for run in ("fresh", "old", "new"):
        completed = run_symphony_bench(["report", run, "--json", f"{run}.report.json"], cwd=folder)
        assert completed.returncode == 0, completed.stderr
    reported = {
        run: json.loads((folder / f"{run}.report.json").read_text())[OPEN_TASK]["summary"]
        for run in ("old", "new")
    }
    change = summary["headline_changes"][OPEN_TASK]["no_reference_rate"]
    expected = reported["new"]["no_reference_rate"] - reported["old"]["no_reference_rate"]
    assert change["change"] == pytest.approx(expected, abs=1e-12) and expected < 0
    low, high = change["ci"]
    assert math.isfinite(low) and low <= change["change"] <= high < 0
    assert f"| {OPEN_TASK} | no_reference_rate | {change['change']:+.4f} |" in rescored.stdout
    assert_same_numbers(
        json.loads((folder / "new.report.json").read_text()),
        json.loads((folder / "fresh.report.json").read_text()),
    )
    for task in (OPEN_TASK, LIKERT_TASK):
        assert records(folder / "new", task) == records(fresh, task)
    (fresh_results,) = fresh.rglob("results_*.json")
    (new_results,) = (folder / "new").rglob("results_*.json")
    assert_same_numbers(
        json.loads(new_results.read_text())["results"],
        json.loads(fresh_results.read_text())["results"],
    )
    assert run_symphony_bench(["verify", "new"], cwd=folder).returncode == 0


def assert_same_numbers(ours, expected, where: str = "") -> None:
    """Equal structures, numbers to 1e-12."""
    if isinstance(expected, dict):
        assert ours.keys() == expected.keys(), where
        for key in expected:
            assert_same_numbers(ours[key], expected[key], f"{where}/{key}")
    elif isinstance(expected, list):
        assert len(ours) == len(expected), where
        for k, (mine, theirs) in enumerate(zip(ours, expected, strict=True)):
            assert_same_numbers(mine, theirs, f"{where}[{k}]")
    elif isinstance(expected, float) and not isinstance(ours, str):
        assert ours == pytest.approx(expected, abs=1e-12, nan_ok=True), where
    else:
        assert ours == expected, where


def edit_record(path: Path, line_index: int, **fields) -> int:
    """Sets `fields` in every copy of one line's record (as a forger would); its doc_id."""
    lines = path.read_text().splitlines()
    sample = json.loads(lines[line_index])
    record = dict(sample["mean_abs"])
    sample.update({key: {**record, **fields} for key, value in sample.items() if value == record})
    lines[line_index] = json.dumps(sample)
    path.write_text("\n".join(lines) + "\n")
    return sample["doc_id"]


def test_verify_names_each_edit_and_the_leaderboard_marks_the_run(runs):
    folder, fresh, old = runs
    tampered = folder / "tampered"
    shutil.copytree(fresh, tampered)
    open_records = records(fresh, OPEN_TASK)
    flipped_line = next(k for k, r in enumerate(open_records) if r["reference"] == "male")
    flipped = edit_record(
        samples_file(tampered, OPEN_TASK), flipped_line, reference="female", scores=[0, 1, 0]
    )
    likert = records(fresh, LIKERT_TASK)
    rated_line = next(k for k, r in enumerate(likert) if not r["error"] and r["scores"][0] < 5)
    rated = edit_record(
        samples_file(tampered, LIKERT_TASK),
        rated_line,
        scores=[likert[rated_line]["scores"][0] + 1, *likert[rated_line]["scores"][1:]],
    )
    (results_path,) = tampered.rglob("results_*.json")
    results = json.loads(results_path.read_text())
    results["results"][LIKERT_TASK]["invalid_rate,likert_json"] = 0.5
    results_path.write_text(json.dumps(results))
    verified = run_symphony_bench(["verify", str(tampered), "--json", "tampered.json"], cwd=folder)
    assert verified.returncode == 1, verified.stdout + verified.stderr
    problems = json.loads((folder / "tampered.json").read_text())["problems"]
    readings = problems["stored readings that differ from their raw answer's"]
    assert sorted(readings) == sorted(
        [
            f"{OPEN_TASK} doc {flipped} (reference, scores)",
            f"{LIKERT_TASK} doc {rated} (scores)",
        ]
    )
    values = problems["results-file values that differ from the samples' aggregation"]
    assert any(v.startswith(f"{LIKERT_TASK} invalid_rate,likert_json: 0.5 stored") for v in values)
    assert "stored readings that differ from their raw answer's: 2 (" in verified.stdout
    board = run_symphony_bench(
        ["leaderboard", str(fresh), str(tampered), "--verify", "--out", "board"], cwd=folder
    )
    assert board.returncode == 1, board.stderr
    assert f"- {tampered}: FAILED verification" in board.stdout
    assert f"- {fresh}: verified" in board.stdout
    # a record naming another seed than its doc (and than the task's other records), and a doc
    # edited without its doc_hash
    reseeded = edit_record(samples_file(tampered, OPEN_TASK), flipped_line + 1, seed=99)
    path = samples_file(tampered, LIKERT_TASK)
    lines = path.read_text().splitlines()
    sample = json.loads(lines[0])
    sample["doc"]["scenario"] += " Edited."
    path.write_text("\n".join([json.dumps(sample), *lines[1:]]) + "\n")
    verified = run_symphony_bench(
        ["verify", str(tampered), "--docs", "--json", "tampered.json"], cwd=folder
    )
    assert verified.returncode == 1, verified.stdout + verified.stderr
    problems = json.loads((folder / "tampered.json").read_text())["problems"]
    assert problems["records whose doc fields differ from the logged doc's"] == [
        f"{OPEN_TASK} doc {reseeded} (seed)"
    ]
    assert problems["logged docs that differ from their doc_hash"] == [
        f"{LIKERT_TASK} doc {sample['doc_id']}"
    ]
    assert problems["logged docs that differ from the docs the task builds (--docs)"] == [
        f"{LIKERT_TASK} doc {sample['doc_id']}"
    ]
    (contradiction,) = problems["provenance facts that contradict each other"]
    assert "disagree" in contradiction and "99" in contradiction
