"""The Symphony-Bias audio set: real FluidSynth renders, Hub layout, reproducibility, bad input."""

from __future__ import annotations

import hashlib
import io
import json
import re
import shutil
import sys
from pathlib import Path

import datasets
import numpy as np
import pytest
import soundfile
from support.harness import executable, run_cli

from symphony_bench.hub_upload import synthmic
from symphony_bench.hub_upload.symphony_bias_audio import VOICES, build
from symphony_bench.plugin.core.atomic import BUILD_MARKER
from symphony_bench.plugin.core.audio import decode_audio
from symphony_bench.plugin.core.errors import DataFileError
from symphony_bench.plugin.core.hub_folder import load_hub_dataset
from symphony_bench.plugin.core.vocabulary import load_instruments


def decoded_rows(folder: Path) -> list[dict]:
    dataset = load_hub_dataset(folder).cast_column("audio", datasets.Audio(decode=False))
    return [dict(row, samples=decode_audio(row["audio"]["bytes"])) for row in dataset]


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    folder = tmp_path_factory.mktemp("audio") / "symphony-bias-audio"
    check = build(folder, seed=3, clips_per_instrument=2)
    return folder, check, decoded_rows(folder)


@pytest.mark.e2e
def test_every_instrument_has_audible_clips_in_range(built):
    _, _, rows = built
    for row in rows:
        voice = VOICES[row["instrument"]]
        assert row["gm_program"] == (-1 if voice.drums else voice.program)
        assert all(voice.low <= pitch <= voice.high for pitch, _, _ in json.loads(row["notes"]))
    assert {r["instrument"] for r in rows} == {i.name for i in load_instruments()} == set(VOICES)
    assert len(rows) == 2 * 22
    for row in rows:
        samples = row["samples"]
        assert samples.dtype == np.float32 and samples.ndim == 1
        rms, peak = float(np.sqrt(np.mean(samples**2))), float(np.max(np.abs(samples)))
        assert 0.01 < rms < 0.5, row["clip_id"]
        assert 0.85 < peak <= 0.91, row["clip_id"]
        assert 5 * 0.25 + 0.4 - 0.01 <= row["duration_s"] <= 10 * 0.7 + 0.4 + 0.01
        int16, _ = soundfile.read(io.BytesIO(row["audio"]["bytes"]), dtype="int16")
        assert hashlib.sha256(int16.astype("<i2").tobytes()).hexdigest() == row["pcm_sha256"]


@pytest.mark.e2e
def test_every_clip_records_the_loudness_of_its_stored_samples(built):
    """`loudness_lufs` is pyloudnorm's BS.1770 reading of the decoded FLAC; the renders are
    peak-normalised, so instruments differ in loudness, and the card says so with the range."""
    import pyloudnorm

    folder, _, rows = built
    meter = pyloudnorm.Meter(16_000)
    for row in rows:
        measured = meter.integrated_loudness(row["samples"].astype(np.float64))
        assert row["loudness_lufs"] == pytest.approx(measured, abs=0.006), row["clip_id"]
    loudness = [row["loudness_lufs"] for row in rows]
    assert max(loudness) - min(loudness) > 10  # a drum kit and a flute at one peak
    card = (folder / "README.md").read_text()
    assert "peak-normalised (mono peak 0.9), not loudness-normalised" in card
    assert f"{min(loudness):.1f} to {max(loudness):.1f} LUFS" in card
    assert "ITU-R BS.1770-4 integrated loudness, measured with pyloudnorm" in card


@pytest.mark.e2e
def test_same_seed_same_pcm_other_seed_other_pcm(built, tmp_path):
    folder, _, rows = built
    # "again" is built in a fresh process whose C random state differs, to catch process-state
    # leaks, and on two workers: the same bytes as one
    script = (
        "import ctypes, sys; ctypes.CDLL(None).srand(987); "
        "from symphony_bench.hub_upload.symphony_bias_audio import build; "
        "build(sys.argv[1], seed=3, clips_per_instrument=2, workers=2)"
    )
    completed = run_cli([sys.executable, "-c", script, str(tmp_path / "again")], cwd=tmp_path)
    assert completed.returncode == 0, completed.stderr
    build(tmp_path / "other", seed=4, clips_per_instrument=2)
    files = sorted(path.relative_to(folder) for path in folder.rglob("*") if path.is_file())
    assert any(path.suffix == ".parquet" for path in files)
    for name in files:
        assert (tmp_path / "again" / name).read_bytes() == (folder / name).read_bytes(), name
    again, other = decoded_rows(tmp_path / "again"), decoded_rows(tmp_path / "other")
    assert [r["pcm_sha256"] for r in again] == [r["pcm_sha256"] for r in rows]
    assert all(np.array_equal(a["samples"], b["samples"]) for a, b in zip(again, rows, strict=True))
    assert sum(a["pcm_sha256"] != b["pcm_sha256"] for a, b in zip(other, rows, strict=True)) == len(
        rows
    )


@pytest.mark.e2e
def test_card_documents_substitutes_separability_and_licence(built):
    folder, check, _ = built
    card = (folder / "README.md").read_text()
    assert "ukulele: GM has no ukulele" in card and "keyboard: GM has no generic keyboard" in card
    assert "license: gpl-2.0" in card and "TimGM6mb" in card
    assert check["between_instruments"] > check["within_instrument"]
    assert f"{check['within_instrument']:.3f}" in card
    assert sorted(p.name for p in folder.rglob("*") if p.is_file()) == [
        BUILD_MARKER,
        "README.md",
        "test-00000-of-00001.parquet",
    ]
    assert "FluidSynth 2." in card


def test_missing_soundfont_is_one_clear_error_and_writes_nothing(tmp_path):
    with pytest.raises(FileNotFoundError, match="nope.sf2"):
        build(tmp_path / "out", soundfont=tmp_path / "nope.sf2")
    assert not (tmp_path / "out").exists()


def test_corrupt_soundfont_fails_without_touching_an_existing_build(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / BUILD_MARKER).write_text("written by symphony-bench\nkind: symphony-bias-audio\n")
    (out / "keep.txt").write_text("previous build")
    corrupt = tmp_path / "corrupt.sf2"
    corrupt.write_bytes(b"RIFF not a soundfont" * 10)
    with pytest.raises(ValueError, match="corrupt.sf2"):
        build(out, soundfont=corrupt, clips_per_instrument=1)
    assert (out / "keep.txt").read_text() == "previous build"
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


@pytest.mark.e2e
def test_cli_builds_a_loadable_folder(tmp_path):
    symphony_bench = executable("symphony-bench")
    completed = run_cli(
        [
            symphony_bench,
            "build",
            "symphony-bias-audio",
            "--out",
            str(tmp_path / "a"),
            "--clips-per-instrument",
            "1",
        ],
        cwd=tmp_path,
    )
    assert completed.returncode == 0, completed.stderr
    assert len(decoded_rows(tmp_path / "a")) == 22
    failed = run_cli(
        [
            symphony_bench,
            "build",
            "symphony-bias-audio",
            "--out",
            str(tmp_path / "b"),
            "--soundfont",
            str(tmp_path / "x.sf2"),
        ],
        cwd=tmp_path,
    )
    assert (
        failed.returncode == 2
        and str(tmp_path / "x.sf2") in failed.stderr
        and not (tmp_path / "b").exists()
    )


@pytest.mark.e2e
def test_a_rebuild_replaces_an_earlier_output_but_never_a_foreign_folder(built, tmp_path):
    folder, _, rows = built
    foreign = tmp_path / "notes"
    foreign.mkdir()
    (foreign / "thesis.tex").write_text("precious")
    with pytest.raises(DataFileError, match="not an earlier symphony-bench output"):
        build(foreign, seed=3, clips_per_instrument=1)
    assert (foreign / "thesis.tex").read_text() == "precious"
    with pytest.raises(DataFileError, match="working directory"):
        build(Path.cwd(), seed=3, clips_per_instrument=1)
    rebuilt = tmp_path / "rebuilt"
    shutil.copytree(folder, rebuilt)
    build(rebuilt, seed=5, clips_per_instrument=1)
    assert len(decoded_rows(rebuilt)) == 22
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]


def test_another_builders_output_or_a_folder_holding_the_soundfont_is_refused_before_rendering(
    tmp_path,
):
    archive = tmp_path / "synthmic"
    archive.mkdir()
    (archive / BUILD_MARKER).write_text("written by symphony-bench\nkind: synthmic\n")
    corrupt = tmp_path / "corrupt.sf2"
    corrupt.write_bytes(b"RIFF not a soundfont" * 10)  # rendering first would fail on this instead
    with pytest.raises(DataFileError, match="holds a 'synthmic' output"):
        build(archive, soundfont=corrupt, clips_per_instrument=1)
    fonts = tmp_path / "fonts"
    fonts.mkdir()
    soundfont = fonts / "font.sf2"
    soundfont.write_bytes(b"RIFF")
    with pytest.raises(DataFileError, match=f"contains the input {re.escape(str(soundfont))}"):
        synthmic.build(fonts, clips=1, soundfont=soundfont)
    assert soundfont.read_bytes() == b"RIFF" and (archive / BUILD_MARKER).is_file()
