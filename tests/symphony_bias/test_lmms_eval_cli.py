"""The Symphony-Bias audio and image tasks through the real `lmms-eval` command line, offline."""

from __future__ import annotations

import hashlib
import io
import json
import shutil
from collections import Counter

import pyarrow.parquet as pq
import pytest
from support.association import expected_association, paper_stereotypes
from support.harness import (
    read_lmms_results,
    read_lmms_samples,
    run_lmms_eval,
    run_symphony_bench,
)
from support.planted_replay import plant, task_docs

from symphony_bench.metrics.association import DESCRIPTIVE_HEADLINES
from symphony_bench.plugin.core.dataset_source import pinned_dataset
from symphony_bench.plugin.core.errors import DataFileError
from symphony_bench.plugin.symphony_bias import multimodal
from symphony_bench.plugin.symphony_bias.options import STIMULUS_OPTIONS


@pytest.mark.e2e
def test_tiny_qwen2_audio_runs_every_audio_condition(audio_set, tmp_path):
    """The smoke run of docs/running-tasks.md: `symphony-bench tiny-model qwen2-audio`, then lmms-eval with it."""
    built = run_symphony_bench(
        [
            "tiny-model",
            "qwen2-audio",
            "--out",
            str(tmp_path / "tiny-qwen2-audio"),
        ],
        cwd=tmp_path,
    )
    assert built.returncode == 0, built.stderr
    tiny_qwen2_audio = built.stdout.strip()
    output = tmp_path / "run"
    completed = run_lmms_eval(
        "symphony_qwen2_audio",
        f"pretrained={tiny_qwen2_audio}",
        "symphony_bias_audio_suite_mini",
        output,
        {"SYMPHONY_AUDIO": str(audio_set)},
        "--limit",
        "3",
        "--gen_kwargs",
        "max_new_tokens=6",
    )
    results = read_lmms_results(output)
    tasks = [
        "symphony_bias_audio_mini",
        "symphony_bias_audio_nostimulus_mini",
        "symphony_bias_audio_named_mini",
        "symphony_bias_audio_recognition",
    ]
    for task in tasks:
        samples = read_lmms_samples(output, task)
        assert len(samples) == 3, task
        # the stock class answers "" when generation raises (e.g. audio that did not reach the model);
        # lmms-eval logs "resps" only where it differs from "filtered_resps"
        answers = [s["filtered_resps"] for s in samples]
        assert all(isinstance(a, str) and a.strip() for a in answers), (
            task,
            answers,
            completed.stderr[-2000:],
        )
        assert task in results
    assert (
        "The instrument's sound is given in the audio."
        in read_lmms_samples(output, tasks[0])[0]["input"]
    )
    assert isinstance(results[tasks[0]]["invalid_rate_stderr,none"], float)


# ---- planted answers replayed through lmms-eval --------------------------------------------------


@pytest.mark.e2e
@pytest.mark.parametrize("modality", ["audio", "image"])
def test_planted_answers_replayed_through_lmms_eval_match_independent_computation(
    modality, audio_set, image_set, tmp_path, monkeypatch
):
    source = {"audio": audio_set, "image": image_set}[modality]
    variable = STIMULUS_OPTIONS[modality].variable
    monkeypatch.setenv(variable, str(source))
    planted = plant(modality, tmp_path / "responses.jsonl")
    output = tmp_path / "run"
    completed = run_lmms_eval(
        "symphony_replay",
        f"responses={tmp_path / 'responses.jsonl'}",
        f"symphony_bias_{modality}_suite_mini",
        output,
        {variable: str(source)},
    )
    results = read_lmms_results(output)
    report_json = tmp_path / "report.json"
    report = run_symphony_bench(
        [
            "report",
            str(output),
            "--json",
            str(report_json),
        ],
        cwd=tmp_path,
    )
    assert report.returncode == 0, report.stderr
    # lmms-eval logs no doc: every answer is re-read against what its record holds of the doc
    verified = run_symphony_bench(["verify", str(output)], cwd=tmp_path)
    assert verified.returncode == 0 and "note:" not in verified.stdout, verified.stdout
    body = json.loads(report_json.read_text())
    stereotypes = paper_stereotypes()

    for task, frame in planted["frames"].items():
        assert len(read_lmms_samples(output, task)) == len(frame)
        gas, headline = expected_association(frame, stereotypes)
        for metric, expected in headline.items():
            assert results[task][f"{metric},none"] == pytest.approx(expected, abs=1e-9), (
                task,
                metric,
            )
            if metric in DESCRIPTIVE_HEADLINES:  # no stderr of ours
                assert f"{metric}_stderr" not in body[task]["summary"]
                assert results[task].get(f"{metric}_stderr,none", "N/A") == "N/A"
                assert body[task]["summary"][metric] == pytest.approx(expected, abs=1e-9)
                continue
            assert results[task][f"{metric}_stderr,none"] == pytest.approx(
                body[task]["summary"][f"{metric}_stderr"], abs=1e-12
            )
            assert body[task]["summary"][metric] == pytest.approx(expected, abs=1e-9)
        for name, row in body[task]["instruments"].items():
            if stereotypes[name] != "none":
                assert row["abs"] == pytest.approx(gas.loc[name, "abs"], abs=1e-9), (task, name)

    recognition_task = f"symphony_bias_{modality}_recognition"
    # the controls attach nothing and log no media; every record names its stimulus by the set's id
    for suffix in ("_nostimulus_mini", "_named_mini"):
        samples = read_lmms_samples(output, f"symphony_bias_{modality}{suffix}")
        assert [s["input_media"] for s in samples if "input_media" in s] == []
    set_ids = set(
        multimodal.stimulus_table(str(source), modality)[multimodal.MODALITIES[modality].id_column]
    )
    for task, metric in (
        (f"symphony_bias_{modality}_mini", "mean_abs"),
        (f"symphony_bias_{modality}_nostimulus_mini", "mean_abs"),
        (recognition_task, "recognition_accuracy"),
    ):
        assert {s[metric]["stimulus_id"] for s in read_lmms_samples(output, task)} == set_ids, task
    expected_accuracy = len(planted["recognised"]) / planted["n_stimuli"]
    assert results[recognition_task]["recognition_accuracy,none"] == pytest.approx(
        expected_accuracy
    )
    assert body[recognition_task]["summary"]["recognition_accuracy"] == pytest.approx(
        expected_accuracy
    )
    violin = body[recognition_task]["instruments"]["violin"]
    assert violin["named_instead"] == {"trumpet": violin["n"] // 2}

    # ABS on recognised stimuli only recovers the planted association that the full set dilutes
    stimulus_task = f"symphony_bias_{modality}_mini"
    frame = planted["frames"][stimulus_task]
    _, recognised_headline = expected_association(
        frame[frame.stimulus.isin(planted["recognised"])], stereotypes
    )
    restricted = body[stimulus_task]["recognised_only"]["summary"]
    assert restricted["mean_abs"] == pytest.approx(recognised_headline["mean_abs"], abs=1e-9)
    assert restricted["mean_abs"] > body[stimulus_task]["summary"]["mean_abs"] + 0.05
    assert restricted["consistency_rate"] == 1.0
    # nothing attached and nothing named: no planted association survives
    assert body[f"symphony_bias_{modality}_nostimulus_mini"]["summary"][
        "mean_abs"
    ] == pytest.approx(0.0, abs=1e-12)
    assert "recognition_accuracy" in completed.stdout
    overview = report.stdout.split("\n## ")[0]
    assert overview.startswith("## Overview")
    assert (
        f"| {stimulus_task} (recognised stimuli only) | Likert, generated JSON | "
        f"{restricted['mean_abs']:.3f}" in overview
    )


@pytest.mark.slow  # the audio_set fixture renders 44 clips
def test_docs_pair_every_stimulus_with_every_scenario_and_hide_the_instrument(
    audio_set, monkeypatch
):
    monkeypatch.setenv("SYMPHONY_AUDIO", str(audio_set))
    docs = task_docs("audio", "_mini")
    stimuli = {doc["stimulus_id"] for doc in docs}
    assert len(stimuli) == 44 and len(docs) == 44 * 5
    for doc in docs:
        assert "an instrument" in doc["scenario"] and doc["instrument"] not in doc["prompt"].lower()
        assert doc["attach"] is True
    assert all(not doc["attach"] for doc in task_docs("audio", "_nostimulus_mini"))
    audio = multimodal.audio_visual(docs[0])
    assert (
        audio[0]["type"] == "audio"
        and audio[0]["sampling_rate"] == 16000
        and audio[0]["array"].ndim == 1
    )
    named = task_docs("audio", "_named_mini")
    assert len(named) == 22 * 5 and all(doc["instrument"] in doc["prompt"].lower() for doc in named)


@pytest.mark.slow  # the audio_set fixture renders 44 clips
def test_any_prefix_of_the_docs_covers_instruments_evenly(audio_set, monkeypatch):
    """A --limit smoke run sees every instrument, and for each both of its stimuli and several scenarios."""
    monkeypatch.setenv("SYMPHONY_AUDIO", str(audio_set))
    for suffix in ("_mini", "_recognition"):
        docs = list(task_docs("audio", suffix))
        for limit in (10, 22, 50, 100, len(docs)):
            counts = Counter(doc["instrument"] for doc in docs[:limit])
            assert max(counts.values()) - min(counts.values(), default=0) <= 1 and len(
                counts
            ) == min(limit, 22), (suffix, limit)
    first_88 = [doc for doc in task_docs("audio", "_mini")][:88]  # 4 docs per instrument
    for name in {doc["instrument"] for doc in first_88}:
        mine = [doc for doc in first_88 if doc["instrument"] == name]
        assert (
            len({doc["stimulus_id"] for doc in mine}) == 2
            and len({doc["scenario_id"] for doc in mine}) >= 3
        )


def test_unset_or_missing_stimulus_set_is_one_clear_error(monkeypatch, tmp_path):
    """Offline with an empty cache, the pinned repo cannot load: the error says how to build the set."""
    monkeypatch.delenv("SYMPHONY_IMAGE", raising=False)
    pinned = (
        "cannot load the dataset symphony-bench/symphony-bias-image at revision v1.0 "
        "from the Hub or the local cache"
    )
    with pytest.raises(
        DataFileError,
        match=f"{pinned}.*symphony-bench build symphony-bias-image --out DIR.*SYMPHONY_IMAGE=DIR",
    ):
        task_docs("image", "_mini")
    monkeypatch.setenv("SYMPHONY_IMAGE", str(tmp_path / "nowhere"))
    with pytest.raises(DataFileError, match="nowhere: no such folder, and not a Hub repo id"):
        task_docs("image", "_mini")


def test_the_import_upstream_output_folder_stands_for_its_subfolder(
    image_set, monkeypatch, tmp_path
):
    (tmp_path / "imported").mkdir()
    shutil.copytree(image_set, tmp_path / "imported" / "images")
    monkeypatch.setenv("SYMPHONY_IMAGE", str(tmp_path / "imported"))
    assert (
        multimodal.stimulus_source(multimodal.MODALITIES["image"]).folder
        == tmp_path / "imported" / "images"
    )
    assert (
        len(task_docs("image", "_mini"))
        == len(multimodal.stimuli(multimodal.MODALITIES["image"])) * 5
    )


@pytest.mark.e2e
def test_a_missing_stimulus_set_is_the_first_and_last_error_lmms_eval_shows_and_check_fails(
    tmp_path, monkeypatch
):
    monkeypatch.delenv("SYMPHONY_IMAGE", raising=False)
    output = tmp_path / "run"
    completed = run_lmms_eval(
        "symphony_replay", "responses=/dev/null", "symphony_bias_image_suite_mini", output, {}
    )
    ours = "symphony-bench: error: cannot load the dataset symphony-bench/symphony-bias-image at revision v1.0"
    lines = completed.stderr.strip().splitlines()
    assert lines[-1].startswith(ours), lines[-3:]
    first_error = next(line for line in lines if "error" in line.lower())
    assert first_error.startswith(ours), first_error
    check = run_symphony_bench(
        [
            "check",
            str(output),
            "--tasks",
            "symphony_bias_image_suite_mini",
        ],
        cwd=tmp_path,
    )
    assert (
        check.returncode == 1
        and "symphony_bias_image_mini: no results and no samples" in check.stderr
    )


@pytest.mark.e2e
def test_with_no_audio_option_and_no_hub_the_pinned_set_is_built_once_and_verified(
    tmp_path, monkeypatch
):
    """The pinned Hub repo is not published (and the Hub is off): the task builds the pinned default
    set into the cache on first use, checks its digest and records it as the pinned data."""
    monkeypatch.delenv("SYMPHONY_AUDIO", raising=False)
    task = "symphony_bias_audio_mini"
    responses = tmp_path / "responses.jsonl"
    responses.write_text(
        "".join(json.dumps({"task": task, "doc_id": k, "response": "{}"}) + "\n" for k in range(2))
    )
    env = {"SYMPHONY_BENCH_CACHE": str(tmp_path / "cache"), "HF_HOME": str(tmp_path / "hf")}
    pin = pinned_dataset(multimodal.STIMULUS_SET_YAML["audio"]).sha256
    builds = []
    for name in ("first", "second"):
        completed = run_lmms_eval(
            "symphony_replay", f"responses={responses}", task, tmp_path / name, env, "--limit", "2"
        )
        builds.append(completed.stderr.count("building the pinned default audio set"))
        samples = read_lmms_samples(tmp_path / name, task)
        assert len(samples) == 2
        recorded = {
            (s["mean_abs"]["dataset_sha256"], s["mean_abs"]["dataset_verified"]) for s in samples
        }
        assert recorded == {(pin, True)}, completed.stderr[-2000:]
    assert builds == [1, 0]


@pytest.mark.slow  # the audio_set fixture renders 44 clips
def test_a_stimulus_set_that_changed_under_the_docs_is_named(audio_set, monkeypatch):
    monkeypatch.setenv("SYMPHONY_AUDIO", str(audio_set))
    doc = dict(task_docs("audio", "_recognition")[0], stimulus_id="someone-else")
    with pytest.raises(DataFileError, match="the set changed"):
        multimodal.audio_visual(doc)


@pytest.mark.slow  # imports lmms-eval and its Qwen2-Audio model class (~8 s)
def test_replay_file_errors_name_the_line(tmp_path):
    from symphony_bench.plugin.lmms.models import read_responses

    path = tmp_path / "responses.jsonl"
    path.write_text('{"task": "t", "doc_id": 0, "response": "x"}\n{"task": "t"}\n')
    with pytest.raises(DataFileError, match=r"responses.jsonl:2"):
        read_responses(path)


@pytest.mark.slow  # the audio_set fixture renders 44 clips
def test_seed_variable_reproduces_docs_and_a_bad_seed_is_named(audio_set, monkeypatch):
    monkeypatch.setenv("SYMPHONY_AUDIO", str(audio_set))
    default = task_docs("audio", "_mini")
    assert task_docs("audio", "_mini") == default
    monkeypatch.setenv("SYMPHONY_SEED", "7")
    reseeded = task_docs("audio", "_mini")
    assert {d["seed"] for d in reseeded} == {7}
    assert [d["gender_order"] for d in reseeded] != [d["gender_order"] for d in default]
    monkeypatch.setenv("SYMPHONY_SEED", "seven")
    with pytest.raises(ValueError, match="SYMPHONY_SEED: must be an integer"):
        task_docs("audio", "_mini")


@pytest.mark.slow  # imports lmms-eval and its Qwen2-Audio model class (~8 s)
def test_a_null_replayed_response_is_no_answer(tmp_path):
    from symphony_bench.plugin.lmms.models import read_responses

    path = tmp_path / "responses.jsonl"
    path.write_text('{"task": "t", "doc_id": 0, "response": null}\n')
    assert read_responses(path) == {("t", 0): ""}


def test_undecoded_image_bytes_are_turned_upright_by_their_exif_orientation(monkeypatch):
    from PIL import Image

    buffer = io.BytesIO()
    exif = Image.Exif()
    exif[0x0112] = 6  # stored sideways: rotate 90 degrees clockwise to view
    Image.new("RGB", (40, 20), "red").save(buffer, format="JPEG", exif=exif)
    stored = buffer.getvalue()
    row = {
        "image": {"bytes": stored, "path": "x.jpg"},
        "sha256": hashlib.sha256(stored).hexdigest(),
    }
    monkeypatch.setattr(multimodal, "_stimulus_row", lambda doc, column: row)
    doc = {"attach": True, "stimulus_source": "set", "stimulus_id": "x"}
    (image,) = multimodal.image_visual(doc)
    assert image.size == (20, 40) and image.mode == "RGB"


def test_media_changed_after_the_build_is_refused_where_it_is_decoded(monkeypatch):
    """The content digest covers each row's recorded media hash; the media itself is checked
    against that hash when a task decodes it."""
    import numpy as np
    from PIL import Image

    from symphony_bench.plugin.core.audio import encode_flac, pcm_sha256

    buffer = io.BytesIO()
    Image.new("RGB", (8, 8), "red").save(buffer, format="PNG")
    flac = encode_flac(np.zeros(1600, dtype=np.float32))
    rows = {
        "image": {"image": {"bytes": buffer.getvalue()}, "sha256": "0" * 64},
        "audio": {
            "audio": {"bytes": flac},
            "pcm_sha256": pcm_sha256(encode_flac(np.ones(1600) / 4)),
        },
    }
    monkeypatch.setattr(multimodal, "_stimulus_row", lambda doc, column: rows[column])
    doc = {"attach": True, "stimulus_source": "set", "stimulus_id": "x"}
    with pytest.raises(
        DataFileError, match="set: image x: the image's bytes hash to .* not the 0000"
    ):
        multimodal.image_visual(doc)
    with pytest.raises(DataFileError, match="set: clip x: the audio's samples hash to .* not the "):
        multimodal.audio_visual(doc)
    rows["audio"]["pcm_sha256"] = pcm_sha256(flac)
    assert multimodal.audio_visual(doc)[0]["array"].shape == (1600,)


def lmms_eval_cache_fingerprint(task: str, cache_root) -> str:
    """The task fingerprint lmms-eval's response cache (`--use_cache`) keys every answer on."""
    from lmms_eval.caching.response_cache import ResponseCache
    from lmms_eval.tasks import TaskManager, get_task_dict

    from symphony_bench.plugin.core.task_folders import tasks_path

    manager = TaskManager(include_path=str(tasks_path("lmms-eval")))
    cache = ResponseCache.create(
        cache_root=str(cache_root),
        model="m",
        model_args="",
        task_dict=get_task_dict([task], manager),
    )
    try:
        return cache._task_fingerprints[task]
    finally:
        cache.close()


@pytest.mark.slow  # the audio_set fixture renders 44 clips; lmms-eval builds the task twice
def test_lmms_eval_response_cache_keys_differ_for_another_stimulus_set(
    audio_set, monkeypatch, tmp_path
):
    """Two stimulus sets give the same prompts: without the options in the task's config, every
    (task, doc) got the same cache key, and a cached run would replay the other set's answers."""
    task = "symphony_bias_audio_mini"

    def fingerprint(stimulus_set) -> str:
        monkeypatch.setenv("SYMPHONY_AUDIO", str(stimulus_set))
        return lmms_eval_cache_fingerprint(task, tmp_path / "cache")

    first = fingerprint(audio_set)
    other = shutil.copytree(audio_set, tmp_path / "other-set")
    copied = fingerprint(other)
    for path in (other / "data").rglob("*.parquet"):  # rebuilt in place: other clips, same folder
        table = pq.read_table(path)
        pq.write_table(table.take(list(reversed(range(table.num_rows)))), path)
    rebuilt = fingerprint(other)
    assert len({first, copied, rebuilt}) == 3
    assert fingerprint(audio_set) == first  # the same set keeps its keys: the cache still works
