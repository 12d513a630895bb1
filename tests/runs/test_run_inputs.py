"""The commands that read finished runs (`report`, `compare`, `leaderboard`, `export`, `check`) as an
adversarial user drives them: outputs aimed at their own inputs, damaged samples and results files,
FIFOs, linked and unreadable folders, a write that fails half-way. Each is refused with one error
line naming the file, or said and passed over; no input changes and no output appears half-written.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import signal
from pathlib import Path

import pytest
from support.runs import PLANTED_TASK, planted_records, write_planted_run

from symphony_bench.plugin import cli
from symphony_bench.plugin.runs import files as run_file_names


@pytest.fixture
def run(tmp_path) -> Path:
    run_dir = tmp_path / "run"
    write_planted_run(run_dir, "org/model", planted_records(1.0, random.Random(1)))
    return run_dir


def samples_file(run_dir: Path) -> Path:
    return next(run_dir.glob("*/samples_*.jsonl"))


def results_file(run_dir: Path) -> Path:
    return next(run_dir.glob("*/results_*.json"))


def digests(folder: Path) -> dict[str, str]:
    return {
        str(path): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


def every_command(run_dir: Path, out: Path) -> dict[str, list[str]]:
    """Each command that reads `run_dir`, writing under `out`."""
    return {
        "report": ["report", str(run_dir), "--json", str(out / "report.json")],
        "compare": ["compare", str(run_dir), str(run_dir), "--n-boot", "20"],
        "leaderboard": ["leaderboard", str(run_dir), "--out", str(out / "board")],
        "export": [
            *("export", str(run_dir), "--format", "hf-leaderboard"),
            *("--out", str(out / "hf.json")),
        ],
    }


def one_error_line(capsys) -> str:
    err = capsys.readouterr().err
    errors = [line for line in err.splitlines() if line.startswith("symphony-bench: error:")]
    assert len(errors) == 1 and "Traceback" not in err, err
    return errors[0]


# ---- outputs never land on inputs (item 4) ------------------------------------------------------
def overwriting_commands(run_dir: Path, tmp_path: Path) -> dict[str, list[str]]:
    samples, results = str(samples_file(run_dir)), str(results_file(run_dir))
    ratings = tmp_path / "ratings.csv"
    ratings.write_text("instrument,male,female,non_binary\nharp,2,4,3\n")
    return {
        "report --json samples": ["report", str(run_dir), "--json", samples],
        "report --markdown results": ["report", str(run_dir), "--markdown", results],
        "report --json ratings": [
            *("report", str(run_dir), "--human-ratings", str(ratings), "--json", str(ratings)),
        ],
        "report plots folder holds the run": [
            "report",
            str(run_dir),
            "--markdown",
            str(run_dir.parent / "run.md"),  # its plots would replace run_plots/
        ],
        "compare --json samples": [
            *("compare", str(run_dir), str(run_dir), "--n-boot", "20", "--json", samples),
        ],
        "compare --markdown results": [
            *("compare", str(run_dir), str(run_dir), "--n-boot", "20", "--markdown", results),
        ],
        "leaderboard --out a samples file": ["leaderboard", str(run_dir), "--out", samples],
        "export --out results": [
            *("export", str(run_dir), "--format", "hf-leaderboard", "--out", results),
        ],
        "export --out into samples": [
            *("export", str(run_dir), "--format", "eval-results", "--out", samples),
            *("--dataset-id", "org/data"),
        ],
    }


OVERWRITES = (
    "report --json samples",
    "report --markdown results",
    "report --json ratings",
    "report plots folder holds the run",
    "compare --json samples",
    "compare --markdown results",
    "leaderboard --out a samples file",
    "export --out results",
    "export --out into samples",
)


@pytest.mark.parametrize("case", OVERWRITES)
def test_no_output_may_be_or_lie_inside_an_input(case, tmp_path, capsys):
    run_dir = tmp_path / "run_plots" if "plots" in case else tmp_path / "run"
    write_planted_run(run_dir, "org/model", planted_records(1.0, random.Random(1)))
    argv = overwriting_commands(run_dir, tmp_path)[case]
    before = digests(tmp_path)
    assert cli.main(argv) == 2
    assert "refusing to write there" in one_error_line(capsys)
    assert digests(tmp_path) == before


def test_an_output_beside_the_inputs_is_fine(run, capsys):
    assert cli.main(["report", str(run), "--json", str(run / "org__model" / "report.json")]) == 0
    assert json.loads((run / "org__model" / "report.json").read_text())[PLANTED_TASK]


# ---- all of a command's outputs or none (item 8) ---------------------------------------------------
def test_a_failing_markdown_leaves_no_json(run, tmp_path, capsys):
    (tmp_path / "a_file").write_text("")
    unwritable = str(tmp_path / "a_file" / "out.md")  # its folder is a file
    for argv in (
        ["report", str(run), "--json", str(tmp_path / "r.json"), "--markdown", unwritable],
        [
            *("compare", str(run), str(run), "--n-boot", "20"),
            *("--json", str(tmp_path / "c.json"), "--markdown", unwritable),
        ],
    ):
        assert cli.main(argv) == 2
        one_error_line(capsys)
    assert sorted(path.name for path in tmp_path.iterdir()) == ["a_file", "run"]


def test_a_leaderboard_that_fails_while_writing_leaves_no_files_and_no_folder(
    run, tmp_path, monkeypatch
):
    from symphony_bench.plugin.runs import leaderboard

    def broken_page(board):
        raise RuntimeError("the page failed")

    monkeypatch.setattr(leaderboard, "page_html", broken_page)
    with pytest.raises(RuntimeError, match="the page failed"):
        cli.main(["leaderboard", str(run), "--out", str(tmp_path / "new" / "board")])
    assert not (tmp_path / "new").exists()


def test_a_replaced_plots_folder_that_holds_other_files_is_refused(run, tmp_path, capsys):
    (tmp_path / "report_plots").mkdir()
    (tmp_path / "report_plots" / "notes.txt").write_text("mine")
    assert cli.main(["report", str(run), "--markdown", str(tmp_path / "report.md")]) == 2
    assert "notes.txt" in one_error_line(capsys)
    assert (tmp_path / "report_plots" / "notes.txt").read_text() == "mine"
    (tmp_path / "report_plots" / "notes.txt").unlink()
    (tmp_path / "report_plots" / "stale.png").write_text("old plot")
    assert cli.main(["report", str(run), "--markdown", str(tmp_path / "report.md")]) == 0
    plots = sorted(path.name for path in (tmp_path / "report_plots").iterdir())
    assert "stale.png" not in plots and any(name.endswith(".svg") for name in plots)


def test_two_writers_of_one_output_never_collide_or_mix(tmp_path):
    from concurrent.futures import ThreadPoolExecutor

    from symphony_bench.plugin.core.atomic import write_text_atomically

    target = tmp_path / "out.json"
    texts = ["a" * 4_000_000, "b" * 4_000_000]
    with ThreadPoolExecutor(2) as pool:
        for _ in range(10):
            list(pool.map(lambda text: write_text_atomically(target, text), texts))
            assert target.read_text() in texts
    assert [path.name for path in tmp_path.iterdir()] == ["out.json"]


# ---- damaged samples files: one reader, file and line named (item 5) ---------------------------
def damage(path: Path, how: str) -> None:
    lines = path.read_text().splitlines(keepends=True)
    if how == "joined":
        lines[1] = lines[1].rstrip("\n")
    else:
        lines = [line for line in lines for _ in range(2)]
    path.write_text("".join(lines))


@pytest.mark.parametrize("how", ["joined", "doubled"])
@pytest.mark.parametrize("command", ["report", "compare", "leaderboard", "export"])
def test_joined_or_doubled_samples_lines_are_refused_with_file_and_line(
    command, how, run, tmp_path, capsys
):
    damage(samples_file(run), how)
    assert cli.main(every_command(run, tmp_path / "out")[command]) == 2
    error = one_error_line(capsys)
    expected = "two samples on one line" if how == "joined" else "doc_id 0 appears twice"
    assert f"{samples_file(run)}, line 2" in error and expected in error, error
    assert not (tmp_path / "out").exists()


# ---- files and folders that cannot be read (items 6, 7) -----------------------------------------
class Blocked(Exception):
    pass


@pytest.fixture
def fails_if_blocked():
    """A read that blocks (a FIFO opened for reading) raises Blocked after 20 s instead."""

    def blocked(signum, frame):
        raise Blocked()

    previous = signal.signal(signal.SIGALRM, blocked)
    signal.alarm(20)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, previous)


@pytest.mark.parametrize("command", ["report", "compare", "leaderboard", "export"])
def test_a_fifo_named_like_a_samples_file_is_said_and_passed_over(
    command, run, tmp_path, capsys, fails_if_blocked
):
    fifo = run / "org__model" / samples_file(run).name.replace(PLANTED_TASK, "other_task")
    os.mkfifo(fifo)
    assert cli.main(every_command(run, tmp_path / "out")[command]) == 0
    err = capsys.readouterr().err
    assert f"skipped {fifo}: not a regular file" in err
    run_file_names._SAID.clear()


def test_a_linked_model_folder_is_read_and_an_unreadable_one_stops_unless_skipped(
    run, tmp_path, capsys, monkeypatch
):
    elsewhere = tmp_path / "elsewhere"
    write_planted_run(elsewhere, "org/other", planted_records(0.5, random.Random(2)))
    (run / "org__other").symlink_to(elsewhere / "org__other")
    assert cli.main(["leaderboard", str(run), "--out", str(tmp_path / "board")]) == 0
    board = json.loads((tmp_path / "board" / "leaderboard.json").read_text())
    assert sorted(row["model"] for row in board["rows"]) == ["org/model", "org/other"]

    locked = run / "org__model"
    make_unreadable(locked, monkeypatch)
    for command in (["report", str(run)], ["leaderboard", str(run), "--out", str(tmp_path / "b")]):
        assert cli.main(command) == 2  # a model left out unseen would change the numbers
        error = capsys.readouterr().err.strip().splitlines()[-1]
        assert f"cannot read {locked}: cannot read the folder" in error
        assert "--skip-unreadable" in error and not (tmp_path / "b").exists()
    run_file_names._SAID.clear()
    assert cli.main(["report", str(run), "--skip-unreadable"]) == 0
    assert f"skipped {locked}: cannot read the folder" in capsys.readouterr().err
    make_unreadable(run / "org__other", monkeypatch)
    assert cli.main(["report", str(run), "--skip-unreadable"]) == 2
    error = one_error_line(capsys)
    assert "no readable symphony-bench samples files (skipped" in error
    assert "--log_samples" not in error
    run_file_names._SAID.clear()


def make_unreadable(folder: Path, monkeypatch) -> None:
    """chmod 000 stops a reader; root reads any folder, so there listing it fails instead."""
    folder.chmod(0)
    if os.geteuid() == 0:
        listing = os.scandir

        def scandir(path="."):
            if Path(path) == folder:
                raise PermissionError(13, "Permission denied", str(path))
            return listing(path)

        monkeypatch.setattr(os, "scandir", scandir)


# ---- results files and records of the wrong shape: one error line (item 10) --------------------
WRONG_RESULTS = {
    "configs": (lambda results: results.update(configs="x"), "'configs' is str"),
    "versions": (lambda results: results.update(versions=[]), "'versions' is list"),
    "task_hashes": (lambda results: results.update(task_hashes=1), "'task_hashes' is int"),
    "config": (lambda results: results.update(config="hf"), "'config' is str"),
    "model_sha": (lambda results: results["config"].update(model_sha=5), "'config.model_sha'"),
    "pretrained": (
        lambda results: results["config"]["model_args"].update(pretrained=7),
        "'config.model_args.pretrained' is int",
    ),
    "task config": (
        lambda results: results["configs"].update({PLANTED_TASK: []}),
        f"'configs.{PLANTED_TASK}' is list",
    ),
}


@pytest.mark.parametrize("field", WRONG_RESULTS)
def test_a_results_file_of_the_wrong_shape_is_one_error_naming_file_and_key(
    field, run, tmp_path, capsys
):
    path = results_file(run)
    results = json.loads(path.read_text())
    change, expected = WRONG_RESULTS[field]
    change(results)
    path.write_text(json.dumps(results))
    for command, argv in every_command(run, tmp_path / "out").items():
        if command == "report":  # reads no results file
            argv = ["check", str(run), "--tasks", PLANTED_TASK]
        assert cli.main(argv) == 2, command
        error = one_error_line(capsys)
        assert str(path) in error and expected in error, (command, error)
    assert not (tmp_path / "out").exists()


def test_a_record_without_a_template_is_named(run, capsys):
    path = samples_file(run)
    samples = [json.loads(line) for line in path.read_text().splitlines()]
    samples[3]["mean_abs"]["template_id"] = None
    path.write_text("".join(json.dumps(sample) + "\n" for sample in samples))
    assert cli.main(["report", str(run)]) == 2
    error = one_error_line(capsys)
    assert f"{path}, line 4" in error and "template_id" in error, error


def test_check_and_report_agree_on_a_samples_file_of_blank_lines(run, capsys):
    samples_file(run).write_text("\n\n\n")
    assert cli.main(["check", str(run), "--tasks", PLANTED_TASK]) == 1
    assert f"{PLANTED_TASK}: no samples in" in capsys.readouterr().err
    assert cli.main(["report", str(run)]) == 2
    assert "no symphony-bench samples files" in one_error_line(capsys)


# ---- what a run controls cannot inject Markdown, HTML or formulas (item 13) -----------------------
HOSTILE_MODEL = "org/m|x</td><img src=x onerror=alert(1)>\n# heading [link](javascript:1) `code`"


def test_hostile_names_stay_inside_their_cells(tmp_path, capsys):
    run_dir = tmp_path / "run"
    folder = write_planted_run(run_dir, "org/model", planted_records(1.0, random.Random(1)))
    path = next(folder.glob("results_*.json"))
    results = json.loads(path.read_text())
    results["config"]["model_args"]["pretrained"] = HOSTILE_MODEL
    results["config"]["model_revision"] = '=HYPERLINK("http://evil")'
    path.write_text(json.dumps(results))
    samples = samples_file(run_dir)
    samples.rename(samples.with_name(samples.name.replace(PLANTED_TASK, "t|<i>x")))
    board = tmp_path / "board"
    assert cli.main(["leaderboard", str(run_dir), "--out", str(board)]) == 0
    assert cli.main(["report", str(run_dir), "--markdown", str(tmp_path / "report.md")]) == 0
    for markdown in (board / "leaderboard.md", tmp_path / "report.md"):
        text = markdown.read_text()
        assert "<img" not in text and "<i>" not in text and "</td>" not in text, markdown
        assert not any(line.startswith("# heading") for line in text.splitlines()), markdown
        for table in tables(text):
            assert len({cell_count(line) for line in table}) == 1, (markdown, table)
    import csv

    (row,) = csv.DictReader((board / "leaderboard.csv").open())
    assert row["model_revision"] == '\'=HYPERLINK("http://evil")'


def tables(markdown: str) -> list[list[str]]:
    found, current = [], []
    for line in markdown.splitlines() + [""]:
        if line.startswith("|"):
            current.append(line)
        elif current:
            found, current = [*found, current], []
    return found


def cell_count(line: str) -> int:
    """Cells of a table row: `|` that Markdown reads as a cell border (not escaped)."""
    return len(line.replace("\\|", "").split("|"))
