"""Data-parallel runs (two processes, gloo on CPUs) give the single-process run's results, samples
and report: the per-doc records survive the harnesses' gathering across ranks."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
import support
from support.harness import (
    executable,
    read_lmms_results,
    read_lmms_samples,
    read_results,
    read_samples,
    run_cli,
    run_lm_eval,
    run_lmms_eval,
)
from support.planted_replay import plant

from symphony_bench.plugin.core.task_folders import tasks_path
from symphony_bench.plugin.symphony_bias.options import STIMULUS_OPTIONS

LAUNCHER = Path(support.__file__).with_name("cpu_data_parallel.py")
TWO_CPU_PROCESSES = {"ACCELERATE_USE_CPU": "1", "OMP_NUM_THREADS": "1"}
LM_EVAL_TASKS = ("symphony_bias_text_mini", "symphony_bias_logprob_mini")


def torchrun(*args: str, output: Path, env: dict | None = None) -> None:
    command = [
        executable("torchrun"),
        "--standalone",
        "--nproc_per_node",
        "2",
        *args,
    ]
    completed = run_cli(command, cwd=output.parent, env={**TWO_CPU_PROCESSES, **(env or {})})
    assert completed.returncode == 0, completed.stderr[-4000:]
    assert "on rank 1" in completed.stderr + completed.stdout, completed.stdout[
        -3000:
    ]  # the docs really were split


def assert_same(single, parallel, where: str = "") -> None:
    """Equal structure; numbers within 1e-12 (NaN equals NaN); everything else equal."""
    if isinstance(single, dict):
        assert set(single) == set(parallel), where
        for key in single:
            assert_same(single[key], parallel[key], f"{where}/{key}")
    elif isinstance(single, list):
        assert len(single) == len(parallel), where
        for k, (a, b) in enumerate(zip(single, parallel, strict=True)):
            assert_same(a, b, f"{where}[{k}]")
    elif isinstance(single, float) and isinstance(parallel, (int, float)):
        assert (math.isnan(single) and math.isnan(parallel)) or parallel == pytest.approx(
            single, abs=1e-12
        ), where
    else:
        assert single == parallel, where


def per_doc(samples: list[dict]) -> dict[int, dict]:
    """What a sample says about its doc, keyed by doc id (the ranks' order of lines may differ)."""
    ignored = {"doc_hash", "prompt_hash", "target_hash", "arguments"}
    return {
        sample["doc_id"]: without_padding({k: v for k, v in sample.items() if k not in ignored})
        for sample in samples
    }


def without_padding(sample: dict) -> dict:
    """lm-eval evens out the ranks' request counts by repeating a rank's last request, and logs the
    repeat's answer beside the first ([[a]] becomes [[a, a]]): drop repeated answers of a request."""
    if "resps" in sample:  # lmms-eval logs only the filtered answers
        sample["resps"] = [
            [a for k, a in enumerate(answers) if a not in answers[:k]]
            for answers in sample["resps"]
        ]
    return sample


def report_json(run: Path, tmp_path: Path) -> dict:
    out = tmp_path / f"{run.name}.json"
    completed = run_cli(
        [
            executable("symphony-bench"),
            "report",
            str(run),
            "--json",
            str(out),
        ],
        cwd=tmp_path,
    )
    assert completed.returncode == 0, completed.stderr
    return json.loads(out.read_text())


@pytest.mark.e2e
def test_lm_eval_likert_and_logprob_tasks_split_across_two_processes_match_one(
    tiny_llama, tmp_path
):
    model_args = f"pretrained={tiny_llama},dtype=float32"
    common = [
        "--tasks",
        ",".join(LM_EVAL_TASKS),
        "--include_path",
        str(tasks_path("lm-eval")),
        "--log_samples",
        "--apply_chat_template",
        "--batch_size",
        "1",
        "--gen_kwargs",
        "max_gen_toks=24",
    ]
    single, parallel = tmp_path / "single", tmp_path / "parallel"
    run_lm_eval(
        "hf",
        model_args,
        ",".join(LM_EVAL_TASKS),
        single,
        "--batch_size",
        "1",
        "--gen_kwargs",
        "max_gen_toks=24",
    )
    torchrun(
        str(LAUNCHER),
        "--model",
        "hf_cpu_data_parallel",
        "--model_args",
        model_args,
        "--output_path",
        str(parallel),
        *common,
        output=parallel,
    )
    assert_same(read_results(single), read_results(parallel))
    for task in LM_EVAL_TASKS:
        assert_same(
            per_doc(read_samples(single, task)), per_doc(read_samples(parallel, task)), task
        )
    single_report = report_json(single, tmp_path)
    assert single_report["symphony_bias_logprob_mini"]["summary"]["n_docs"] > 0
    assert_same(single_report, report_json(parallel, tmp_path))


@pytest.mark.e2e
def test_lmms_eval_image_suite_split_across_two_processes_matches_one(
    image_set, tmp_path, monkeypatch
):
    variable = STIMULUS_OPTIONS["image"].variable
    monkeypatch.setenv(variable, str(image_set))
    plant("image", tmp_path / "responses.jsonl")
    model_args = f"responses={tmp_path / 'responses.jsonl'}"
    task = "symphony_bias_image_suite_mini"
    single, parallel = tmp_path / "single", tmp_path / "parallel"
    run_lmms_eval("symphony_replay", model_args, task, single, {variable: str(image_set)})
    torchrun(
        "-m",
        "lmms_eval",
        "--model",
        "symphony_replay",
        "--model_args",
        model_args,
        "--tasks",
        task,
        "--include_path",
        str(tasks_path("lmms-eval")),
        "--output_path",
        str(parallel),
        "--log_samples",
        output=parallel,
        env={variable: str(image_set)},
    )
    single_results = read_lmms_results(single)
    assert_same(single_results, read_lmms_results(parallel))
    for name in single_results:
        if name != task:
            assert_same(
                per_doc(read_lmms_samples(single, name)),
                per_doc(read_lmms_samples(parallel, name)),
                name,
            )
    assert_same(report_json(single, tmp_path), report_json(parallel, tmp_path))
