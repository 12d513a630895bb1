"""Source audio files are read whole or not at all: a damaged Ogg page or a decode shorter than the
header's frame count is an error naming the file."""

from __future__ import annotations

import io
import os
import re

import numpy as np
import pytest
import soundfile
from support.failures import no_hang

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


# ---- WAV and AIFF files cut short, samples that are not numbers, FIFOs --------------------------
def tone(rate: int = 16_000, channels: int = 1) -> np.ndarray:
    return np.tile(0.3 * np.sin(np.arange(rate) / 5.0), (channels, 1)).T.astype(np.float32)


@pytest.mark.parametrize(
    "format, subtype, channels",
    [
        ("WAV", "PCM_16", 1),
        ("WAV", "FLOAT", 2),
        ("WAV", "PCM_24", 1),
        ("RF64", "PCM_16", 1),
        ("AIFF", "PCM_16", 1),
    ],
)
def test_a_file_cut_to_half_its_announced_length_is_an_error_naming_it(
    tmp_path, format, subtype, channels
):
    whole = tmp_path / "whole.wav"
    soundfile.write(whole, tone(channels=channels), 16_000, format=format, subtype=subtype)
    data = whole.read_bytes()
    path = tmp_path / "clip.wav"
    path.write_bytes(data[: len(data) // 2])
    # what libsndfile alone does: the frames that are there, no error, a frame count to match
    assert 0 < soundfile.info(path).frames < 16_000 and len(soundfile.read(path)[0]) < 16_000
    with pytest.raises(
        DataFileError,
        match=re.escape(f"{path}: corrupt audio: its header announces ")
        + r"[\d,]+ bytes of samples, the file holds [\d,]+ \(cut short\)",
    ):
        read_audio_file(path)
    assert read_audio_file(whole)[0].shape == (16_000, channels)


def test_a_streamed_wav_whose_header_announces_no_length_is_read_whole(tmp_path):
    """Writers to a pipe cannot go back to fill in the sizes: 0xFFFFFFFF means "to the end"."""
    buffer = io.BytesIO()
    soundfile.write(buffer, tone(), 16_000, format="WAV")
    data = bytearray(buffer.getvalue())
    at = data.index(b"data")
    data[4:8] = data[at + 4 : at + 8] = b"\xff\xff\xff\xff"
    path = tmp_path / "streamed.wav"
    path.write_bytes(bytes(data))
    assert read_audio_file(path)[0].shape == (16_000, 1)


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
@pytest.mark.parametrize("subtype", ["FLOAT", "DOUBLE"])
def test_samples_that_are_not_numbers_are_an_error_naming_the_file(tmp_path, bad, subtype):
    samples = tone()
    samples[100:103] = bad
    path = tmp_path / "float.wav"
    soundfile.write(path, samples, 16_000, subtype=subtype)
    with pytest.raises(
        DataFileError,
        match=re.escape(f"{path}: 3 of its 16,000 samples are not numbers (NaN or infinite)"),
    ):
        read_audio_file(path)


def test_a_fifo_is_refused_before_it_is_opened(tmp_path):
    path = tmp_path / "clip.wav"
    os.mkfifo(path)  # opening it would wait for a writer forever
    with (
        no_hang(),
        pytest.raises(DataFileError, match=re.escape(f"{path}: not a regular file (a FIFO)")),
    ):
        read_audio_file(path)
