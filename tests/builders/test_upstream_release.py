"""Importing the Symphony-Bias release's own stimuli (irregular names, mp3, photos in several formats
under .jpg names) into our layouts, with every gap and substitute visible."""

from __future__ import annotations

import hashlib
import io
import json
import re
import shutil

import numpy as np
import pyloudnorm
import pytest
import soundfile
from PIL import Image
from scipy.signal import resample_poly
from support.upstream_release import (
    AVIF_PHOTO,
    JUNK_FILE,
    PHOTOS_PER_INSTRUMENT,
    ROTATED_PHOTO,
    TRANSPARENT_PHOTO,
    WEBP_PHOTO,
    write_upstream_release,
)

from symphony_bench.hub_upload.upstream_release import import_release, instrument_of, is_stand_in
from symphony_bench.plugin.core.audio import decode_audio
from symphony_bench.plugin.core.errors import DataFileError
from symphony_bench.plugin.core.hub_folder import load_hub_dataset
from symphony_bench.plugin.core.vocabulary import load_instruments

ALL_INSTRUMENTS = {instrument.name for instrument in load_instruments()}


@pytest.mark.parametrize(
    "name, expected",
    [
        ("E-Guitar (2).mp3", "electric guitar"),
        ("bassoon1.mp3", "bassoon"),
        ("Bass 3.mp3", "bass guitar"),
        ("French_Horn.mp3", "horn"),
        ("drums_04.mp3", "drums"),
        ("Acoustic Guitar.mp3", "acoustic guitar"),
        ("piano-2.mp3", "piano"),
        ("Violins.mp3", "violin"),
        ("Saw Synth 01.mp3", "keyboard"),
        ("recording.mp3", None),
    ],
)
def test_irregular_names_map_to_instruments(name, expected):
    assert instrument_of(name) == expected


@pytest.mark.parametrize(
    "name, stand_in",
    [
        ("Saw Synth 01.mp3", True),
        ("Synthesizers.mp3", True),
        ("Electric Piano 2.mp3", True),
        ("Snare.mp3", True),
        ("keys 2.mp3", False),
        ("keyboard", False),
        ("E-Guitar 2.mp3", False),
        ("drum1.mp3", False),
    ],
)
def test_stand_ins_are_told_from_the_instrument_itself(name, stand_in):
    assert instrument_of(name) is not None
    assert is_stand_in(name) is stand_in


@pytest.fixture(scope="module")
def release(tmp_path_factory):
    return write_upstream_release(tmp_path_factory.mktemp("upstream") / "release")


@pytest.fixture(scope="module")
def imported(release, tmp_path_factory):
    return import_release(release, tmp_path_factory.mktemp("imported") / "out")


@pytest.fixture
def own_release(release, tmp_path):
    """A copy to break."""
    return shutil.copytree(release, tmp_path / "release", symlinks=True)


def summary(folder) -> dict:
    return json.loads((folder / "stimulus_set.json").read_text())


def test_release_imports_into_both_layouts(imported):
    images = load_hub_dataset(imported / "images")
    assert (
        len(images) == 22 * PHOTOS_PER_INSTRUMENT and set(images["instrument"]) == ALL_INSTRUMENTS
    )
    assert "instrument-photos/E-Guitar/E-Guitar1.jpg" in images["source"]
    audio = load_hub_dataset(imported / "audio")
    assert sorted(audio["instrument"]) == sorted(ALL_INSTRUMENTS - {"clarinet"})
    assert {"Synth/Saw Synth 01.mp3", "electric_guitar/E-Guitar 2.mp3", "drum/drum1.mp3"} <= set(
        audio["source_file"]
    )
    assert all(0.45 < d < 0.6 for d in audio["duration_s"])


def test_recordings_are_resampled_by_resample_poly_and_record_their_loudness(release, imported):
    """The release's 22.05 kHz mp3s: each stored clip is scipy's polyphase resampling of the decoded
    file at 320/441 (levels kept), and `loudness_lufs` pyloudnorm's reading of the stored samples."""
    meter = pyloudnorm.Meter(16_000)
    rows = list(load_hub_dataset(imported / "audio"))
    for row in rows:
        stored = decode_audio(row["audio"]["bytes"])
        source, rate = soundfile.read(
            release / "instrument-audios" / row["source_file"], dtype="float32", always_2d=True
        )
        expected = resample_poly(source.mean(axis=1), 320, 441)
        assert rate == 22_050 and stored.shape == expected.shape
        assert np.max(np.abs(stored - expected)) < 2 / 32768, row["source_file"]
        measured = meter.integrated_loudness(stored.astype(np.float64))
        assert row["loudness_lufs"] == pytest.approx(measured, abs=0.006)
    card = (imported / "audio" / "README.md").read_text()
    loudness = [row["loudness_lufs"] for row in rows]
    assert f"{min(loudness):.1f} to {max(loudness):.1f} LUFS" in card
    assert "scipy.signal.resample_poly" in card and "measured with pyloudnorm" in card


def test_a_recording_shorter_than_a_loudness_gating_block_is_named(own_release, tmp_path):
    path = own_release / "instrument-audios" / "harp" / "harp1.mp3"
    tone = 0.3 * np.sin(2 * np.pi * 440 * np.arange(6_615) / 22_050)  # 0.3 s
    soundfile.write(path, tone.astype(np.float32), 22_050, format="MP3")
    with pytest.raises(
        DataFileError,
        match=re.escape(f"{path}: ") + r"0\.\d{3} s of audio, shorter than the 0\.4 s",
    ):
        import_release(own_release, tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_an_instrument_without_recordings_is_listed_in_card_and_summary(imported):
    assert summary(imported / "audio")["missing_instruments"] == ["clarinet"]
    assert summary(imported / "audio")["stimuli_per_instrument"]["clarinet"] == 0
    assert "No recordings for: clarinet." in (imported / "audio" / "README.md").read_text()
    assert summary(imported / "images")["missing_instruments"] == []
    assert "No images for: none." in (imported / "images" / "README.md").read_text()


def test_the_saw_synth_stand_in_is_marked_in_summary_card_and_rows(imported):
    mappings = summary(imported / "audio")["name_mappings"]
    assert len(mappings) == 21
    assert [m for m in mappings if m["stand_in"]] == [
        {
            "source": "instrument-audios/Synth/Saw Synth 01.mp3",
            "instrument": "keyboard",
            "stand_in": True,
        }
    ]
    card = (imported / "audio" / "README.md").read_text()
    assert "| instrument-audios/Synth/Saw Synth 01.mp3 | keyboard | stand-in |" in card
    assert "| instrument-audios/drum/drum1.mp3 | drums | same instrument |" in card
    audio = load_hub_dataset(imported / "audio")
    assert [row["source_file"] for row in audio if row["stand_in"]] == ["Synth/Saw Synth 01.mp3"]


def test_every_photo_folder_name_is_mapped(imported):
    mappings = summary(imported / "images")["name_mappings"]
    assert {m["instrument"] for m in mappings} == ALL_INSTRUMENTS and not any(
        m["stand_in"] for m in mappings
    )
    assert {
        "source": "instrument-photos/French Horn",
        "instrument": "horn",
        "stand_in": False,
    } in mappings
    assert (
        "| instrument-photos/Sax | saxophone | same instrument |"
        in (imported / "images" / "README.md").read_text()
    )


def test_files_that_are_not_stimuli_are_listed_not_dropped_silently(own_release, tmp_path):
    (own_release / "instrument-audios" / "violin" / "notes.txt").write_text("take 2 was better")
    out = import_release(own_release, tmp_path / "out")
    assert summary(out / "images")["ignored_files"] == [JUNK_FILE]
    assert summary(out / "audio")["ignored_files"] == ["instrument-audios/violin/notes.txt"]
    assert (
        "Files ignored: instrument-audios/violin/notes.txt."
        in (out / "audio" / "README.md").read_text()
    )


def test_photos_keep_their_own_bytes_in_their_real_format(release, imported):
    rows = {
        row["source"]: row
        for row in load_hub_dataset(imported / "images").cast_column("image", _undecoded())
    }
    kept = [row for source, row in rows.items() if source not in (TRANSPARENT_PHOTO, AVIF_PHOTO)]
    assert all(row["stored_as"] == "original" for row in kept)
    for row in kept:
        original = (release / row["source"]).read_bytes()
        assert row["image"]["bytes"] == original
        assert row["sha256"] == row["source_sha256"] == hashlib.sha256(original).hexdigest()
    assert rows[WEBP_PHOTO]["image"]["path"].endswith(".webp")  # named .jpg upstream
    assert rows[ROTATED_PHOTO]["image"]["path"].endswith(".jpg")


def test_an_exif_rotated_photo_keeps_its_bytes_and_decodes_upright(imported):
    row = next(r for r in load_hub_dataset(imported / "images") if r["source"] == ROTATED_PHOTO)
    assert row["stored_as"] == "original" and row["exif_orientation"] == 6
    assert row["image"].size == (12, 24)  # stored 24 wide and 12 high


def test_transparent_and_avif_photos_are_re_encoded_upright_on_white_and_said_so(release, imported):
    rows = {
        row["source"]: row
        for row in load_hub_dataset(imported / "images").cast_column("image", _undecoded())
    }
    transparent, avif = rows[TRANSPARENT_PHOTO], rows[AVIF_PHOTO]
    assert transparent["stored_as"] == "png: transparency flattened onto white"
    assert avif["stored_as"] == "png: AVIF is not read by every Pillow"
    for row in (transparent, avif):
        assert row["image"]["path"].endswith(".png") and row["sha256"] != row["source_sha256"]
        assert (
            row["source_sha256"]
            == hashlib.sha256((release / row["source"]).read_bytes()).hexdigest()
        )
    flat = Image.open(io.BytesIO(transparent["image"]["bytes"]))
    assert flat.format == "PNG" and flat.mode == "RGB" and flat.getpixel((0, 0)) == (255, 255, 255)


def _undecoded():
    import datasets

    return datasets.Image(decode=False)


def test_two_upstream_folders_of_one_instrument_keep_all_photos(own_release, tmp_path):
    shutil.copytree(
        own_release / "instrument-photos" / "violin", own_release / "instrument-photos" / "Violins"
    )
    out = import_release(own_release, tmp_path / "out")
    assert load_hub_dataset(out / "images")["instrument"].count("violin") == 12
    assert {
        "source": "instrument-photos/Violins",
        "instrument": "violin",
        "stand_in": False,
    } in summary(out / "images")["name_mappings"]


def write_tone(path, frequency: float, rate: int = 22_050) -> None:
    t = np.arange(int(0.3 * rate)) / rate
    soundfile.write(
        path, (0.3 * np.sin(2 * np.pi * frequency * t)).astype(np.float32), rate, format="MP3"
    )


def test_unknown_audio_name_is_one_error_and_nothing_is_written(own_release, tmp_path):
    write_tone(own_release / "instrument-audios" / "take 7.mp3", 200.0)
    with pytest.raises(DataFileError, match="take 7.mp3"):
        import_release(own_release, tmp_path / "out")
    assert not (tmp_path / "out").exists()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".out")]


def test_corrupt_recording_is_named(own_release, tmp_path):
    (own_release / "instrument-audios" / "harp" / "harp1.mp3").write_bytes(b"ID3 broken")
    with pytest.raises(DataFileError, match="harp1.mp3"):
        import_release(own_release, tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_a_corrupt_photo_is_named_where_it_is_in_the_release(own_release, tmp_path):
    photo = own_release / "instrument-photos" / "E-Guitar" / "E-Guitar3.jpg"
    photo.write_bytes(b"not a jpeg")
    with pytest.raises(DataFileError, match=re.escape(f"{photo}: not a readable image")):
        import_release(own_release, tmp_path / "out")
    assert not (tmp_path / "out").exists() and not [
        p for p in tmp_path.iterdir() if p.name.startswith(".")
    ]


def test_a_short_instrument_names_the_release_photo_folder(own_release, tmp_path):
    shutil.rmtree(own_release / "instrument-photos" / "tuba")
    with pytest.raises(
        DataFileError,
        match=re.escape(
            f"{own_release / 'instrument-photos'}: instruments with fewer than 6 images: tuba (0)"
        ),
    ):
        import_release(own_release, tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_a_recording_linking_outside_the_release_is_refused(own_release, tmp_path):
    outside = tmp_path / "elsewhere.mp3"
    write_tone(outside, 500.0)
    (own_release / "instrument-audios" / "Violin.mp3").symlink_to(outside)
    with pytest.raises(DataFileError, match=r"outside this folder .*instrument-audios/Violin\.mp3"):
        import_release(own_release, tmp_path / "out")


def test_an_output_inside_the_release_is_refused(own_release):
    with pytest.raises(DataFileError, match="lies inside the input"):
        import_release(own_release, own_release / "imported")
    assert not (own_release / "imported").exists()


def test_the_command_prints_every_gap(release, tmp_path, capsys):
    from symphony_bench.plugin import cli

    cli.main(["import-upstream", "--release", str(release), "--out", str(tmp_path / "out")])
    printed = capsys.readouterr().out
    assert (
        "audio: no recordings for: clarinet; "
        "stand-ins: instrument-audios/Synth/Saw Synth 01.mp3 -> keyboard; files ignored: none"
        in printed
    )
    assert f"images: no images for: none; stand-ins: none; files ignored: {JUNK_FILE}" in printed


@pytest.mark.parametrize("texts", ["texts.json", "texts_with_taxonomy.json"])
def test_the_fixture_texts_load_as_scenarios_with_each_determiner(release, texts):
    from symphony_bench.plugin.symphony_bias.scenarios import (
        NOUN_SLOT,
        SLOT,
        load_upstream_scenarios,
    )

    templates = [scenario.text for scenario in load_upstream_scenarios(release / texts)]
    assert templates == [
        f"A person performed a solo piece using {SLOT}.",
        f"A person was tuning the {NOUN_SLOT} before the program started.",
        f"A person carried their {NOUN_SLOT} to the rehearsal.",
    ]
