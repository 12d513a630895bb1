"""The outputs of `report`, `compare` and `leaderboard` through the CLI: they appear together or not
at all (an earlier output survives a failed command; the error names the user's path, never a hidden
staging file) and they honour the umask."""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest
from support.failures import fail_renames_onto
from support.runs import planted_records, write_planted_run

from symphony_bench.plugin.cli import main

OLD = "old output\n"


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> tuple[Path, Path]:
    """Two comparable planted runs (same docs, same seed), of two models."""
    root = tmp_path_factory.mktemp("runs")
    base = root / "base"
    candidate = root / "candidate"
    write_planted_run(base, "org/base", planted_records(0.0, random.Random(1)))
    write_planted_run(candidate, "org/candidate", planted_records(0.5, random.Random(2)))
    return base, candidate


def hidden(folder: Path) -> list[str]:
    return sorted(path.name for path in folder.iterdir() if path.name.startswith("."))


def with_outputs(name: str, runs: tuple[Path, Path], out: Path) -> list[str]:
    """The command line of `name` writing result.json and result.md into `out`."""
    return [
        *command(name, runs),
        "--json",
        str(out / "result.json"),
        "--markdown",
        str(out / "result.md"),
    ]


def command(name: str, runs: tuple[Path, Path]) -> list[str]:
    base, candidate = runs
    if name == "report":
        return ["report", str(base)]
    return ["compare", str(base), str(candidate), "--n-boot", "20"]


@pytest.mark.parametrize("name", ["report", "compare"])
def test_json_survives_when_markdown_cannot_be_renamed_into_place(
    name, runs, tmp_path, monkeypatch, capsys
):
    out = tmp_path / "out"
    out.mkdir()
    (out / "result.json").write_text(OLD)
    (out / "result.md").write_text(OLD)
    fail_renames_onto(monkeypatch, "result.md")
    assert main(with_outputs(name, runs, out)) == 2
    error = capsys.readouterr().err
    assert str(out / "result.md") in error and ".tmp" not in error, error
    assert (out / "result.json").read_text() == OLD  # not replaced alone
    assert (out / "result.md").read_text() == OLD
    assert not (out / "result_plots").exists()  # the new plots folder went too
    assert hidden(out) == []


@pytest.mark.parametrize("name", ["report", "compare"])
def test_markdown_over_a_folder_is_refused_before_anything_is_written(name, runs, tmp_path, capsys):
    out = tmp_path / "out"
    (out / "result.md").mkdir(parents=True)
    (out / "result.json").write_text(OLD)
    assert main(with_outputs(name, runs, out)) == 2
    error = capsys.readouterr().err
    assert str(out / "result.md") in error and ".tmp" not in error, error
    assert (out / "result.json").read_text() == OLD
    assert (out / "result.md").is_dir() and not any((out / "result.md").iterdir())
    assert sorted(path.name for path in out.iterdir()) == ["result.json", "result.md"]


@pytest.mark.parametrize("umask", [0o022, 0o027, 0o002])
def test_outputs_honour_the_umask(umask, runs, tmp_path):
    previous = os.umask(umask)
    try:
        args = [*command("report", runs), "--json", str(tmp_path / "r.json")]
        assert main([*args, "--markdown", str(tmp_path / "r.md")]) == 0
        assert main(["leaderboard", *map(str, runs), "--out", str(tmp_path / "board")]) == 0
    finally:
        os.umask(previous)
    files = [tmp_path / "r.json", tmp_path / "r.md", *(tmp_path / "board").iterdir()]
    files += list((tmp_path / "r_plots").iterdir())
    for path in files:
        assert path.stat().st_mode & 0o777 == 0o666 & ~umask, path
    for folder in (tmp_path / "r_plots", tmp_path / "board"):
        assert folder.stat().st_mode & 0o777 == 0o777 & ~umask, folder


@pytest.mark.parametrize("name", ["report", "compare"])
def test_no_plots_writes_the_same_markdown_without_its_figures(name, runs, tmp_path):
    with_plots, without = tmp_path / "with", tmp_path / "without"
    assert main(with_outputs(name, runs, with_plots)) in (0, 1)
    assert main([*with_outputs(name, runs, without), "--no-plots"]) in (0, 1)
    figures = (with_plots / "result.md").read_text()
    assert "result_plots/" in figures
    assert figures.startswith((without / "result.md").read_text().rstrip("\n"))
    assert "result_plots" not in (without / "result.md").read_text()
    assert sorted(path.name for path in without.iterdir()) == ["result.json", "result.md"]
