"""Audio stimulus sets from recordings: a recordings folder made here (FluidSynth renders written as
WAV, FLAC, Ogg and MP3, a missing licence, a silent, a clipped and a too-short file, an instrument
without clips) and an OpenMIC-layout release with solo and mixed clips and voice present / absent /
unannotated, through the builder and an lmms-eval run with `symphony_replay`. Loudness is checked
with pyloudnorm's own meter on the decoded FLAC, resampling against scipy's resample_poly."""

from __future__ import annotations

import csv
import json
import os
import re
import tarfile
from pathlib import Path

import datasets
import numpy as np
import pyloudnorm
import pytest
import soundfile
from scipy.signal import resample_poly
from support.failures import no_hang
from support.harness import read_lmms_samples, run_lmms_eval, run_symphony_bench

from symphony_bench.hub_upload.fluidsynth_render import default_soundfont, phrase_notes, render
from symphony_bench.hub_upload.recorded_sets import (
    build_from_openmic,
    build_recordings,
    folder_instrument,
)
from symphony_bench.hub_upload.symphony_bias_audio import VOICES
from symphony_bench.plugin.core.audio import SAMPLE_RATE, decode_audio, pcm_sha256
from symphony_bench.plugin.core.errors import DataFileError
from symphony_bench.plugin.core.hub_folder import load_hub_dataset

# folder name (aliases included) -> (instrument, [(file name, sample rate)])
FOLDERS = {
    "harp": ("harp", [("a.wav", 22_050), ("b.flac", 16_000)]),
    "sax": ("saxophone", [("a.ogg", 44_100), ("b.mp3", 44_100)]),
    "Fiddle": ("violin", [("one.wav", 48_000), ("two.wav", 16_000)]),
}


def rendered(instrument: str, seed: int, rate: int) -> np.ndarray:
    audio = render(
        VOICES[instrument], phrase_notes(VOICES[instrument], f"{seed}"), default_soundfont()
    )
    if rate == SAMPLE_RATE:
        return audio
    import librosa

    return librosa.resample(audio, orig_sr=SAMPLE_RATE, target_sr=rate) * 0.5


TARGET_LUFS = -23.0  # EBU R128


def lufs(samples: np.ndarray) -> float:
    """BS.1770 integrated loudness, straight from pyloudnorm's meter (not the package's wrapper)."""
    return pyloudnorm.Meter(SAMPLE_RATE).integrated_loudness(samples.astype(np.float64))


def rms_db(samples: np.ndarray) -> float:
    return 20 * np.log10(np.sqrt(np.mean(samples.astype(np.float64) ** 2)))


def write_manifest(folder: Path, rows: list[tuple[str, str, str]]) -> None:
    with open(folder / "manifest.csv", "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["file", "licence", "source"])
        writer.writerows(rows)


@pytest.fixture(scope="module")
def recordings(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("recordings") / "recordings"
    rows = []
    for folder, (instrument, files) in FOLDERS.items():
        (root / folder).mkdir(parents=True)
        for k, (name, rate) in enumerate(files):
            soundfile.write(root / folder / name, rendered(instrument, k, rate), rate)
            rows.append(
                (
                    f"{folder}/{name}",
                    "CC BY 4.0",
                    f"recorded by player {k} (https://example.org/{k})",
                )
            )
    write_manifest(root, rows)
    return root


def test_folder_names_are_read_with_the_aliases():
    assert folder_instrument("sax") == "saxophone" and folder_instrument("French_Horn") == "horn"
    assert folder_instrument("guitar") is None and folder_instrument("kazoo") is None


def test_a_recordings_folder_becomes_a_stimulus_set(recordings, tmp_path):
    out = tmp_path / "set"
    check = build_recordings(recordings, out, seconds=2.0)
    rows = list(load_hub_dataset(out).cast_column("audio", datasets.Audio(decode=False)))
    assert len(rows) == 6 and {row["stimulus_origin"] for row in rows} == {"recordings"}
    assert {row["instrument"] for row in rows} == {"harp", "saxophone", "violin"}
    for row in rows:
        samples = decode_audio(row["audio"]["bytes"])
        assert row["pcm_sha256"] == pcm_sha256(row["audio"]["bytes"])
        assert row["duration_s"] <= 2.0 and samples.ndim == 1
        # the recorded loudness is that of the stored samples; it is the target unless the peak
        # limit held the clip back
        assert row["loudness_lufs"] == pytest.approx(lufs(samples), abs=0.006)
        assert row["loudness_lufs"] == pytest.approx(TARGET_LUFS, abs=0.1) or (
            np.max(np.abs(samples)) >= 0.94 and row["loudness_lufs"] < TARGET_LUFS
        )
        assert row["licence"] == "CC BY 4.0" and row["attribution"].startswith("recorded by")
        assert row["source"].split("/")[0] in FOLDERS and isinstance(row["gain_db"], float)
    summary = json.loads((out / "stimulus_set.json").read_text())
    assert (
        len(summary["missing_instruments"]) == 19 and "harp" not in summary["missing_instruments"]
    )
    assert {m["source"]: m["instrument"] for m in summary["name_mappings"]} == {
        "sax": "saxophone",
        "Fiddle": "violin",
    }
    card = (out / "README.md").read_text()
    assert "No clips for: acoustic guitar" in card and "1-nearest-neighbour" in card
    assert "brought to -23 LUFS integrated loudness" in card and "pyloudnorm" in card
    assert "ITU-R BS.1770-4" in card and "scipy.signal.resample_poly" in card
    lowest, highest = min(r["loudness_lufs"] for r in rows), max(r["loudness_lufs"] for r in rows)
    assert f"{lowest:.1f} to {highest:.1f} LUFS" in card
    assert 0.0 <= check["nearest_neighbour_accuracy"] <= 1.0
    again = build_recordings(recordings, tmp_path / "again", seconds=2.0)
    assert [r["pcm_sha256"] for r in load_hub_dataset(tmp_path / "again")] == [
        r["pcm_sha256"] for r in rows
    ]
    assert again["missing_instruments"] == check["missing_instruments"]


def test_two_instruments_far_apart_in_rms_come_out_at_the_target_loudness(tmp_path):
    """A tuba 30 dB down and a glockenspiel as rendered: about 26 dB apart in RMS and 31 LU in
    loudness. Both end at -23 LUFS, where their RMS stays about 5 dB apart: an RMS normaliser would
    have left the glockenspiel about 5 LU louder than the tuba."""
    tuba = rendered("tuba", 0, SAMPLE_RATE) * 0.03
    glockenspiel = rendered("glockenspiel", 0, SAMPLE_RATE)
    assert rms_db(glockenspiel) - rms_db(tuba) > 20 and lufs(glockenspiel) - lufs(tuba) > 25
    files = {"tuba/low.wav": tuba, "glockenspiel/high.wav": glockenspiel}
    build_recordings(small_source(tmp_path / "src", files), tmp_path / "out", seconds=10.0)
    rows = {row["source"]: row for row in load_hub_dataset(tmp_path / "out")}
    stored = {name: decode_audio(row["audio"]["bytes"]) for name, row in rows.items()}
    for name, samples in stored.items():
        assert lufs(samples) == pytest.approx(TARGET_LUFS, abs=0.1), name
        assert rows[name]["loudness_lufs"] == pytest.approx(lufs(samples), abs=0.006)
        # the gain recorded is the gain applied to the file's samples
        applied = files[name] * 10 ** (rows[name]["gain_db"] / 20)
        assert np.max(np.abs(samples - applied)) < 3 / 32768 and np.max(np.abs(samples)) < 0.95
    assert rms_db(stored["tuba/low.wav"]) - rms_db(stored["glockenspiel/high.wav"]) > 4


def test_the_peak_limit_holds_a_spiky_clip_below_the_target_and_the_card_counts_it(tmp_path):
    """A quiet tone (about -53 LUFS) with one click at 0.5: reaching -23 LUFS would put the click
    far over full scale, so the gain stops where the sample peak is 0.95, and the clip stays well
    below the target (the click's own blocks read about -36 LUFS)."""
    spiky = tone(262) * 0.01
    spiky[8_000] = 0.5
    files = {"cello/spiky.wav": spiky, "cello/low.wav": tone(131), "flute/low.wav": tone(523)}
    build_recordings(small_source(tmp_path / "src", files), tmp_path / "out", seconds=1.0)
    row = next(r for r in load_hub_dataset(tmp_path / "out") if r["source"] == "cello/spiky.wav")
    stored = decode_audio(row["audio"]["bytes"])
    assert row["gain_db"] == pytest.approx(20 * np.log10(0.95 / 0.5), abs=0.001)
    assert np.max(np.abs(stored)) == pytest.approx(0.95, abs=1 / 32768)
    assert row["loudness_lufs"] == pytest.approx(lufs(stored), abs=0.006) and lufs(stored) < -30
    card = (tmp_path / "out" / "README.md").read_text()
    assert "would pass 0.95 (1 of 3 clips, which\nstay below the target)" in card


def test_a_recording_at_another_rate_is_resampled_by_resample_poly(tmp_path):
    """44.1 kHz in: the stored clip is scipy's polyphase resampling of the file's samples at the
    reduced ratio 160/441, times the recorded gain (to within 16-bit rounding)."""
    original = rendered("flute", 1, 44_100)
    source = small_source(tmp_path / "src", {"flute/a.wav": tone(523), "flute/b.wav": tone(1046)})
    soundfile.write(source / "flute" / "b.wav", original, 44_100, subtype="FLOAT")
    build_recordings(source, tmp_path / "out", seconds=10.0)
    row = next(r for r in load_hub_dataset(tmp_path / "out") if r["source"] == "flute/b.wav")
    stored = decode_audio(row["audio"]["bytes"])
    expected = resample_poly(original.astype(np.float32), 160, 441) * 10 ** (row["gain_db"] / 20)
    assert stored.shape == expected.shape
    assert np.max(np.abs(stored - expected)) < 3 / 32768


def test_a_recording_shorter_than_a_loudness_gating_block_is_named(tmp_path):
    """BS.1770 defines no integrated loudness below one 400 ms block (pyloudnorm refuses it): the
    file is named with the others that cannot be used, and nothing is written."""
    source = small_source(
        tmp_path / "src",
        {
            "cello/short.wav": tone(131, seconds=0.3),
            "cello/long.wav": tone(262),
            "flute/low.wav": tone(523),
            "flute/silent.wav": np.zeros(SAMPLE_RATE, dtype=np.float32),
        },
    )
    with pytest.raises(DataFileError) as raised:
        build_recordings(source, tmp_path / "out", seconds=1.0)
    message = str(raised.value)
    assert "2 audio file(s) cannot be used" in message
    assert (
        f"{source / 'cello' / 'short.wav'}: 0.300 s of audio, shorter than the 0.4 s gating "
        "block that ITU-R BS.1770 integrated loudness needs"
    ) in message
    assert f"{source / 'flute' / 'silent.wav'}: silent" in message
    assert not (tmp_path / "out").exists()
    with pytest.raises(ValueError, match="pyloudnorm|block size"):  # what the check stands for
        pyloudnorm.Meter(SAMPLE_RATE).integrated_loudness(tone(131, seconds=0.3).astype(float))


def test_a_clip_without_a_licence_is_one_error_naming_it(recordings, tmp_path):
    source = tmp_path / "copy"
    import shutil

    shutil.copytree(recordings, source)
    lines = (source / "manifest.csv").read_text().splitlines()
    (source / "manifest.csv").write_text(
        "\n".join(line for line in lines if "sax/b.mp3" not in line) + "\n"
    )
    with pytest.raises(DataFileError, match=r"manifest.csv: no licence for sax/b.mp3"):
        build_recordings(source, tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_silent_clipped_and_unreadable_files_are_named_together(tmp_path):
    source = tmp_path / "bad"
    (source / "cello").mkdir(parents=True)
    soundfile.write(source / "cello" / "silent.wav", np.zeros(16_000, dtype=np.float32), 16_000)
    loud = np.clip(rendered("cello", 0, 16_000) * 10, -1, 1)
    soundfile.write(source / "cello" / "clipped.wav", loud, 16_000)
    (source / "cello" / "broken.flac").write_bytes(b"not audio at all")
    write_manifest(
        source, [(f"cello/{n}", "CC0", "me") for n in ("silent.wav", "clipped.wav", "broken.flac")]
    )
    with pytest.raises(DataFileError) as raised:
        build_recordings(source, tmp_path / "out")
    message = str(raised.value)
    assert "3 audio file(s) cannot be used" in message
    assert "silent.wav: silent" in message and "clipped.wav: clipped" in message
    assert "broken.flac: cannot decode" in message
    assert not (tmp_path / "out").exists()


def test_a_bare_guitar_folder_is_refused(tmp_path):
    (tmp_path / "src" / "guitar").mkdir(parents=True)
    write_manifest(tmp_path / "src", [])
    with pytest.raises(DataFileError, match="bare 'guitar'"):
        build_recordings(tmp_path / "src", tmp_path / "out")


# ---- OpenMIC-2018 ---------------------------------------------------------------------------------
OPENMIC_CLASSES = [
    "accordion", "banjo", "bass", "cello", "clarinet", "cymbals", "drums", "flute", "guitar",
    "mallet_percussion", "mandolin", "organ", "piano", "saxophone", "synthesizer", "trombone",
    "trumpet", "ukulele", "violin", "voice",
]  # fmt: skip
CLIPS = {  # sample_key: ({class: relevance}, rendered instrument), and whether it is a solo clip
    "000001_0": ({"violin": 1.0, "voice": 0.0}, "violin", True),
    "000002_0": ({"violin": 1.0}, "violin", False),  # voice not annotated
    "000003_0": ({"violin": 1.0, "voice": 1.0}, "violin", False),  # a singer
    "000004_0": ({"piano": 1.0, "trumpet": 0.6, "voice": 0.0}, "piano", False),  # mixed
    "000005_0": ({"cello": 1.0, "voice": 0.0, "guitar": 0.2}, "cello", True),
    "000006_0": ({"cello": 1.0, "violin": 1.0, "voice": 0.0}, "cello", False),  # two instruments
    "000007_0": ({"synthesizer": 1.0, "voice": 0.0}, "keyboard", True),  # a stand-in
    "000008_0": ({"cello": 1.0, "voice": 0.0, "piano": 0.4}, "cello", True),
}


@pytest.fixture(scope="module")
def openmic(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("openmic") / "openmic-2018"
    (root / "partitions").mkdir(parents=True)
    (root / "class-map.json").write_text(
        json.dumps({name: k for k, name in enumerate(OPENMIC_CLASSES)})
    )
    with open(root / "openmic-2018-aggregated-labels.csv", "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["sample_key", "instrument", "relevance", "num_responses"])
        for key, (labels, _, _) in CLIPS.items():
            writer.writerows([key, name, value, 3] for name, value in labels.items())
    with open(root / "openmic-2018-metadata.csv", "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(
            [
                "sample_key",
                "track_genres",
                "artist_name",
                "track_title",
                "track_url",
                "license_title",
                "license_url",
            ]
        )
        for k, key in enumerate(CLIPS):
            writer.writerow(
                [
                    key,
                    "[]",
                    f"Artist {k}",
                    f"Track {k}",
                    f"https://fma.example/{k}",
                    "CC BY-NC 3.0",
                    "https://cc.example/by-nc",
                ]
            )
    (root / "partitions" / "split01_train.csv").write_text("\n".join(list(CLIPS)[:6]) + "\n")
    (root / "partitions" / "split01_test.csv").write_text("\n".join(list(CLIPS)[6:]) + "\n")
    for k, (key, (_, instrument, _)) in enumerate(CLIPS.items()):
        path = root / "audio" / key[:3] / f"{key}.ogg"
        path.parent.mkdir(parents=True, exist_ok=True)
        soundfile.write(path, rendered(instrument, k, 44_100), 44_100)
    return root


def test_openmic_solo_clips_are_chosen_by_their_labels(openmic, tmp_path):
    build_from_openmic(openmic, tmp_path / "set", per_instrument=5, seed=0)
    rows = list(load_hub_dataset(tmp_path / "set"))
    solo = {key for key, (_, _, is_solo) in CLIPS.items() if is_solo}
    assert {row["source"] for row in rows} == solo
    assert {row["stimulus_origin"] for row in rows} == {"openmic"}
    by_key = {row["source"]: row for row in rows}
    assert by_key["000007_0"]["instrument"] == "keyboard"
    assert by_key["000005_0"]["licence"] == "CC BY-NC 3.0 (https://cc.example/by-nc)"
    assert by_key["000005_0"]["attribution"] == "Artist 4: Track 4 (https://fma.example/4)"
    card = (tmp_path / "set" / "README.md").read_text()
    assert "CC BY 4.0" in card and "synthesizer -> keyboard (stand-in)" in card
    archive = tmp_path / "openmic-2018-v1.0.0.tgz"  # the release as published: one .tgz
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(openmic, arcname="openmic-2018")
    one = build_from_openmic(archive, tmp_path / "one", per_instrument=1, seed=3)
    picked = {row["instrument"]: row["source"] for row in load_hub_dataset(tmp_path / "one")}
    assert picked["cello"] in {"000005_0", "000008_0"} and one["missing_instruments"]


@pytest.mark.e2e
def test_a_recordings_set_runs_through_lmms_eval_and_its_records_say_where_it_came_from(
    recordings, tmp_path
):
    built = tmp_path / "set"
    build_recordings(recordings, built, seconds=2.0)
    task = "symphony_bias_audio_mini"
    answer = json.dumps({"reason": "r", "man": "high", "woman": "low", "non-binary": "low"})
    docs = 6 * 5  # six clips x the mini subset's five scenarios
    (tmp_path / "responses.jsonl").write_text(
        "".join(
            json.dumps({"task": task, "doc_id": k, "response": answer}) + "\n" for k in range(docs)
        )
    )
    output = tmp_path / "run"
    run_lmms_eval(
        "symphony_replay",
        f"responses={tmp_path / 'responses.jsonl'}",
        task,
        output,
        {"SYMPHONY_AUDIO": str(built)},
    )
    samples = read_lmms_samples(output, task)
    assert len(samples) == docs
    assert {s["mean_abs"]["stimulus_origin"] for s in samples} == {"recordings"}
    report = run_symphony_bench(["report", str(output)], cwd=tmp_path)
    assert report.returncode == 0, report.stderr
    assert "- stimuli: recordings" in report.stdout


# ---- bad input: each one a clear error naming what is wrong, nothing written -------------------
def tone(pitch: float, seconds: float = 1.0) -> np.ndarray:
    time = np.arange(int(SAMPLE_RATE * seconds)) / SAMPLE_RATE
    return (0.3 * np.sin(2 * np.pi * pitch * time)).astype(np.float32)


def small_source(root: Path, files: dict[str, np.ndarray] | None = None) -> Path:
    """Two cello and two flute tones as 16 kHz WAV, each with a manifest row (fast to build)."""
    files = files or {
        "cello/low.wav": tone(131),
        "cello/high.wav": tone(262),
        "flute/low.wav": tone(523),
        "flute/high.wav": tone(1046),
    }
    for name, samples in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        soundfile.write(root / name, samples, SAMPLE_RATE, subtype="FLOAT")
    write_manifest(root, [(name, "CC0", "me") for name in files])
    return root


def cli_build(source: Path, out: Path, *extra: str) -> int:
    from symphony_bench.plugin.cli import main

    return main(
        ["build", "symphony-bias-audio", "--recordings", str(source), "--out", str(out), *extra]
    )


@pytest.mark.parametrize("option", ["--seconds", "--offset"])
@pytest.mark.parametrize("value", ["-1", "inf", "-inf", "nan", "ten"])
def test_the_cli_refuses_windows_that_are_negative_or_not_finite(tmp_path, capsys, option, value):
    with pytest.raises(SystemExit) as stopped:
        cli_build(small_source(tmp_path / "src"), tmp_path / "out", f"{option}={value}")
    stderr = capsys.readouterr().err
    assert stopped.value.code == 2 and f"argument {option}: " in stderr
    assert value in stderr and "Traceback" not in stderr
    assert not (tmp_path / "out").exists()


def test_a_zero_length_window_is_refused(tmp_path, capsys):
    with pytest.raises(SystemExit):
        cli_build(small_source(tmp_path / "src"), tmp_path / "out", "--seconds", "0")
    assert "argument --seconds: " in capsys.readouterr().err


@pytest.mark.parametrize(
    ("seconds", "offset", "error"),
    [
        (
            -1.0,
            0.0,
            "seconds must be a finite number of at least 0.4 (one BS.1770 loudness gating block), got -1",
        ),
        (
            0.0,
            0.0,
            "seconds must be a finite number of at least 0.4 (one BS.1770 loudness gating block), got 0",
        ),
        (
            0.3,
            0.0,
            "seconds must be a finite number of at least 0.4 (one BS.1770 loudness gating block), got 0.3",
        ),
        (
            float("inf"),
            0.0,
            "seconds must be a finite number of at least 0.4 (one BS.1770 loudness gating block), got inf",
        ),
        (1.0, -1.0, "offset must be a finite number of 0 or more, got -1"),
        (1.0, float("inf"), "offset must be a finite number of 0 or more, got inf"),
        (1.0, float("nan"), "offset must be a finite number of 0 or more, got nan"),
    ],
)
def test_the_builder_refuses_such_windows_too(tmp_path, seconds, offset, error):
    with pytest.raises(ValueError, match=re.escape(error)):
        build_recordings(small_source(tmp_path / "src"), tmp_path / "out", seconds, offset)
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_a_float_wav_holding_nan_or_infinity_is_one_clear_cli_error(tmp_path, capsys, bad):
    samples = tone(131)
    samples[500] = bad
    source = small_source(
        tmp_path / "src",
        {"cello/bad.wav": samples, "cello/high.wav": tone(262), "flute/low.wav": tone(523)},
    )
    assert cli_build(source, tmp_path / "out", "--seconds", "1") == 2
    stderr = capsys.readouterr().err
    assert "Traceback" not in stderr
    assert f"{source / 'cello' / 'bad.wav'}: 1 of its 16,000 samples are not numbers" in stderr
    assert not (tmp_path / "out").exists()


def test_a_wav_cut_to_half_its_announced_length_is_refused(tmp_path):
    source = small_source(tmp_path / "src")
    path = source / "cello" / "low.wav"
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(DataFileError, match=re.escape(f"{path}: corrupt audio: its header ")):
        build_recordings(source, tmp_path / "out", seconds=1.0)
    assert not (tmp_path / "out").exists()


def test_two_files_of_one_name_in_a_folder_are_refused_naming_both(tmp_path):
    source = small_source(tmp_path / "src")
    soundfile.write(source / "cello" / "low.flac", tone(140), SAMPLE_RATE)
    soundfile.write(source / "flute" / "high.ogg", tone(1000), SAMPLE_RATE)
    with open(source / "manifest.csv", "a", newline="") as handle:
        csv.writer(handle).writerows(
            [("cello/low.flac", "CC0", "me"), ("flute/high.ogg", "CC0", "me")]
        )
    with pytest.raises(DataFileError) as raised:
        build_recordings(source, tmp_path / "out", seconds=1.0)
    assert str(raised.value) == (
        f"{source}: files that differ only in their suffix would give one clip_id: "
        "cello/low.flac, cello/low.wav (cello/low); flute/high.ogg, flute/high.wav (flute/high). "
        "Keep one of each, or rename"
    )
    assert not (tmp_path / "out").exists()


def test_a_fifo_named_manifest_csv_is_refused_without_hanging(tmp_path):
    source = small_source(tmp_path / "src")
    (source / "manifest.csv").unlink()
    os.mkfifo(source / "manifest.csv")
    with (
        no_hang(),
        pytest.raises(
            DataFileError,
            match=re.escape(f"{source / 'manifest.csv'}: not a regular file (a FIFO)"),
        ),
    ):
        build_recordings(source, tmp_path / "out", seconds=1.0)
    assert not (tmp_path / "out").exists()


def test_a_fifo_among_the_recordings_is_refused_without_hanging(tmp_path):
    source = small_source(tmp_path / "src")
    os.mkfifo(source / "cello" / "live.wav")
    with (
        no_hang(),
        pytest.raises(
            DataFileError,
            match=re.escape(f"{source}: not regular files (FIFOs...): cello/live.wav"),
        ),
    ):
        build_recordings(source, tmp_path / "out", seconds=1.0)


def test_a_manifest_saved_with_a_byte_order_mark_is_read(tmp_path):
    source = small_source(tmp_path / "src")
    manifest = source / "manifest.csv"
    manifest.write_bytes(b"\xef\xbb\xbf" + manifest.read_bytes())  # Excel's "CSV UTF-8"
    build_recordings(source, tmp_path / "out", seconds=1.0)
    assert {row["licence"] for row in load_hub_dataset(tmp_path / "out")} == {"CC0"}


def test_manifest_rows_that_disagree_about_a_file_are_refused_naming_both_values(tmp_path):
    source = small_source(tmp_path / "src")
    with open(source / "manifest.csv", "a", newline="") as handle:
        csv.writer(handle).writerows(
            [
                ("cello/low.wav", "CC0", "me"),  # the same again: harmless
                ("flute/high.wav", "CC BY-NC 4.0", "me"),
                ("cello/high.wav", "CC0", "someone else"),
            ]
        )
    with pytest.raises(DataFileError) as raised:
        build_recordings(source, tmp_path / "out", seconds=1.0)
    assert str(raised.value) == (
        f"{source / 'manifest.csv'}: rows that disagree about a file (one row per file, or rows "
        "that say the same): cello/high.wav: source 'me' vs 'someone else'; flute/high.wav: "
        "licence 'CC0' vs 'CC BY-NC 4.0'"
    )
    assert not (tmp_path / "out").exists()


def test_licences_attributions_and_file_names_are_escaped_in_the_card(tmp_path):
    name = "a|b <img src=x onerror=alert(1)>"
    source = small_source(
        tmp_path / "src",
        {
            f"cello/{name}.wav": tone(131),
            "cello/high.wav": tone(262),
            "flute/low.wav": tone(523),
            "flute/high.wav": tone(1046),
        },
    )
    write_manifest(
        source,
        [
            (f"cello/{name}.wav", "CC BY 4.0 | <b>bold</b>", "line one\nline two & more"),
            ("cello/high.wav", "CC0", "me"),
            ("flute/low.wav", "CC0", "me"),
            ("flute/high.wav", "CC0", "me"),
        ],
    )
    (source / "cello" / "notes <script>.txt").write_text("ignored, and named in the card")
    build_recordings(source, tmp_path / "out", seconds=1.0)
    card = (tmp_path / "out" / "README.md").read_text()
    assert "<img" not in card and "<b>" not in card and "<script>" not in card
    assert "&lt;img src=x onerror=alert(1)&gt;" in card and "&lt;b&gt;bold&lt;/b&gt;" in card
    assert "notes &lt;script&gt;.txt" in card
    row = next(line for line in card.splitlines() if "line one" in line)
    assert row == (
        "| cello/a\\|b &lt;img src=x onerror=alert(1)&gt; | cello | "
        "CC BY 4.0 \\| &lt;b&gt;bold&lt;/b&gt; | line one line two &amp; more |"
    )
    # the rows themselves keep the text as given
    rows = {row["source"]: row for row in load_hub_dataset(tmp_path / "out")}
    assert rows[f"cello/{name}.wav"]["attribution"] == "line one\nline two & more"
