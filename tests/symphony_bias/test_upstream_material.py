"""A new user replicating the paper on its own material (issue 16), end to end on a small release
in the upstream layout: irregular names, no clarinet recording, a "Saw Synth" clip standing in for
the keyboard, texts.json sentences with "the / their instrument". Every gap is visible; nothing is
silently dropped."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import datasets
import pytest
from support.harness import executable, read_samples, run_cli, run_lm_eval, run_lmms_eval
from support.planted_replay import plant
from support.upstream_release import MISSING_RECORDING, write_upstream_release

from symphony_bench.plugin.core.hub_folder import load_hub_dataset

SYMPHONY_BENCH = executable("symphony-bench")


@pytest.fixture(scope="module")
def imported(tmp_path_factory) -> tuple[Path, Path, str]:
    """(release, import-upstream's output folder, what the import printed)."""
    root = tmp_path_factory.mktemp("upstream")
    release = write_upstream_release(root / "release")
    completed = run_cli(
        [
            SYMPHONY_BENCH,
            "import-upstream",
            "--release",
            str(release),
            "--out",
            str(root / "imported"),
        ],
        cwd=root,
    )
    assert completed.returncode == 0, completed.stderr
    return release, root / "imported", completed.stdout + completed.stderr


def report_of(run: Path, tmp_path: Path) -> dict:
    out = tmp_path / f"{run.name}.json"
    completed = run_cli([SYMPHONY_BENCH, "report", str(run), "--json", str(out)], cwd=tmp_path)
    assert completed.returncode == 0, completed.stderr
    return json.loads(out.read_text())


@pytest.mark.e2e
def test_the_import_names_the_missing_instrument_and_the_stand_in_and_keeps_photo_bytes(imported):
    release, out, printed = imported
    assert (
        f"no recordings for: {MISSING_RECORDING}" in printed
        and "Saw Synth 01.mp3 -> keyboard" in printed
    )
    audio_set = json.loads((out / "audio" / "stimulus_set.json").read_text())
    assert audio_set["missing_instruments"] == [MISSING_RECORDING]
    assert {
        "source": "instrument-audios/Synth/Saw Synth 01.mp3",
        "instrument": "keyboard",
        "stand_in": True,
    } in audio_set["name_mappings"]
    assert "Saw Synth" in (out / "audio" / "README.md").read_text()
    images = load_hub_dataset(out / "images").cast_column("image", datasets.Image(decode=False))
    kept = [row for row in images if row["stored_as"] == "original"]
    assert len(kept) >= len(images) - 2
    for row in kept:
        original = release / row["source"]
        assert (
            row["source_sha256"]
            == row["sha256"]
            == hashlib.sha256(original.read_bytes()).hexdigest()
        )
        assert row["image"]["bytes"] == original.read_bytes()


@pytest.mark.e2e
def test_texts_json_runs_through_lm_eval_with_the_determiners_kept(imported, tiny_llama, tmp_path):
    release, _, _ = imported
    output = tmp_path / "text"
    run_lm_eval(
        "hf",
        f"pretrained={tiny_llama},dtype=float32",
        "symphony_bias_text_mini",
        output,
        "--metadata",
        json.dumps({"scenarios": str(release / "texts.json")}),
        "--gen_kwargs",
        "max_gen_toks=8",
    )
    scenarios = {
        sample["doc"]["scenario"] for sample in read_samples(output, "symphony_bias_text_mini")
    }
    assert len(scenarios) == 3 * 23
    assert "A person was tuning the harp before the program started." in scenarios
    assert "A person carried their drums to the rehearsal." in scenarios
    assert "A person performed a solo piece using an oboe." in scenarios


@pytest.mark.e2e
def test_conditions_over_a_set_without_clarinet_say_so_and_compare_on_common_instruments(
    imported, tmp_path, monkeypatch
):
    _, out, _ = imported
    monkeypatch.setenv("SYMPHONY_AUDIO", str(out))  # the import's own folder stands for out/audio
    plant("audio", tmp_path / "responses.jsonl")
    run = tmp_path / "audio"
    suite = "symphony_bias_audio_suite_mini"
    run_lmms_eval(
        "symphony_replay",
        f"responses={tmp_path / 'responses.jsonl'}",
        suite,
        run,
        {"SYMPHONY_AUDIO": str(out)},
    )
    assert (
        run_cli([SYMPHONY_BENCH, "check", str(run), "--tasks", suite], cwd=tmp_path).returncode == 0
    )
    report = report_of(run, tmp_path)
    stimulus, named = report["symphony_bias_audio_mini"], report["symphony_bias_audio_named_mini"]
    assert (
        stimulus["missing_instruments"] == [MISSING_RECORDING]
        and named["missing_instruments"] == []
    )
    assert (
        MISSING_RECORDING not in stimulus["instruments"]
        and MISSING_RECORDING in named["instruments"]
    )
    for entry in (stimulus, named, report["symphony_bias_audio_nostimulus_mini"]):
        assert len(entry["common_instruments"]["instruments"]) == 21
    markdown = run_cli([SYMPHONY_BENCH, "report", str(run)], cwd=tmp_path).stdout
    assert "(on the 21 instruments every condition has)" in markdown


@pytest.mark.e2e
def test_a_limit_smoke_run_sees_every_instrument_and_prints_na_for_intervals(
    imported, tmp_path, monkeypatch
):
    _, out, _ = imported
    monkeypatch.setenv("SYMPHONY_IMAGE", str(out))
    plant("image", tmp_path / "responses.jsonl")
    run = tmp_path / "image"
    run_lmms_eval(
        "symphony_replay",
        f"responses={tmp_path / 'responses.jsonl'}",
        "symphony_bias_image_mini",
        run,
        {"SYMPHONY_IMAGE": str(out)},
        "--limit",
        "22",
    )
    entry = report_of(run, tmp_path)["symphony_bias_image_mini"]
    assert entry["missing_instruments"] == [] and len(entry["instruments"]) == 22
    assert all(row["n_valid"] + row["n_invalid"] == 1 for row in entry["instruments"].values())
    assert all(
        row["abs_ci"] == [None, None] and row["abs_stderr"] is None
        for row in entry["instruments"].values()
    )
