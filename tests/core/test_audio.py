"""Source audio files are read whole or not at all: a damaged Ogg page or a decode shorter than the
header's frame count is an error naming the file."""

from __future__ import annotations

import io
import re

import numpy as np
import pytest
import soundfile

from symphony_bench.plugin.core import audio
from symphony_bench.plugin.core.audio import ogg_damage, read_audio_file
from symphony_bench.plugin.core.errors import DataFileError


def vorbis(seconds: float = 3.0, rate: int = 16_000, channels: int = 1) -> bytes:
    rng = np.random.default_rng(0)
    buffer = io.BytesIO()
    soundfile.write(
        buffer,
        0.3 * rng.standard_normal((int(rate * seconds), channels)).astype(np.float32),
        rate,
        format="OGG",
        subtype="VORBIS",
    )
    return buffer.getvalue()


def page_offsets(data: bytes) -> list[int]:
    return [match.start() for match in re.finditer(b"OggS", data)]


@pytest.mark.parametrize(
    "seconds, rate, channels", [(0.01, 16_000, 1), (3.0, 16_000, 1), (2.0, 44_100, 2)]
)
def test_a_whole_file_reads_with_all_its_frames(tmp_path, seconds, rate, channels):
    path = tmp_path / "clip.ogg"
    path.write_bytes(vorbis(seconds, rate, channels))
    samples, read_rate = read_audio_file(path)
    assert (
        samples.shape == (int(rate * seconds), channels)
        and read_rate == rate
        and ogg_damage(path.read_bytes()) is None
    )


def test_every_kind_of_page_damage_is_found():
    data = vorbis()
    pages = page_offsets(data)
    middle = len(data) // 2
    overwritten = data[:middle] + bytes(40) + data[middle + 40 :]
    assert "checksum mismatch" in ogg_damage(overwritten)
    assert "cut short" in ogg_damage(data[: pages[-1] + 40])
    assert "pages missing" in ogg_damage(data[: pages[3]] + data[pages[4] :])
    assert ogg_damage(data + b"junk") == f"no Ogg page at byte {len(data):,}"


def test_a_damaged_clip_that_libsndfile_would_decode_short_is_an_error_naming_it(tmp_path):
    data = vorbis(seconds=3.0)
    path = tmp_path / "clip.ogg"
    middle = len(data) // 2
    path.write_bytes(data[:middle] + bytes(200) + data[middle + 200 :])
    assert (
        len(soundfile.read(path)[0]) < 48_000
    )  # what libsndfile alone does: fewer frames, no error
    with pytest.raises(DataFileError, match=re.escape(f"{path}: corrupt audio: checksum mismatch")):
        read_audio_file(path)


def test_without_the_page_check_the_frame_count_still_catches_it(tmp_path, monkeypatch):
    data = vorbis(seconds=3.0)
    path = tmp_path / "clip.ogg"
    middle = len(data) // 2
    path.write_bytes(data[:middle] + bytes(200) + data[middle + 200 :])
    monkeypatch.setattr(audio, "ogg_damage", lambda data: None)
    with pytest.raises(
        DataFileError,
        match=r"corrupt audio: decoded \d+,\d+ of the 48,000 frames its header announces",
    ):
        read_audio_file(path)


def test_an_unreadable_file_is_named(tmp_path):
    path = tmp_path / "clip.ogg"
    path.write_bytes(b"not audio at all")
    with pytest.raises(DataFileError, match=re.escape(f"{path}: cannot decode")):
        read_audio_file(path)
