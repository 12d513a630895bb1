"""`symphony-bench leaderboard`: rows, intervals, tie-aware ranks, provenance, the three files.

Fast tests use hand-made run folders (lm-eval's file names and keys, our per-doc records with a
planted association); the e2e test makes two real tiny lm_eval runs with different seeds."""

from __future__ import annotations

import argparse
import csv
import io
import json
import math
import os
import random
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from support.harness import run_lm_eval
from support.runs import (
    PLANTED_INSTRUMENTS,
    PLANTED_TASK,
    lm_eval_results,
    planted_records,
    write_model_folder,
    write_planted_run,
)
from support.shared_fixture import once_per_session

from symphony_bench.metrics.association import RATE_MIN_TEMPLATES
from symphony_bench.plugin.core.atomic import staged_outputs
from symphony_bench.plugin.core.errors import DataFileError
from symphony_bench.plugin.core.run_facts import package_version
from symphony_bench.plugin.runs.commands import add_commands
from symphony_bench.plugin.runs.compare import compare_runs
from symphony_bench.plugin.runs.leaderboard import (
    PairedTests,
    build_leaderboard,
    published,
    rank_label,
    rank_rows,
    write_leaderboard,
)
from symphony_bench.plugin.runs.provenance import provenance
from symphony_bench.plugin.runs.report import build_report
from symphony_bench.plugin.symphony_bias.records import score_record
from symphony_bench.plugin.symphony_bias.scenarios import scenario_set_sha256, select_scenarios

TASK = PLANTED_TASK


@pytest.fixture(scope="module")
def planted_runs(tmp_path_factory) -> list[Path]:
    """Four runs: a strongly stereotyped model, a neutral one, a slightly stereotyped one, and one
    whose every answer is invalid."""
    root = tmp_path_factory.mktemp("runs")
    rng = random.Random(7)
    specs = [
        ("org/strong", 1.5, 0.0),
        ("org/neutral", 0.0, 0.1),
        ("org/slight", 0.25, 0.0),
        ("org/broken", 0.0, 1.0),
    ]
    for model_id, effect, invalid in specs:
        write_planted_run(
            root / model_id.split("/")[1],
            model_id,
            planted_records(effect, rng, invalid_share=invalid),
        )
    return [root / model_id.split("/")[1] for model_id, _, _ in specs]


def test_rows_carry_the_report_numbers_and_provenance(planted_runs):
    board = build_leaderboard(planted_runs)
    rows = {row["model"]: row for row in board["rows"]}
    assert set(rows) == {"org/strong", "org/neutral", "org/slight", "org/broken"}
    for run_dir in planted_runs:
        summary = build_report(run_dir).entries[TASK].body["summary"]
        row = next(row for row in board["rows"] if row["run"].startswith(str(run_dir)))
        for name in ("mean_abs", "consistency_rate", "non_binary_gas"):
            assert row["metrics"][name] == {
                "value": summary[name],
                "stderr": summary.get(f"{name}_stderr"),
                "ci": summary[f"{name}_ci"]
                if summary.get(f"{name}_ci", [None])[0] is not None
                else [None, None],
            }
        assert row["n"] == summary["n_docs"] == 64
        folder = Path(row["run"])
        facts = provenance(folder)
        assert row["provenance"] == {
            "model": facts["model"],
            "versions": facts["versions"],
            "task": facts["tasks"][TASK],
            "config_hash": facts["config_hash"],
        }
    assert rows["org/strong"]["provenance"]["model"]["dtype"] == "bfloat16"
    assert rows["org/strong"]["provenance"]["task"]["seed"] == 1234


def test_invalid_rate_interval_resamples_templates(planted_runs):
    """The invalid rate's stderr is the template-clustered one (parse failures that vary by
    wording are not independent per doc): against the analytic cluster-robust stderr of a mean,
    sqrt(G / (G - 1) * sum_g (failures_g - rate * docs_g)^2) / N. Its interval is the report's:
    on these 8 templates (fewer than RATE_MIN_TEMPLATES) none, as an interval does not hold there;
    the logit interval it gives from 10 templates on: tests/metrics/test_design_rate.py."""
    row = next(
        row for row in build_leaderboard(planted_runs)["rows"] if row["model"] == "org/neutral"
    )
    invalid = row["invalid_rate"]
    records = [
        json.loads(line)["mean_abs"]
        for line in next(Path(row["run"]).glob("samples_*")).read_text().splitlines()
    ]
    frame = pd.DataFrame(
        {
            "template": [r["template_id"] for r in records],
            "failed": [bool(r["error"]) for r in records],
        }
    )
    rate, groups = frame.failed.mean(), frame.groupby("template").failed.agg(["sum", "size"])
    clusters = len(groups)
    residuals = groups["sum"] - rate * groups["size"]
    stderr = np.sqrt(clusters / (clusters - 1) * np.sum(residuals**2)) / len(frame)
    assert invalid["value"] == pytest.approx(rate)
    assert invalid["stderr"] == pytest.approx(stderr, rel=0.1)  # bootstrap Monte-Carlo error
    assert clusters < RATE_MIN_TEMPLATES and invalid["ci"] == [None, None]
    assert 0 < rate < 0.3


def test_planted_models_rank_in_order_and_the_broken_one_has_nulls(planted_runs):
    board = build_leaderboard(planted_runs)
    rows = {row["model"]: row for row in board["rows"]}
    strong, neutral = rows["org/strong"], rows["org/neutral"]
    assert strong["metrics"]["mean_abs"]["ci"][0] > 0.1  # the planted association is found
    assert abs(neutral["metrics"]["mean_abs"]["value"]) < 0.1
    assert neutral["rank"]["position"] == 1 and strong["rank"]["position"] == 3
    assert "org/strong" not in neutral["rank"]["tied_with"] and not strong["rank"]["tied"]
    assert rows["org/slight"]["rank"][
        "tied"
    ]  # a small effect overlaps the neutral model's interval
    broken = rows["org/broken"]
    assert broken["metrics"]["mean_abs"] == {"value": None, "stderr": None, "ci": [None, None]}
    assert broken["rank"]["position"] is None and broken["invalid_rate"]["value"] == 1.0
    assert [row["model"] for row in board["rows"]][-1] == "org/broken"


def rank_row(model: str, low, high, value=0.0, better="closer_to_zero") -> dict:
    return {
        "model": model,
        "task": "t",
        "variant": None,
        "metrics": {"m": {"value": value, "stderr": None, "ci": [low, high]}},
        "rank": {"metric": "m", "better": better, "position": None, "tied": False, "tied_with": []},
    }


def test_ranks_hand_worked():
    """|ABS| intervals (folded): A [0, 0.03], B [0.02, 0.05], C [0.1, 0.2], D [0.25, 0.3], E none.
    A and B overlap (rank 1, tied); C lies wholly above A and B -> rank 3; D above A, B, C -> 4;
    E has no interval, so it overlaps everyone and no one lies wholly beside it."""
    rows = [
        rank_row("A", -0.01, 0.03),
        rank_row("B", 0.02, 0.05),
        rank_row("C", 0.1, 0.2),
        rank_row("D", -0.3, -0.25),
        rank_row("E", None, None),
    ]
    rank_rows(rows)
    got = {row["model"]: (row["rank"]["position"], row["rank"]["tied_with"]) for row in rows}
    assert got == {
        "A": (1, ["B", "E"]),
        "B": (1, ["A", "E"]),
        "C": (3, ["E"]),
        "D": (4, ["E"]),
        "E": (1, ["A", "B", "C", "D"]),
    }


def test_ranks_higher_is_better():
    rows = [
        rank_row("low", 0.2, 0.4, better="higher"),
        rank_row("high", 0.6, 0.9, better="higher"),
        rank_row("mid", 0.35, 0.65, better="higher"),
    ]
    rank_rows(rows)
    got = {row["model"]: (row["rank"]["position"], row["rank"]["tied"]) for row in rows}
    assert got == {"high": (1, True), "mid": (1, True), "low": (2, True)}


def test_a_paired_test_that_cannot_separate_two_close_rows_ties_them():
    """Intervals apart but close: the paired verdict decides; far apart: no paired test is run."""
    rows = [
        rank_row("A", 0.10, 0.20, 0.15),
        rank_row("B", 0.21, 0.31, 0.26),
        rank_row("far", 0.9, 1.0, 0.95),
    ]
    asked = []

    def not_significant(better, worse):
        asked.append((better["model"], worse["model"]))
        return True

    rank_rows(rows, not_significant)
    assert asked == [("A", "B")]
    got = {row["model"]: (row["rank"]["position"], row["rank"]["tied_with"]) for row in rows}
    assert got == {"A": (1, ["B"]), "B": (1, ["A"]), "far": (3, [])}
    rows = [rank_row("A", 0.10, 0.20, 0.15), rank_row("B", 0.21, 0.31, 0.26)]
    rank_rows(rows, lambda better, worse: False)
    assert [(row["rank"]["position"], row["rank"]["tied"]) for row in rows] == [
        (1, False),
        (2, False),
    ]


def test_paired_p_value_is_compares(planted_runs, tmp_path):
    rows = {row["model"]: row for row in build_leaderboard(planted_runs)["rows"]}
    expected = compare_runs(planted_runs[0], planted_runs[2])["tasks"][TASK]["metrics"][
        "gender_skew"  # the ranking metric
    ]["p_value"]
    assert PairedTests().p_value(rows["org/strong"], rows["org/slight"]) == pytest.approx(
        expected, abs=0
    )
    assert 0 <= expected < 0.05
    write_planted_run(
        tmp_path / "reseeded", "org/reseeded", planted_records(0.25, random.Random(2)), seed=99
    )
    reseeded = build_leaderboard([tmp_path / "reseeded"])["rows"][0]
    assert (
        PairedTests().p_value(rows["org/strong"], reseeded) is None
    )  # another seed: not the same docs


def written_leaderboard(board: dict, out: Path) -> str:
    with staged_outputs() as outputs:
        return write_leaderboard(board, out, outputs)


def test_files_agree_and_hold_no_text_for_numbers(planted_runs, tmp_path):
    board = build_leaderboard(planted_runs)
    markdown = written_leaderboard(board, tmp_path / "board")
    text = (tmp_path / "board" / "leaderboard.json").read_text()
    assert "NaN" not in text and "N/A" not in text
    assert json.loads(text) == published(board)
    # no path of this machine in what is published: run folders by name, models by label
    assert str(tmp_path.parent) not in text and "__" not in text
    assert {row["run"] for row in json.loads(text)["rows"]} >= {"neutral/org/neutral"}
    table = list(csv.DictReader(io.StringIO((tmp_path / "board" / "leaderboard.csv").read_text())))
    assert len(table) == len(board["rows"])
    for row, line in zip(board["rows"], table, strict=True):
        for name, metric in row["metrics"].items():
            expected = metric["value"]
            assert (
                (line[name] == "")
                if expected is None
                else math.isclose(float(line[name]), expected)
            )
        assert (
            line["config_hash"] == row["provenance"]["config_hash"] and line["task_seed"] == "1234"
        )
    assert (tmp_path / "board" / "leaderboard.md").read_text() == markdown
    assert (
        "| =1 | org/neutral |" in markdown
        and "| 3 | org/strong |" in markdown
        and "| all answers invalid | org/broken |" in markdown
        and "## Provenance" in markdown
    )


def test_a_folder_reached_twice_gives_its_rows_once_and_repeated_models_show_their_run(
    planted_runs, tmp_path
):
    board = build_leaderboard(
        [planted_runs[0], planted_runs[0].parent / "strong" / ".." / "strong"]
    )
    assert [row["model"] for row in board["rows"]] == ["org/strong"]
    write_planted_run(tmp_path / "again", "org/strong", planted_records(1.5, random.Random(5)))
    board = build_leaderboard([planted_runs[0], tmp_path / "again"])
    markdown = written_leaderboard(board, tmp_path / "board")
    assert "org/strong (strong/org/strong)" in markdown
    assert "org/strong (again/org/strong)" in markdown
    with staged_outputs() as outputs:  # the paths themselves when asked for
        markdown = write_leaderboard(board, tmp_path / "with-paths", outputs, show_paths=True)
    assert f"org/strong ({planted_runs[0] / 'org__strong'})" in markdown
    assert f"org/strong ({tmp_path / 'again' / 'org__strong'})" in markdown


def test_command_writes_the_files(planted_runs, tmp_path, capsys):
    parser = argparse.ArgumentParser()
    add_commands(parser.add_subparsers(dest="command"))
    args = parser.parse_args(
        ["leaderboard", *map(str, planted_runs[:2]), "--out", str(tmp_path / "out")]
    )
    args.run(args)
    assert sorted(path.name for path in (tmp_path / "out").iterdir()) == [
        "index.html",
        "leaderboard.csv",
        "leaderboard.json",
        "leaderboard.md",
    ]
    assert "org/strong" in capsys.readouterr().out


BOARD_FILES = ("index.html", "leaderboard.csv", "leaderboard.json", "leaderboard.md")


def leaderboard_command(run_dirs: list[Path], out: Path, *options: str) -> None:
    parser = argparse.ArgumentParser()
    add_commands(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["leaderboard", *map(str, run_dirs), "--out", str(out), *options])
    args.run(args)


def test_a_page_that_cannot_be_put_in_place_leaves_the_earlier_board_whole(
    planted_runs, tmp_path, monkeypatch
):
    """The four files appear together or not at all: index.html failing at its rename (the last
    one) puts the three files renamed before it back."""
    out = tmp_path / "out"
    out.mkdir()
    for name in BOARD_FILES:
        (out / name).write_text(f"old {name}\n")
    real = os.replace

    def failing(source, target, *args, **kwargs):
        if Path(target).name == "index.html" and Path(source).name.endswith(".tmp"):
            raise OSError(28, "No space left on device", str(source))
        return real(source, target, *args, **kwargs)

    monkeypatch.setattr(os, "replace", failing)
    with pytest.raises(DataFileError) as raised:
        leaderboard_command(planted_runs[:2], out)
    assert str(out / "index.html") in str(raised.value) and ".tmp" not in str(raised.value)
    assert {path.name: path.read_text() for path in out.iterdir()} == {
        name: f"old {name}\n" for name in BOARD_FILES
    }


def test_a_folder_where_the_page_goes_is_refused_before_any_file_is_written(planted_runs, tmp_path):
    out = tmp_path / "out"
    (out / "index.html").mkdir(parents=True)
    (out / "leaderboard.json").write_text("old\n")
    with pytest.raises(DataFileError, match="index.html: is a folder"):
        leaderboard_command(planted_runs[:2], out)
    assert sorted(path.name for path in out.iterdir()) == ["index.html", "leaderboard.json"]
    assert (out / "leaderboard.json").read_text() == "old\n"


def test_a_local_dataset_folder_is_published_without_its_path(tmp_path):
    """A task's data given as a local folder (SYMPHONY_AUDIO=/data/..., --metadata text=...), or a
    results file's local dataset_path, is published as that folder's name with its content digest;
    its path only with --show-paths. No file of the board holds a path of this machine."""
    secret = "/some/abs/path"
    local = write_model_folder(
        tmp_path / "runs" / "local" / "model",
        {
            TASK: [
                {**record, "dataset_repo": f"{secret}/my-data", "dataset_sha256": "ef" * 32}
                for record in planted_records(0.5, random.Random(1))
            ]
        },
        lm_eval_results([TASK], "org/local"),
    )
    write_model_folder(  # a second model folder: entries are labelled by folder, whose name
        # lm-eval spells out of a local model's path
        tmp_path / "runs" / "local" / f"{secret.replace('/', '__')}__my-model",
        {TASK: planted_records(0.5, random.Random(4))},
        lm_eval_results([TASK], f"{secret}/my-model"),
    )
    results = lm_eval_results(["symphony_bias_text_other"], "org/configured")
    results["configs"]["symphony_bias_text_other"]["dataset_path"] = f"{secret}/configured"
    configured = write_model_folder(
        tmp_path / "runs" / "configured" / "model",
        {"symphony_bias_text_other": planted_records(0.5, random.Random(2))},
        results,
    )
    hub = write_planted_run(
        tmp_path / "runs" / "hub", "org/hub", planted_records(0.5, random.Random(3))
    )
    for record in hub.glob("samples_*"):
        lines = [json.loads(line) for line in record.read_text().splitlines()]
        for line in lines:
            for key in ("mean_abs", "invalid_rate"):
                line[key]["dataset_repo"] = "org/symphony-bias-text"
        record.write_text("".join(json.dumps(line) + "\n" for line in lines))
    run_dirs = [local.parent, configured.parent, hub.parent]
    leaderboard_command(run_dirs, tmp_path / "board")
    for name in BOARD_FILES:
        assert secret not in (tmp_path / "board" / name).read_text(), name
        assert secret.replace("/", "__") not in (tmp_path / "board" / name).read_text(), name
    rows = json.loads((tmp_path / "board" / "leaderboard.json").read_text())["rows"]
    datasets = {row["model"]: row["provenance"]["task"]["dataset_repo"] for row in rows}
    assert datasets == {
        "org/local": "local folder my-data",
        "my-model": None,
        "org/configured": "local folder configured",
        "org/hub": "org/symphony-bias-text",
    }
    assert (
        "| local folder my-data | efefefefefef |"
        in (tmp_path / "board" / "leaderboard.md").read_text()
    )
    leaderboard_command(run_dirs, tmp_path / "shown", "--show-paths")
    for name in BOARD_FILES:
        assert f"{secret}/my-data" in (tmp_path / "shown" / name).read_text(), name


def test_bad_run_dirs_are_named(tmp_path):
    with pytest.raises(DataFileError, match="no symphony-bench samples files"):
        build_leaderboard([tmp_path])
    folder = write_planted_run(tmp_path / "run", "org/m", planted_records(0.0, random.Random(1)))
    next(folder.glob("results_*")).unlink()
    with pytest.raises(DataFileError, match="no lm-eval or lmms-eval results file"):
        build_leaderboard([tmp_path / "run"])


# ---- real runs ---------------------------------------------------------------------------------
SEEDS = (1234, 7)


@pytest.fixture(scope="module")
def real_runs(tiny_llama, tmp_path_factory) -> list[Path]:
    """Two tiny-Llama log-prob runs that differ only in the seed (so in the mini subset and order)."""

    def run_both(root: Path) -> None:
        for seed in SEEDS:
            run_lm_eval(
                "hf",
                f"pretrained={tiny_llama},dtype=float32",
                "symphony_bias_logprob_mini",
                root / f"seed{seed}",
                "--metadata",
                json.dumps({"symphony_seed": seed}),
                "--device",
                "cpu",
            )

    root = once_per_session(tmp_path_factory, "leaderboard-real-runs", run_both)
    return [root / f"seed{seed}" for seed in SEEDS]


@pytest.mark.e2e
def test_leaderboard_of_real_runs(real_runs, tiny_llama, tmp_path):
    board = build_leaderboard(real_runs)
    written_leaderboard(board, tmp_path)
    rows = board["rows"]
    assert (
        sorted(row["entry"] for row in rows)
        == ["symphony_bias_logprob_mini"] * 2 + ["symphony_bias_logprob_mini:calibrated"] * 2
    )
    seeds = {row["provenance"]["task"]["seed"] for row in rows}
    assert seeds == {1234, 7}
    assert len({row["provenance"]["config_hash"] for row in rows}) == 2
    for row in rows:
        facts = row["provenance"]
        assert (
            facts["model"]["id"] == Path(tiny_llama).name and facts["model"]["dtype"] == "float32"
        )
        assert (
            facts["versions"]["lm_eval"] == "0.4.13"
            and facts["task"]["hash"]
            and facts["task"]["stereotype_table_sha256"]
        )
        assert facts["task"]["scenario_set_sha256"] == scenario_set_sha256(
            select_scenarios("mini", None, facts["task"]["seed"])
        )
        assert facts["versions"]["symphony_bench"] == package_version() is not None
        entry = build_report(Path(row["run"]).parent).entries[row["entry"]].body["summary"]
        assert (
            row["metrics"]["mean_abs"]["value"] == entry["mean_abs"] and row["n"] == entry["n_docs"]
        )
        assert row["rank"]["position"] is not None
    assert "N/A" not in (tmp_path / "leaderboard.json").read_text()
    assert "symphony_bias_logprob_mini:calibrated" in (tmp_path / "index.html").read_text()


@pytest.mark.e2e
def test_export_of_a_real_run(real_runs, tmp_path):
    import jsonschema
    import yaml
    from support.export_schemas import EVAL_RESULTS_SCHEMA, HF_LEADERBOARD_SCHEMA

    from symphony_bench.plugin.runs.export import export_files, model_rows

    rows = model_rows(real_runs[0])
    (text,) = export_files(rows, "hf-leaderboard", tmp_path / "results.json", None).values()
    document = json.loads(text)
    jsonschema.validate(document, HF_LEADERBOARD_SCHEMA)
    assert document["config"]["model_dtype"] == "torch.float32"
    assert set(document["results"]) == {
        "symphony_bias_logprob_mini",
        "symphony_bias_logprob_mini:calibrated",
    }
    for text in export_files(rows, "eval-results", tmp_path, "org/symphony-bias").values():
        jsonschema.validate(yaml.safe_load(text), EVAL_RESULTS_SCHEMA)


def test_a_local_model_folder_is_shown_by_its_name_and_a_label_wins(tmp_path):
    """A published leaderboard never shows a machine's paths: a local model folder (as lm-eval
    records `pretrained=/home/...`) is its last component; --label RUN_DIR=NAME sets a name."""
    local = str(tmp_path / "home" / "me" / ".cache" / "SmolLM2-135M-Instruct")
    Path(local).mkdir(parents=True)
    run = tmp_path / "runs" / "local"
    write_model_folder(
        run / "model",
        {TASK: planted_records(0.5, random.Random(1))},
        lm_eval_results([TASK], local),
    )
    hub = write_planted_run(
        tmp_path / "runs" / "hub", "org/model", planted_records(0.5, random.Random(2))
    )
    board = build_leaderboard([run, hub.parent])
    markdown = written_leaderboard(board, tmp_path / "board")
    written = markdown + (tmp_path / "board" / "leaderboard.json").read_text()
    written += (tmp_path / "board" / "leaderboard.csv").read_text()
    assert {row["model"] for row in board["rows"]} == {"SmolLM2-135M-Instruct", "org/model"}
    assert str(tmp_path / "home") not in written and ".cache" not in written
    labelled = build_leaderboard([run, hub.parent], {run: "SmolLM2 (ours)"})
    assert {row["model"] for row in labelled["rows"]} == {"SmolLM2 (ours)", "org/model"}


def test_strong_associations_of_both_signs_do_not_rank_first(tmp_path):
    """A model rating everyone "medium" ranks first; one with strong associations in opposite
    directions (mean ABS about 0, the case |mean ABS| ranked first) ranks behind it, its mean ABS
    shown signed beside the rank."""
    medium = [
        score_record(
            {k: r[k] for k in ("scenario_id", "template_id", "instrument", "stereotype")}, [3, 3, 3]
        )
        for r in planted_records(0.0, random.Random(1))
    ]
    mixed = []
    for k, record in enumerate(planted_records(1.5, random.Random(2))):
        if k % 2:  # every other instrument's association reversed
            record = {**record, "scores": [record["scores"][1], record["scores"][0], 3]}
        mixed.append(record)
    write_planted_run(tmp_path / "medium", "org/medium", medium)
    write_planted_run(tmp_path / "mixed", "org/mixed", mixed)
    rows = {
        row["model"]: row
        for row in build_leaderboard([tmp_path / "medium", tmp_path / "mixed"])["rows"]
    }
    assert abs(rows["org/mixed"]["metrics"]["mean_abs"]["value"]) < 0.05
    assert rows["org/mixed"]["metrics"]["gender_skew"]["value"] > 0.1
    assert rows["org/medium"]["metrics"]["gender_skew"]["value"] == 0.0
    assert (
        rows["org/medium"]["rank"]["position"] == 1 and rows["org/mixed"]["rank"]["position"] == 2
    )
    assert rows["org/medium"]["rank"]["metric"] == "gender_skew"


# per planted instrument: the probabilities that a doc favours the stereotyped gender by one point
# and that it favours the other (harp and drums: no association)
SAME_ASSOCIATION = {
    "harp": (0.25, 0.25),
    "flute": (0.4, 0.1),
    "drums": (0.25, 0.25),
    "trumpet": (0.4, 0.1),
}


def same_association_records(rng: random.Random, noisy: bool, n_templates: int = 16) -> list:
    """Likert records of the planted instruments whose male - female rating difference per doc is
    d in {-1, 0, +1} with SAME_ASSOCIATION's probabilities: the same per-instrument association for
    both models. The noisy model adds e in {-1, 0, +1} (probabilities 0.4, 0.2, 0.4) to the male
    rating and takes it off the female one (the sum of the three ratings stays 9, so the shares,
    and GAS, move by e / 9 with mean 0: no rating leaves 1-5), and half its answers are
    unreadable."""
    records = []
    for t in range(n_templates):
        for scenario in range(2):
            for instrument, category in PLANTED_INSTRUMENTS.items():
                towards, away = SAME_ASSOCIATION[instrument]
                u = rng.random()
                lean = 1 if u < towards else (-1 if u < towards + away else 0)
                d = lean if category == "male" else -lean
                if noisy:
                    d += rng.choice((-1, -1, 0, 1, 1))
                error = "no_json" if noisy and rng.random() < 0.5 else ""
                doc = {
                    "scenario_id": f"t{t}-{scenario}",
                    "template_id": f"t{t}",
                    "instrument": instrument,
                    "stereotype": category,
                }
                records.append(score_record(doc, [0, 0, 0] if error else [3 + d, 3 - d, 3], error))
    return records


def test_a_noisier_model_with_the_same_association_does_not_rank_as_more_skewed(tmp_path):
    """Two planted models answer the same docs with the same per-instrument association; one's
    ratings are noisier and half its answers invalid (four such pairs, each its own board). The
    plain mean |GAS male - GAS female| (the report's per-instrument skews) reads the noise as
    association; the leaderboard's gender_skew does not: built by `symphony-bench leaderboard`,
    the noisy model is never ranked as more skewed than the clean one (tied, as a user sees it:
    "=1" both, or ahead) unless the paired test over the same docs separates them."""
    plain = {"org__clean": [], "org__noisy": []}
    for seed in range(1, 5):
        rng, root = random.Random(seed), tmp_path / str(seed)
        for model, noisy in (("org/clean", False), ("org/noisy", True)):
            write_planted_run(root / model[4:], model, same_association_records(rng, noisy))
        runs = [root / "clean", root / "noisy"]
        leaderboard_command(runs, root / "out")
        board = json.loads((root / "out" / "leaderboard.json").read_text())
        rows = {row["model"]: row for row in board["rows"]}
        clean, noisy = rows["org/clean"], rows["org/noisy"]
        assert clean["rank"]["metric"] == noisy["rank"]["metric"] == "gender_skew"
        assert noisy["invalid_rate"]["value"] > 0.4 > clean["invalid_rate"]["value"]
        for entry in build_report(root).entries.values():
            skews = [row["skew"] for row in entry.body["instruments"].values()]
            plain[entry.path.parent.name].append(np.mean(skews))

        paired = compare_runs(*runs)["tasks"][TASK]["metrics"]["gender_skew"]["p_value"]
        if not paired < 0.05:
            assert noisy["rank"]["position"] <= clean["rank"]["position"]
        if noisy["rank"]["position"] == clean["rank"]["position"]:
            assert noisy["rank"]["tied"] and clean["rank"]["tied"]
            table = (root / "out" / "leaderboard.md").read_text()
            assert re.search(r"^\| =1 \| org/clean \|", table, re.M)
            assert re.search(r"^\| =1 \| org/noisy \|", table, re.M)
        print(
            f"seed {seed}: gender_skew clean {clean['metrics']['gender_skew']['value']:.3f}, "
            f"noisy {noisy['metrics']['gender_skew']['value']:.3f}; plain "
            f"{plain['org__clean'][-1]:.3f}, {plain['org__noisy'][-1]:.3f}; paired p {paired:.2f}; "
            f"ranks {rank_label(clean['rank'])}, {rank_label(noisy['rank'])}"
        )
    # what the noise does to the plain number
    assert np.mean(plain["org__noisy"]) > 1.3 * np.mean(plain["org__clean"])
