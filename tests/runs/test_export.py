"""`symphony-bench export`: each format validated against a schema written from its documentation
(tests/support/export_schemas.py).
(The real-run check is in test_leaderboard.py's e2e test, which shares its lm_eval runs.)"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

import jsonschema
import pytest
import yaml
from support.export_schemas import EVAL_RESULTS_SCHEMA, HF_LEADERBOARD_SCHEMA
from support.runs import PLANTED_TASK as TASK
from support.runs import planted_records, write_planted_run

from symphony_bench.plugin.core.errors import DataFileError
from symphony_bench.plugin.runs.commands import add_commands
from symphony_bench.plugin.runs.export import (
    export_files,
    hf_leaderboard_results,
    model_rows,
)
from symphony_bench.plugin.runs.leaderboard import build_leaderboard


@pytest.fixture(scope="module")
def one_run(tmp_path_factory) -> Path:
    run_dir = tmp_path_factory.mktemp("export") / "run"
    write_planted_run(
        run_dir, "org/model", planted_records(1.0, random.Random(3), invalid_share=0.1)
    )
    return run_dir


def test_hf_leaderboard_matches_the_template(one_run, tmp_path):
    files = export_files(model_rows(one_run), "hf-leaderboard", tmp_path / "results.json", None)
    assert list(files) == [tmp_path / "results.json"]
    document = json.loads(files[tmp_path / "results.json"])
    jsonschema.validate(document, HF_LEADERBOARD_SCHEMA)
    row = build_leaderboard([one_run])["rows"][0]
    assert document["config"] == {
        "model_dtype": "torch.bfloat16",
        "model_name": "org/model",
        "model_sha": "0123abcd",
    }
    scores = document["results"][TASK]
    assert (
        scores["mean_abs"] == row["metrics"]["mean_abs"]["value"]
        and scores["mean_abs_stderr"] == row["metrics"]["mean_abs"]["stderr"]
    )
    assert scores["invalid_rate"] == row["invalid_rate"]["value"] > 0
    assert scores["gender_skew"] == row["metrics"]["gender_skew"]["value"]
    assert scores["gender_skew_stderr"] == row["metrics"]["gender_skew"]["stderr"] > 0


def test_eval_results_match_the_hub_format(one_run, tmp_path):
    files = export_files(
        model_rows(one_run), "eval-results", tmp_path / ".eval_results", "org/symphony-bias"
    )
    assert list(files) == [tmp_path / ".eval_results" / f"{TASK}.yaml"]
    entries = yaml.safe_load(next(iter(files.values())))
    jsonschema.validate(entries, EVAL_RESULTS_SCHEMA)
    row = build_leaderboard([one_run])["rows"][0]
    ranked = row["metrics"]["gender_skew"]  # the value is the entry's ranking metric
    assert row["rank"]["metric"] == "gender_skew" and entries[0]["notes"].startswith("gender_skew;")
    assert entries[0]["dataset"] == {"id": "org/symphony-bias", "task_id": TASK}
    assert entries[0]["value"] == ranked["value"]
    low, high = ranked["ci"]
    assert f"95% CI [{low:.4f}, {high:.4f}]" in entries[0]["notes"]
    assert f"invalid rate {row['invalid_rate']['value']:.4f}" in entries[0]["notes"]
    assert row["provenance"]["config_hash"][:12] in entries[0]["notes"]


def test_the_schemas_reject_what_the_documents_forbid():
    """The schemas can fail: a score given as text, an entry without a value."""
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(
            {
                "config": {"model_dtype": "torch.float16", "model_name": "m", "model_sha": ""},
                "results": {"t": {"acc": "N/A"}},
            },
            HF_LEADERBOARD_SCHEMA,
        )
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate([{"dataset": {"id": "org/d", "task_id": "t"}}], EVAL_RESULTS_SCHEMA)


def test_a_recorded_hub_dataset_wins_and_a_missing_one_is_named(one_run, tmp_path):
    rows = model_rows(one_run)
    with pytest.raises(DataFileError, match="pass --dataset-id"):
        export_files(rows, "eval-results", tmp_path / "a", None)
    rows[0]["provenance"]["task"].update(dataset_repo="org/audio-set", dataset_revision="r1")
    (text,) = export_files(rows, "eval-results", tmp_path / "b", "org/other").values()
    entry = yaml.safe_load(text)[0]
    assert entry["dataset"] == {"id": "org/audio-set", "task_id": TASK, "revision": "r1"}


def test_one_model_folder_at_a_time(tmp_path):
    for model_id in ("org/a", "org/b"):
        write_planted_run(tmp_path / "run", model_id, planted_records(0.5, random.Random(1)))
    with pytest.raises(DataFileError, match="export one at a time"):
        model_rows(tmp_path / "run")


def test_command(one_run, tmp_path, capsys):
    parser = argparse.ArgumentParser()
    add_commands(parser.add_subparsers(dest="command"))
    args = parser.parse_args(
        ["export", str(one_run), "--format", "hf-leaderboard", "--out", str(tmp_path / "r.json")]
    )
    args.run(args)
    assert json.loads((tmp_path / "r.json").read_text()) == hf_leaderboard_results(
        model_rows(one_run)
    )
    assert str(tmp_path / "r.json") in capsys.readouterr().out


@pytest.mark.parametrize(
    "sha, revision, expected",
    [
        (None, "main", ""),
        (None, "v1.2", ""),
        (None, "0123abcd", "0123abcd"),
        ("feed", "main", "feed"),
    ],
)
def test_model_sha_is_a_commit_never_a_branch_name(one_run, tmp_path, sha, revision, expected):
    rows = model_rows(one_run)
    rows[0]["provenance"]["model"].update(sha=sha, revision=revision)
    (text,) = export_files(rows, "hf-leaderboard", tmp_path / "r.json", None).values()
    assert json.loads(text)["config"]["model_sha"] == expected
