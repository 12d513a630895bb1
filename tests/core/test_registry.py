"""The registry (plugin.core.registry): a benchmark is its package and its entry point. A throwaway
benchmark in a temporary package, registered by a dist-info on PYTHONPATH, is reported, checked and
ranked by the real command line, with its own typed report option, and no file of ours edited."""

from __future__ import annotations

import json
import textwrap

import pytest
from support.harness import run_symphony_bench
from support.registry import put_first_on_path, write_dist_info
from support.runs import lm_eval_results, write_samples

from symphony_bench.plugin.core.registry import BENCHMARK_GROUP, benchmarks, build_kinds

TOY_REPORT = """
from symphony_bench.plugin.core.reporting import estimate
from symphony_bench.plugin.core.sections import LeaderboardColumns, Ranking, ReportSection


def problem(record):
    return None if record.get("correct") in (0, 1) else "correct is not 0 or 1"


def entries(task, options):
    share = sum(r["correct"] for r in task.records) / len(task.records)
    return [task.entry({"accuracy": share, "n": len(task.records), "scale": options["toy_scale"]})]


def render(entry):
    return [f"### {entry.label}", f"toy accuracy {entry.body['accuracy']:.3f} x {entry.body['scale']}"]


def leaderboard(entry):
    return LeaderboardColumns(
        "toy", {"accuracy": estimate(entry.body["accuracy"], None, None)}, None,
        Ranking("accuracy", "higher"), entry.body["n"],
    )


SECTION = ReportSection(
    kinds=("toy.answer",),
    record_problem=problem,
    records_valid=lambda records: all(problem(r) is None for r in records),
    entries=entries,
    render=render,
    leaderboard=leaderboard,
    comparisons=lambda label, base, candidate, n_boot, seed: {},
)
"""
TOY_BENCHMARK = """
from symphony_bench.plugin.core.registry import Benchmark, ReportOption

BENCHMARK = Benchmark(
    package="toy_bench",
    section="toy_bench.report:SECTION",
    report_options=(ReportOption("toy_scale", float, "a number the toy report prints", "X", default=1.0),),
)
"""


@pytest.fixture
def toy_benchmark(tmp_path, monkeypatch):
    """The throwaway benchmark `toy_bench` installed on the children's PYTHONPATH."""
    site = tmp_path / "site"
    (site / "toy_bench").mkdir(parents=True)
    (site / "toy_bench" / "__init__.py").write_text('"""A throwaway benchmark."""\n')
    (site / "toy_bench" / "report.py").write_text(textwrap.dedent(TOY_REPORT))
    (site / "toy_bench" / "benchmark.py").write_text(textwrap.dedent(TOY_BENCHMARK))
    points = {BENCHMARK_GROUP: {"toy": "toy_bench.benchmark:BENCHMARK"}}
    put_first_on_path(monkeypatch, write_dist_info(site, "toy-bench", points))


def toy_run(folder, correct: list[int]):
    folder.mkdir(parents=True)
    results = lm_eval_results(["toy_task"])
    (folder / "results_2026-12-01T04-36-42.029562.json").write_text(json.dumps(results))
    records = [{"kind": "toy.answer", "item": k, "correct": c} for k, c in enumerate(correct)]
    write_samples(
        folder / "samples_toy_task_2026-12-01T04-36-42.029562.jsonl",
        [{"doc": {"item": r["item"]}, "accuracy": r} for r in records],
    )
    return folder


@pytest.mark.e2e
def test_a_registered_benchmark_is_reported_checked_and_ranked(toy_benchmark, tmp_path):
    run = toy_run(tmp_path / "run", [1, 0, 1, 1])
    report = run_symphony_bench(
        ["report", str(run), "--toy-scale", "2.5", "--json", str(tmp_path / "r.json")], tmp_path
    )
    assert report.returncode == 0, report.stderr
    assert "toy accuracy 0.750 x 2.5" in report.stdout
    assert json.loads((tmp_path / "r.json").read_text())["toy_task"]["accuracy"] == 0.75
    typed = run_symphony_bench(["report", str(run), "--toy-scale", "many"], tmp_path)
    assert typed.returncode == 2 and "--toy-scale: invalid float value" in typed.stderr

    check = run_symphony_bench(["check", str(run), "--tasks", "toy_task"], tmp_path)
    assert check.returncode == 0, check.stderr
    bad = toy_run(tmp_path / "bad", [1, 2])
    check = run_symphony_bench(["check", str(bad), "--tasks", "toy_task"], tmp_path)
    assert check.returncode == 2 and "correct is not 0 or 1" in check.stderr

    board = run_symphony_bench(["leaderboard", str(run), "--out", str(tmp_path / "lb")], tmp_path)
    assert board.returncode == 0, board.stderr
    rows = json.loads((tmp_path / "lb" / "leaderboard.json").read_text())
    assert "toy_task" in json.dumps(rows) and "0.75" in json.dumps(rows)
    report = run_symphony_bench(["report", str(run)], tmp_path)
    assert "toy accuracy 0.750 x 1.0" in report.stdout  # the option's default


@pytest.mark.e2e
def test_metadata_without_the_benchmarks_is_one_clear_error(tmp_path, monkeypatch):
    """An install whose metadata predates the entry points (the package's own name, first on the
    path, without them) is told to reinstall, not shown an empty report."""
    stale = {"console_scripts": {"symphony-bench": "symphony_bench.plugin.cli:main"}}
    put_first_on_path(monkeypatch, write_dist_info(tmp_path / "site", "symphony-bench", stale))
    completed = run_symphony_bench(["report", str(tmp_path)], tmp_path)
    assert completed.returncode == 2
    assert "no benchmark is registered" in completed.stderr and "reinstall" in completed.stderr


def test_the_package_registers_its_benchmarks_and_builders():
    assert {name: b.package for name, b in benchmarks().items()} == {
        "grounding": "symphony_bench.plugin.grounding",
        "symphony_bias": "symphony_bench.plugin.symphony_bias",
        "symphony_bias_voice": "symphony_bench.plugin.symphony_bias",
    }
    assert {kind: b.kind for kind, b in build_kinds().items()} == {
        kind: kind
        for kind in (
            "openmic",
            "symphony-bias-audio",
            "symphony-bias-image",
            "symphony-bias-text",
            "symphony-bias-voice",
            "synthmic",
        )
    }
    for benchmark in benchmarks().values():
        assert benchmark.load_section().kinds
