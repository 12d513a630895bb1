"""The Symphony-Bias audio and image tasks through the real `lmms-eval` command line, offline."""

from __future__ import annotations

import csv
import io
import json
import shutil
import sys
from collections import Counter
from pathlib import Path

import pandas as pd
import pytest
from conftest import (
    expected_association,
    pictogram_photos,
    read_lmms_results,
    read_lmms_samples,
    run_cli,
    run_lmms_eval,
)

from symphony_bench.hub_upload import symphony_bias_audio, symphony_bias_image
from symphony_bench.hub_upload.symphony_bias_image import MIN_IMAGES
from symphony_bench.plugin.core.errors import DataFileError
from symphony_bench.plugin.core.vocabulary import DATA_DIR
from symphony_bench.plugin.symphony_bias import multimodal, recognition
from symphony_bench.plugin.symphony_bias.options import STIMULUS_OPTIONS

LABELS = ["very low", "low", "medium", "high", "very high"]
PLANTED = {"female": (2, 5, 3), "male": (5, 2, 2), "none": (3, 3, 3)}
UNHEARD = (3, 3, 3)
CONDITION_OF = {"": "stimulus", "_nostimulus": "no_stimulus", "_named": "named"}


@pytest.fixture(scope="module")
def audio_set(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("audio") / "symphony-bias-audio"
    symphony_bias_audio.build(out, seed=3, clips_per_instrument=2)
    return out


@pytest.fixture(scope="module")
def image_set(tmp_path_factory) -> Path:
    source = pictogram_photos(tmp_path_factory.mktemp("photos"), MIN_IMAGES)
    return symphony_bias_image.build(source, source.parent / "symphony-bias-image")


@pytest.mark.e2e
def test_tiny_qwen2_audio_runs_every_audio_condition(audio_set, tmp_path):
    """The README's smoke run: `symphony-bench tiny-model qwen2-audio`, then lmms-eval with it."""
    built = run_cli(
        [
            str(Path(sys.executable).with_name("symphony-bench")),
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


def _likert_json(values: tuple[int, int, int], reason: str) -> str:
    male, female, non_binary = (LABELS[v - 1] for v in values)
    return json.dumps({"reason": reason, "woman": female, "man": male, "non-binary": non_binary})


def _task_docs(modality: str, suffix: str) -> list[dict]:
    if suffix == "_recognition":
        return list(recognition.recognition_docs(modality))
    return list(
        multimodal.likert_docs(modality, CONDITION_OF[suffix.removesuffix("_mini")], "mini")
    )


def _recognised_stimuli(recognition_docs: list[dict]) -> set[str]:
    """The planted model recognises every other stimulus of each instrument."""
    seen: dict[str, int] = {}
    recognised = set()
    for doc in recognition_docs:
        seen[doc["instrument"]] = seen.get(doc["instrument"], -1) + 1
        if seen[doc["instrument"]] % 2 == 0:
            recognised.add(doc["stimulus_id"])
    return recognised


def _plan(doc: dict, doc_id: int, recognised: set[str]) -> dict:
    """The planted Likert values of one doc: the stereotype when the model 'perceives' the instrument,
    a flat answer otherwise; every 7th answer invalid; scenario-dependent non-binary jitter."""
    heard = doc["condition"] == "named" or (
        doc["condition"] == "stimulus" and doc["stimulus_id"] in recognised
    )
    male, female, non_binary = PLANTED[doc["stereotype"]] if heard else UNHEARD
    non_binary = max(1, non_binary - int(doc["scenario_id"][-1]) % 2)
    return {"male": male, "female": female, "non_binary": non_binary, "valid": doc_id % 7 != 3}


def _recognition_answer(doc: dict, recognised: set[str]) -> str:
    if doc["stimulus_id"] in recognised:
        return f"It is a {doc['instrument'].upper()}."
    return "A kazoo." if doc["instrument"] != "violin" else "Sounds like a trumpet."


def plant(modality: str, responses_path: Path) -> dict:
    """Writes the replay file for the modality's mini suite; returns what an independent computation needs."""
    recognition_docs = _task_docs(modality, "_recognition")
    recognised = _recognised_stimuli(recognition_docs)
    rows, frames = [], {}
    for doc_id, doc in enumerate(recognition_docs):
        rows.append(
            {
                "task": f"symphony_bias_{modality}_recognition",
                "doc_id": doc_id,
                "response": _recognition_answer(doc, recognised),
            }
        )
    for suffix in ("_mini", "_nostimulus_mini", "_named_mini"):
        task = f"symphony_bias_{modality}{suffix}"
        plans = []
        for doc_id, doc in enumerate(_task_docs(modality, suffix)):
            plan = _plan(doc, doc_id, recognised)
            values = (plan["male"], plan["female"], plan["non_binary"])
            response = (
                _likert_json(values, "planted") if plan["valid"] else "I would rather not guess."
            )
            rows.append({"task": task, "doc_id": doc_id, "response": response})
            plans.append(
                {
                    "scenario": doc["scenario_id"],
                    "instrument": doc["instrument"],
                    "stimulus": doc["stimulus_id"],
                    **plan,
                }
            )
        frames[task] = pd.DataFrame(plans)
    responses_path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return {"frames": frames, "recognised": recognised, "n_stimuli": len(recognition_docs)}


def paper_stereotypes() -> dict[str, str]:
    with open(DATA_DIR / "stereotypes_paper_v1.csv", newline="") as handle:
        return {row["instrument"]: row["category"] for row in csv.DictReader(handle)}


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
    report = run_cli(
        [
            str(Path(sys.executable).with_name("symphony-bench")),
            "report",
            str(output),
            "--json",
            str(report_json),
        ],
        cwd=tmp_path,
    )
    assert report.returncode == 0, report.stderr
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
            assert results[task][f"{metric}_stderr,none"] == pytest.approx(
                body[task]["summary"][f"{metric}_stderr"], abs=1e-12
            )
            assert body[task]["summary"][metric] == pytest.approx(expected, abs=1e-9)
        for name, row in body[task]["instruments"].items():
            if stereotypes[name] != "none":
                assert row["abs"] == pytest.approx(gas.loc[name, "abs"], abs=1e-9), (task, name)

    recognition_task = f"symphony_bias_{modality}_recognition"
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
    assert f"| {stimulus_task} (recognised stimuli only) | {restricted['mean_abs']:.3f}" in overview


def test_docs_pair_every_stimulus_with_every_scenario_and_hide_the_instrument(
    audio_set, monkeypatch
):
    monkeypatch.setenv("SYMPHONY_AUDIO", str(audio_set))
    docs = _task_docs("audio", "_mini")
    stimuli = {doc["stimulus_id"] for doc in docs}
    assert len(stimuli) == 44 and len(docs) == 44 * 5
    for doc in docs:
        assert "an instrument" in doc["scenario"] and doc["instrument"] not in doc["prompt"].lower()
        assert doc["attach"] is True
    assert all(not doc["attach"] for doc in _task_docs("audio", "_nostimulus_mini"))
    audio = multimodal.audio_visual(docs[0])
    assert (
        audio[0]["type"] == "audio"
        and audio[0]["sampling_rate"] == 16000
        and audio[0]["array"].ndim == 1
    )
    named = _task_docs("audio", "_named_mini")
    assert len(named) == 22 * 5 and all(doc["instrument"] in doc["prompt"].lower() for doc in named)


def test_any_prefix_of_the_docs_covers_instruments_evenly(audio_set, monkeypatch):
    """A --limit smoke run sees every instrument, and for each both of its stimuli and several scenarios."""
    monkeypatch.setenv("SYMPHONY_AUDIO", str(audio_set))
    for suffix in ("_mini", "_recognition"):
        docs = list(_task_docs("audio", suffix))
        for limit in (10, 22, 50, 100, len(docs)):
            counts = Counter(doc["instrument"] for doc in docs[:limit])
            assert max(counts.values()) - min(counts.values(), default=0) <= 1 and len(
                counts
            ) == min(limit, 22), (suffix, limit)
    first_88 = [doc for doc in _task_docs("audio", "_mini")][:88]  # 4 docs per instrument
    for name in {doc["instrument"] for doc in first_88}:
        mine = [doc for doc in first_88 if doc["instrument"] == name]
        assert (
            len({doc["stimulus_id"] for doc in mine}) == 2
            and len({doc["scenario_id"] for doc in mine}) >= 3
        )


def test_unset_or_missing_stimulus_set_is_one_clear_error(monkeypatch, tmp_path):
    """Offline with an empty cache, the pinned repo cannot load: the error says how to build the set."""
    monkeypatch.delenv("SYMPHONY_IMAGE", raising=False)
    pinned = "cannot load the dataset symphony-bench/symphony-bias-image at revision v1.0 from the Hub or the local cache"
    with pytest.raises(
        DataFileError,
        match=f"{pinned}.*symphony-bench build symphony-bias-image --out DIR.*SYMPHONY_IMAGE=DIR",
    ):
        _task_docs("image", "_mini")
    monkeypatch.setenv("SYMPHONY_IMAGE", str(tmp_path / "nowhere"))
    with pytest.raises(DataFileError, match="nowhere: no such folder, and not a Hub repo id"):
        _task_docs("image", "_mini")


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
        len(_task_docs("image", "_mini"))
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
    check = run_cli(
        [
            str(Path(sys.executable).with_name("symphony-bench")),
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


def test_a_stimulus_set_that_changed_under_the_docs_is_named(audio_set, monkeypatch):
    monkeypatch.setenv("SYMPHONY_AUDIO", str(audio_set))
    doc = dict(_task_docs("audio", "_recognition")[0], stimulus_id="someone-else")
    with pytest.raises(DataFileError, match="the set changed"):
        multimodal.audio_visual(doc)


def test_replay_file_errors_name_the_line(tmp_path):
    from symphony_bench.plugin.lmms.models import read_responses

    path = tmp_path / "responses.jsonl"
    path.write_text('{"task": "t", "doc_id": 0, "response": "x"}\n{"task": "t"}\n')
    with pytest.raises(DataFileError, match=r"responses.jsonl:2"):
        read_responses(path)


def test_seed_variable_reproduces_docs_and_a_bad_seed_is_named(audio_set, monkeypatch):
    monkeypatch.setenv("SYMPHONY_AUDIO", str(audio_set))
    default = _task_docs("audio", "_mini")
    assert _task_docs("audio", "_mini") == default
    monkeypatch.setenv("SYMPHONY_SEED", "7")
    reseeded = _task_docs("audio", "_mini")
    assert {d["seed"] for d in reseeded} == {7}
    assert [d["gender_order"] for d in reseeded] != [d["gender_order"] for d in default]
    monkeypatch.setenv("SYMPHONY_SEED", "seven")
    with pytest.raises(ValueError, match="SYMPHONY_SEED: must be an integer"):
        _task_docs("audio", "_mini")


def test_a_renamed_variable_is_an_error_that_names_the_new_one(audio_set, monkeypatch):
    monkeypatch.setenv("SYMPHONY_AUDIO", str(audio_set))
    monkeypatch.setenv("SYMPHONY_BIAS_SEED", "7")
    with pytest.raises(
        ValueError, match="SYMPHONY_BIAS_SEED was renamed: set SYMPHONY_SEED instead"
    ):
        _task_docs("audio", "_mini")


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
    monkeypatch.setattr(
        multimodal,
        "_stimulus_row",
        lambda doc, column: {"image": {"bytes": buffer.getvalue(), "path": "x.jpg"}},
    )
    (image,) = multimodal.image_visual({"attach": True})
    assert image.size == (20, 40) and image.mode == "RGB"
