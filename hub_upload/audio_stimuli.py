"""Audio stimuli from existing recordings: a fixed window of each file, mono 16 kHz, checked (whole,
not silent, not clipped) and brought to one loudness, ready to be stored as FLAC with the hash of
its samples. Shared by the recordings folder and the OpenMIC solo-clip builders
(`recorded_sets`).

Loudness: RMS normalisation to TARGET_RMS_DBFS (-20 dBFS), the gain lowered where the peak would
pass PEAK_LIMIT; the gain applied is recorded per clip (`gain_db`). RMS, not LUFS: no loudness
library is a dependency, and for solo instrument clips the two differ by a near-constant offset.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from symphony_bench.plugin.core.audio import (
    SAMPLE_RATE,
    decode_audio,
    encode_flac,
    pcm_sha256,
    read_audio_file,
)
from symphony_bench.plugin.core.errors import DataFileError

AUDIO_SUFFIXES = (".wav", ".flac", ".mp3", ".ogg")
TARGET_RMS_DBFS = -20.0
PEAK_LIMIT = 0.95
SILENT_RMS_DBFS = -60.0  # below this a window is silent
CLIPPED_SHARE = 0.001  # more samples than this at full scale: the recording clipped
FULL_SCALE = 0.999


@dataclass(frozen=True)
class PreparedClip:
    flac: bytes
    pcm_sha256: str
    duration_s: float
    offset_s: float
    gain_db: float
    samples: np.ndarray  # as stored (for the separability check; not written)


def check_window(seconds: float, offset: float) -> None:
    """ValueError unless `seconds` is finite and above 0 and `offset` finite and 0 or more (a
    negative one would count from the end, infinity has no sample index)."""
    if not (math.isfinite(seconds) and seconds > 0):
        raise ValueError(f"seconds must be a finite number above 0, got {seconds:g}")
    if not (math.isfinite(offset) and offset >= 0):
        raise ValueError(f"offset must be a finite number of 0 or more, got {offset:g}")


def prepare_clip(path: Path, seconds: float, offset: float) -> PreparedClip:
    """The window [offset, offset + seconds) of the file (the whole file if shorter), mono 16 kHz,
    loudness-normalised. ValueError for a window `check_window` refuses; DataFileError naming the
    file when it does not decode, is silent or clipped, or holds nothing after `offset`."""
    check_window(seconds, offset)
    samples, rate = read_audio_file(path)
    clipped = float(np.mean(np.abs(samples) >= FULL_SCALE))
    if clipped > CLIPPED_SHARE:
        raise DataFileError(
            f"{path}: clipped ({clipped:.1%} of the samples at full scale); use an unclipped recording"
        )
    mono = samples.mean(axis=1)
    start = int(round(offset * rate))
    window = mono[start : start + int(round(seconds * rate))]
    if window.size == 0:
        raise DataFileError(
            f"{path}: nothing after the offset {offset:g} s (the file is {len(mono) / rate:.2f} s)"
        )
    if rate != SAMPLE_RATE:
        import librosa

        window = librosa.resample(window, orig_sr=rate, target_sr=SAMPLE_RATE)
    rms = float(np.sqrt(np.mean(window.astype(np.float64) ** 2)))
    if rms == 0 or 20 * np.log10(rms) < SILENT_RMS_DBFS:
        level = "-inf" if rms == 0 else f"{20 * np.log10(rms):.1f}"
        raise DataFileError(f"{path}: silent ({level} dBFS RMS in the window used)")
    gain = 10 ** (TARGET_RMS_DBFS / 20) / rms
    gain = min(gain, PEAK_LIMIT / float(np.max(np.abs(window))))
    stored = (window * gain).astype(np.float32)
    flac = encode_flac(stored)
    return PreparedClip(
        flac,
        pcm_sha256(flac),
        round(len(stored) / SAMPLE_RATE, 3),
        offset,
        round(20 * float(np.log10(gain)), 3),
        decode_audio(flac),
    )


def prepare_all(files: list[Path], seconds: float, offset: float) -> list[PreparedClip]:
    """Every file prepared, or one DataFileError listing every file that could not be."""
    check_window(seconds, offset)
    prepared, problems = [], []
    for path in files:
        try:
            prepared.append(prepare_clip(path, seconds, offset))
        except DataFileError as error:
            problems.append(str(error))
    if problems:
        raise DataFileError(
            f"{len(problems)} audio file(s) cannot be used:\n  " + "\n  ".join(problems)
        )
    return prepared
