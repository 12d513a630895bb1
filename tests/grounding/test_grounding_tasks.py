"""The instrument-grounding tasks through the real `lmms-eval` command line, on a synthmic build."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from sklearn.metrics import precision_recall_fscore_support
from support.harness import executable, read_lmms_results, read_lmms_samples, run_cli, run_lmms_eval
from support.shared_fixture import once_per_session

from symphony_bench.hub_upload import openmic, synthmic
from symphony_bench.plugin import cli
from symphony_bench.plugin.core.atomic import BUILD_MARKER
from symphony_bench.plugin.core.errors import DataFileError
from symphony_bench.plugin.core.hub_folder import load_hub_dataset
from symphony_bench.plugin.devtools.tiny_models import build_tiny_qwen2_audio
from symphony_bench.plugin.grounding import tasks as grounding

TASKS = [f"grounding_{name}" for name in grounding.INTERFACES]
CONFUSABLE = [
    "grounding_confusable_name",
    "grounding_confusable_name_swapped",
    "grounding_confusable_ab",
    "grounding_confusable_ab_swapped",
]


def build_benchmark(root: Path) -> None:
    synthmic.build(root / "synthmic", clips=120, seed=1)
    openmic.build(root / "synthmic", root / "benchmark", seed=0)


@pytest.fixture(scope="module")
def benchmark(tmp_path_factory) -> Path:
    return once_per_session(tmp_path_factory, "grounding", build_benchmark) / "benchmark"


def _run(model: str, model_args: str, benchmark: Path, output: Path, *extra: str):
    return run_lmms_eval(
        model,
        model_args,
        "instrument_grounding",
        output,
        {"SYMPHONY_GROUNDING": str(benchmark)},
        *extra,
    )


@pytest.mark.e2e
def test_always_first_floor_has_full_position_and_time_bias(benchmark, tmp_path):
    output = tmp_path / "run"
    _run("grounding_always_first", "", benchmark, output)
    results = read_lmms_results(output)
    for task in TASKS:
        samples = read_lmms_samples(output, task)
        assert samples and all(s["filtered_resps"].strip() for s in samples), task
    confusable = load_hub_dataset(benchmark, config="confusable")
    gold_first = float(np.mean(np.array(confusable["gold_position"]) == 0))
    for task in CONFUSABLE:
        expected = 1 - gold_first if task.endswith("swapped") else gold_first
        assert results[task]["position_gap,none"] == 1.0
        assert results[task]["first_option_rate,none"] == 1.0
        assert results[task]["accuracy,none"] == pytest.approx(expected), task
        assert results[task]["invalid_rate,none"] == 0.0
    temporal = load_hub_dataset(benchmark, config="temporal_30s")
    assert results["grounding_temporal_30s"]["time_bias,none"] == 1.0
    assert results["grounding_temporal_30s"]["accuracy,none"] == pytest.approx(
        np.mean(np.array(temporal["gold_segment"]) == 0)
    )
    binary = load_hub_dataset(benchmark, config="binary")
    assert results["grounding_binary"]["yes_rate,none"] == 1.0
    assert results["grounding_binary"]["accuracy,none"] == pytest.approx(
        np.mean(np.array(binary["answer"]) == "yes")
    )
    # every clip gives one yes and one no item, so always-yes gets exactly half of each clip right:
    # clustered by clip, its accuracy has no sampling error (an item-level stderr would claim ~0.02)
    assert results["grounding_binary"]["accuracy_stderr,none"] == pytest.approx(0.0, abs=1e-12)


@pytest.mark.e2e
def test_genre_prior_floor_fails_every_hard_item_by_construction(benchmark, tmp_path):
    output = tmp_path / "run"
    run_lmms_eval(
        "grounding_genre_prior",
        "",
        "grounding_genre_hard",
        output,
        {"SYMPHONY_GROUNDING": str(benchmark)},
    )
    results = read_lmms_results(output)["grounding_genre_hard"]
    assert results["accuracy,none"] == 0.0 and results["invalid_rate,none"] == 0.0


PLANTED_STYLES = {
    "yes_no": lambda doc, k: [
        "Yes.",
        "yes, there is",
        "No",
        "There is no such instrument.",
        "maybe",
        "As a text-only model, I cannot listen to audio. No.",
    ][k % 6],
    "time": lambda doc, k: [
        "0–10 s",
        "10-20 seconds",
        "the last range",
        "first",
        "somewhere",
        "No audio.",
    ][k % 6],
    "name": lambda doc, k: [
        doc["options"][0].upper(),
        f"The {doc['options'][1]}.",
        "both",
        doc["options"][1],
        "I can't help with that.",
    ][k % 5],
    "letter": lambda doc, k: ["A", "(b)", "Answer: B.", "C", "I'm sorry, but I can't assist."][
        k % 5
    ],
    "set": lambda doc, k: [
        ", ".join(doc["options"][:2]),
        doc["options"][3],
        "none",
        "a kazoo",
        "No audio was provided.",
    ][k % 5],
}
REFUSED = "refused"
INTENDED = {  # what each style means: an option index (or chosen set), None unreadable, or REFUSED
    "yes_no": [0, 0, 1, 1, None, REFUSED],
    "time": [0, 1, 2, 0, None, REFUSED],
    "name": [0, 1, None, 1, REFUSED],
    "letter": [0, 1, 1, None, REFUSED],
    "set": [{0, 1}, {3}, set(), None, REFUSED],
}


def _expected_scores(kind: str, gold: list, intended: list) -> dict[str, float]:
    """The harness's metrics of these answers (refusals are no answer, and not invalid)."""
    refusal_rate = float(np.mean([i == REFUSED for i in intended]))
    if kind == "set":
        intended = [None if i == REFUSED else i for i in intended]  # no answer either
        valid = [i is not None for i in intended]
        exact = [
            i is not None and i == {k for k, g in enumerate(mask) if g}
            for mask, i in zip(gold, intended, strict=True)
        ]
        chosen = np.array(
            [
                [k in (i or set()) for k in range(len(mask))]
                for mask, i in zip(gold, intended, strict=True)
            ]
        )
        precision, recall, f1, _ = precision_recall_fscore_support(
            np.array(gold), chosen, average="samples", zero_division=0
        )
        return {
            "exact_set_accuracy": float(np.mean(exact)),
            "invalid_rate": 1 - float(np.mean(valid)) - refusal_rate,
            "refusal_rate": refusal_rate,
            "precision": precision,
            "recall": recall,
            "f1": f1,
        }
    chosen = np.array([-1 if i is None else -2 if i == REFUSED else i for i in intended])
    gold = np.array(gold)
    scores = {
        "accuracy": float(np.mean(chosen == gold)),
        "invalid_rate": float(np.mean(chosen == -1)),
        "refusal_rate": refusal_rate,  # the harness's table shows it too
    }
    valid = chosen[chosen >= 0]
    rates = np.bincount(valid, minlength=3 if kind == "time" else 2) / valid.size
    if kind in ("name", "letter"):
        scores |= {"first_option_rate": rates[0], "position_gap": abs(rates[0] - rates[1])}
    if kind == "time":
        scores |= {"rate_0_10s": rates[0], "time_bias": rates.max() - rates.min()}
    if kind == "yes_no":
        scores |= {"yes_rate": rates[0], "yes_accuracy": float(np.mean(chosen[gold == 0] == 0))}
    return scores


def _naive_bias_stderr(chosen: list[int], n_options: int) -> float:
    """Bootstrap of max - min prediction rate by resampling the valid answers, one at a time."""
    valid = np.array([c for c in chosen if c >= 0])
    rng = np.random.default_rng(0)
    replicates = []
    for _ in range(1000):
        rates = np.bincount(rng.choice(valid, size=valid.size), minlength=n_options) / valid.size
        replicates.append(rates.max() - rates.min())
    return float(np.std(replicates, ddof=1))


@pytest.mark.e2e
def test_planted_answers_in_many_formats_score_as_an_independent_computation(
    benchmark, tmp_path, monkeypatch
):
    monkeypatch.setenv("SYMPHONY_GROUNDING", str(benchmark))
    rows, expected, refused = [], {}, {}
    for name, interface in grounding.INTERFACES.items():
        task = f"grounding_{name}"
        docs = grounding.interface_docs(name)
        intended = []
        for doc_id, doc in enumerate(docs):
            rows.append(
                {
                    "task": task,
                    "doc_id": doc_id,
                    "response": PLANTED_STYLES[interface.kind](doc, doc_id),
                }
            )
            intended.append(INTENDED[interface.kind][doc_id % len(INTENDED[interface.kind])])
        expected[task] = _expected_scores(interface.kind, list(docs["gold"]), intended)
        refused[task] = sum(i == REFUSED for i in intended)
    responses = tmp_path / "responses.jsonl"
    responses.write_text("".join(json.dumps(row) + "\n" for row in rows))
    output = tmp_path / "run"
    _run("symphony_replay", f"responses={responses}", benchmark, output)
    results = read_lmms_results(output)
    for task, scores in expected.items():
        for metric, value in scores.items():
            assert results[task][f"{metric},none"] == pytest.approx(value, abs=1e-12), (
                task,
                metric,
            )
    for task, metric, n_options in (
        ("grounding_confusable_name", "position_gap", 2),
        ("grounding_temporal_30s", "time_bias", 3),
    ):
        chosen = [s["accuracy"]["chosen"] for s in read_lmms_samples(output, task)]
        assert results[task][f"{metric}_stderr,none"] == pytest.approx(
            _naive_bias_stderr(chosen, n_options), rel=0.2
        )
    report = run_cli(
        [
            executable("symphony-bench"),
            "report",
            str(output),
            "--json",
            str(tmp_path / "r.json"),
        ],
        cwd=tmp_path,
    )
    assert report.returncode == 0, report.stderr
    # the name, letter and time answers re-read from their records agree; lmms-eval logs no doc,
    # and yes/no and set records lack part of theirs: said, not failed
    verified = run_cli([executable("symphony-bench"), "verify", str(output)], cwd=tmp_path)
    assert verified.returncode == 0, verified.stdout + verified.stderr
    notes = [line for line in verified.stdout.splitlines() if line.startswith("note:")]
    assert notes and all(
        "not re-read (a yes_no record" in note or "not re-read (a set record" in note
        for note in notes
    ), notes
    body = json.loads((tmp_path / "r.json").read_text())
    for task, scores in expected.items():
        for metric in scores:
            assert body[task]["summary"][metric] == pytest.approx(
                results[task][f"{metric},none"], abs=1e-12
            )
            assert body[task]["summary"][f"{metric}_stderr"] == pytest.approx(
                results[task][f"{metric}_stderr,none"], abs=1e-12
            )
        # refusals: counted apart from the invalid answers, in the report
        n_docs = body[task]["summary"]["n_docs"]
        assert body[task]["summary"]["n_refused"] == refused[task] > 0
        assert body[task]["summary"]["refusal_rate"] == pytest.approx(refused[task] / n_docs)
    confusion = body["grounding_confusable_name"]["confusion"]
    assert confusion and all(
        abs(sum(row.values()) - 1) < 1e-9
        for group in confusion.values()
        for row in group.values()
        if row
    )
    temporal = body["grounding_temporal_30s"]["prediction_rates"]
    assert temporal["0-10 seconds"] == pytest.approx(
        expected["grounding_temporal_30s"]["rate_0_10s"]
    )


@pytest.mark.e2e
def test_tiny_qwen2_audio_answers_every_grounding_task(benchmark, tmp_path_factory, tmp_path):
    model = build_tiny_qwen2_audio(tmp_path_factory.mktemp("tiny-qwen2-audio"))
    output = tmp_path / "run"
    completed = _run(
        "symphony_qwen2_audio",
        f"pretrained={model}",
        benchmark,
        output,
        "--limit",
        "2",
        "--gen_kwargs",
        "max_new_tokens=5",
    )
    for task in TASKS:
        answers = [s["filtered_resps"] for s in read_lmms_samples(output, task)]
        assert len(answers) == 2 and all(a.strip() for a in answers), (
            task,
            answers,
            completed.stderr[-2000:],
        )


def test_unset_or_missing_benchmark_is_one_clear_error(monkeypatch, tmp_path):
    monkeypatch.delenv("SYMPHONY_GROUNDING", raising=False)
    with pytest.raises(DataFileError, match="SYMPHONY_GROUNDING"):
        grounding.interface_docs("binary")
    monkeypatch.setenv("SYMPHONY_GROUNDING", str(tmp_path / "nowhere"))
    with pytest.raises(DataFileError, match="no such folder"):
        grounding.interface_docs("binary")


def sparse_copy(benchmark: Path, folder: Path) -> Path:
    """The benchmark as a build on a sparse release writes it: no multilabel_30s config (and its
    build marker lists no file of it)."""
    shutil.copytree(benchmark, folder)
    shutil.rmtree(folder / "data" / "multilabel_30s")
    marker = folder / BUILD_MARKER
    lines = marker.read_text(encoding="utf-8").splitlines(keepends=True)
    marker.write_text("".join(line for line in lines if "data/multilabel_30s/" not in line))
    return folder


def tasks_path_of(grounding_set: Path, capsys) -> tuple[Path, str]:
    assert (
        cli.main(["tasks-path", "--harness", "lmms-eval", "--grounding", str(grounding_set)]) == 0
    )
    out, err = capsys.readouterr()
    return Path(out.strip()), err


@pytest.mark.slow  # builds a SynthMIC archive and the grounding set
def test_a_set_built_without_a_config_gets_a_group_of_the_built_tasks(
    benchmark, tmp_path, monkeypatch, capsys
):
    monkeypatch.setenv("SYMPHONY_BENCH_CACHE", str(tmp_path / "cache"))
    assert tasks_path_of(benchmark, capsys) == (cli.tasks_path("lmms-eval"), "")
    sparse = sparse_copy(benchmark, tmp_path / "sparse")
    folder, warning = tasks_path_of(sparse, capsys)
    assert folder.parent == tmp_path / "cache"
    assert "has no data for grounding_multilabel_30s" in warning and "--max-clip-uses" in warning
    group = (folder / "instrument_grounding" / "instrument_grounding.yaml").read_text()
    original = (
        cli.tasks_path("lmms-eval") / "instrument_grounding" / "instrument_grounding.yaml"
    ).read_text()
    assert group == original.replace("  - grounding_multilabel_30s\n", "") and group != original
    assert tasks_path_of(sparse, capsys)[0] == folder  # cached
    monkeypatch.setenv("SYMPHONY_GROUNDING", str(sparse))
    with pytest.raises(
        DataFileError,
        match=r"grounding_multilabel_30s: .* has no 'multilabel_30s' config .*--max-clip-uses",
    ):
        grounding.interface_docs("multilabel_30s")


@pytest.mark.e2e
def test_the_group_runs_on_whatever_was_built(benchmark, tmp_path, monkeypatch):
    monkeypatch.setenv("SYMPHONY_BENCH_CACHE", str(tmp_path / "cache"))
    sparse = sparse_copy(benchmark, tmp_path / "sparse")
    env = {"SYMPHONY_GROUNDING": str(sparse), "SYMPHONY_BENCH_CACHE": str(tmp_path / "cache")}
    symphony_bench = executable("symphony-bench")
    folder = run_cli(
        [symphony_bench, "tasks-path", "--harness", "lmms-eval"], cwd=tmp_path, env=env
    ).stdout.strip()
    output = tmp_path / "run"
    command = [
        executable("lmms-eval"),
        "--model",
        "grounding_always_first",
        "--tasks",
        "instrument_grounding",
        "--include_path",
        folder,
        "--output_path",
        str(output),
        "--log_samples",
    ]
    completed = run_cli(command, cwd=tmp_path, env=env)
    assert completed.returncode == 0, completed.stderr[-3000:]
    assert set(read_lmms_results(output)) >= set(TASKS) - {"grounding_multilabel_30s"}
    assert "grounding_multilabel_30s" not in read_lmms_results(output)


def test_an_answer_is_read_up_to_the_stop_sequence_a_chat_class_ignored():
    """Chat model classes ignore `until`: what follows the first blank line is not read, and a
    reasoning block is set aside first (an unfinished one is invalid)."""
    from symphony_bench.plugin.core.dataset_source import task_yaml
    from symphony_bench.plugin.core.task_folders import tasks_path

    common = task_yaml(tasks_path("lmms-eval") / "instrument_grounding" / "_grounding_common_yaml")
    assert tuple(common["generation_kwargs"]["until"]) == grounding.ANSWER_STOP
    doc = {
        "interface": "yes_no",
        "options": ["yes", "no"],
        "gold": 0,
        "instrument": "piano",
        "sample_key": "000001_0",
    }
    for answer, chosen, unfinished in [
        ("Yes.\n\nActually, on reflection there is no piano.", 0, False),
        ("\n\nNo.\n\nThough a piano might be there.", 1, False),
        ("<think>Is there a piano? Yes.</think>\nNo.\n\nYes.", 1, False),
        ("<think>Is there a piano? Yes, there is", -1, True),
    ]:
        record = grounding.process_results(doc, [answer])["accuracy"]
        assert record["chosen"] == chosen, answer
        assert record["reasoning_unfinished"] is unfinished


def test_an_empty_answer_is_invalid_empty():
    """An answer of nothing but whitespace chooses nothing and says why: "empty"."""
    from symphony_bench.plugin.grounding.report import no_reading_reason

    doc = {"interface": "letter", "options": ["harp", "piano"], "gold": 0, "sample_key": "000002_0"}
    for answer in ("", "   ", "\n\n"):
        record = grounding.process_results(doc, [answer])["accuracy"]
        assert record["chosen"] == -1 and record["empty"] and not record["refused"], answer
        assert no_reading_reason(record) == "empty"
    # reasoning with nothing after it is an unfinished answer (what lmms-eval's stripping leaves)
    record = grounding.process_results(doc, ["<think>A or B?</think>\n "])["accuracy"]
    assert record["reasoning_unfinished"] and not record["empty"]
    record = grounding.process_results(doc, ["Neither, I think."])["accuracy"]
    assert record["chosen"] == -1 and not record["empty"]
    assert no_reading_reason(record) == "no option read"
