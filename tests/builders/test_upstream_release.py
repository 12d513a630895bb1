"""Importing the Symphony-Bias release's own stimuli (irregular names, mp3) into our layouts."""

from __future__ import annotations

import re
import shutil

import numpy as np
import pytest
import soundfile

from conftest import pictogram
from symphony_bench.hub_upload.upstream_release import import_release, instrument_of
from symphony_bench.plugin.core.errors import DataFileError
from symphony_bench.plugin.core.hub_folder import load_hub_dataset
from symphony_bench.plugin.core.vocabulary import load_instruments

UPSTREAM_FOLDERS = {  # upstream photo folder names as they might be spelt
    "acoustic guitar": "Acoustic_Guitar", "bass guitar": "bass-guitar", "electric guitar": "E-Guitar",
    "horn": "French Horn", "saxophone": "Sax", "drums": "Drum kit",
}


@pytest.mark.parametrize(
    "name, expected",
    [("E-Guitar (2).mp3", "electric guitar"), ("bassoon1.mp3", "bassoon"), ("Bass 3.mp3", "bass guitar"),
     ("French_Horn.mp3", "horn"), ("drums_04.mp3", "drums"), ("Acoustic Guitar.mp3", "acoustic guitar"),
     ("piano-2.mp3", "piano"), ("Violins.mp3", "violin"), ("recording.mp3", None)],
)
def test_irregular_names_map_to_instruments(name, expected):
    assert instrument_of(name) == expected


def write_tone(path, frequency: float, rate: int = 44_100) -> None:
    t = np.arange(int(0.8 * rate)) / rate
    soundfile.write(path, (0.3 * np.sin(2 * np.pi * frequency * t)).astype(np.float32), rate, format="MP3")


@pytest.fixture
def release(tmp_path):
    root = tmp_path / "release"
    for instrument in load_instruments():
        folder = root / "instrument-photos" / UPSTREAM_FOLDERS.get(instrument.name, instrument.name.title())
        folder.mkdir(parents=True)
        for k in range(6):
            pictogram(instrument.name, k).save(folder / f"img_{k}.jpg")
    audio = root / "instrument-audios"
    audio.mkdir()
    write_tone(audio / "E-Guitar (2).mp3", 330.0)
    write_tone(audio / "bassoon1.mp3", 110.0)
    write_tone(audio / "Harp.mp3", 440.0)
    return root


def test_release_imports_into_both_layouts(release, tmp_path):
    out = import_release(release, tmp_path / "out")
    images = load_hub_dataset(out / "images")
    assert len(images) == 22 * 6 and set(images["instrument"]) == {i.name for i in load_instruments()}
    assert "instrument-photos/E-Guitar/img_0.jpg" in images["source"]
    audio = load_hub_dataset(out / "audio")
    assert sorted(audio["instrument"]) == ["bassoon", "electric guitar", "harp"]
    assert sorted(audio["source_file"]) == ["E-Guitar (2).mp3", "Harp.mp3", "bassoon1.mp3"]
    assert all(0.75 < d < 0.9 for d in audio["duration_s"])
    assert "keyboard" in (out / "audio" / "README.md").read_text()  # listed as missing


def test_two_upstream_folders_of_one_instrument_keep_all_photos(release, tmp_path):
    extra = release / "instrument-photos" / "Violins"
    extra.mkdir()
    for k in range(6):
        pictogram("violin", k).save(extra / f"img_{k}.jpg")
    images = load_hub_dataset(import_release(release, tmp_path / "out") / "images")
    assert images["instrument"].count("violin") == 12


def test_unknown_audio_name_is_one_error_and_nothing_is_written(release, tmp_path):
    write_tone(release / "instrument-audios" / "take 7.mp3", 200.0)
    with pytest.raises(DataFileError, match="take 7.mp3"):
        import_release(release, tmp_path / "out")
    assert not (tmp_path / "out").exists()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".out")]


def test_corrupt_recording_is_named(release, tmp_path):
    (release / "instrument-audios" / "Harp.mp3").write_bytes(b"ID3 broken")
    with pytest.raises(DataFileError, match="Harp.mp3"):
        import_release(release, tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_missing_photo_folder_is_listed(release, tmp_path):
    shutil.rmtree(release / "instrument-photos" / "Tuba")
    with pytest.raises(DataFileError, match=r"tuba \(0\)"):
        import_release(release, tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_a_corrupt_photo_is_named_where_it_is_in_the_release(release, tmp_path):
    photo = release / "instrument-photos" / "E-Guitar" / "img_3.jpg"
    photo.write_bytes(b"not a jpeg")
    with pytest.raises(DataFileError, match=re.escape(f"{photo}: not a readable image")):
        import_release(release, tmp_path / "out")
    assert not (tmp_path / "out").exists() and not [p for p in tmp_path.iterdir() if p.name.startswith(".")]


def test_a_short_instrument_names_the_release_photo_folder(release, tmp_path):
    shutil.rmtree(release / "instrument-photos" / "Tuba")
    with pytest.raises(DataFileError, match=re.escape(f"{release / 'instrument-photos'}: instruments with fewer than 6 images: tuba (0)")):
        import_release(release, tmp_path / "out")


def test_a_recording_linking_outside_the_release_is_refused(release, tmp_path):
    outside = tmp_path / "elsewhere.mp3"
    write_tone(outside, 500.0)
    (release / "instrument-audios" / "Violin.mp3").symlink_to(outside)
    with pytest.raises(DataFileError, match=r"outside this folder .*instrument-audios/Violin\.mp3"):
        import_release(release, tmp_path / "out")


def test_an_output_inside_the_release_is_refused(release, tmp_path):
    with pytest.raises(DataFileError, match="lies inside the input"):
        import_release(release, release / "imported")
    assert not (release / "imported").exists()
