"""Audio stimuli from existing recordings: a fixed window of each file, mono 16 kHz, checked (whole,
long enough to measure, not silent, not clipped) and brought to one loudness, ready to be stored as
FLAC with the hash of its samples. Shared by the recordings folder and the OpenMIC solo-clip
builders (`recorded_sets`).

Loudness: each window is brought to TARGET_LUFS (-23 LUFS integrated loudness, EBU R128's target;
ITU-R BS.1770-4 as pyloudnorm measures it: plugin.core.audio.integrated_loudness), the gain lowered
where the sample peak would pass PEAK_LIMIT. Perceived loudness, not signal power: a piccolo and a
tuba at one RMS do not sound equally loud; at one LUFS they come much closer. A clip records the gain
applied (`gain_db`) and the loudness of its stored samples (`loudness_lufs`), which is below the
target only where the peak limit lowered the gain. A window shorter than one 400 ms gating block has
no integrated loudness: the file is refused by name, as a silent or clipped one is.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from symphony_bench.plugin.core.audio import (
    GATING_BLOCK_S,
    SAMPLE_RATE,
    encode_flac,
    integrated_loudness,
    read_audio_file,
    resample,
    stored_audio,
)
from symphony_bench.plugin.core.errors import DataFileError

AUDIO_SUFFIXES = (".wav", ".flac", ".mp3", ".ogg")
TARGET_LUFS = -23.0  # EBU R128's programme loudness
PEAK_LIMIT = 0.95  # sample peak after the gain
SILENT_LUFS = -60.0  # below this a window is silent (BS.1770's absolute gate is -70 LUFS)
CLIPPED_SHARE = 0.001  # more samples than this at full scale: the recording clipped
FULL_SCALE = 0.999


@dataclass(frozen=True)
class PreparedClip:
    flac: bytes
    pcm_sha256: str
    duration_s: float
    offset_s: float
    gain_db: float
    loudness_lufs: float  # of the stored samples
    peak_limited: bool  # the peak limit lowered the gain: loudness_lufs is below the target
    samples: np.ndarray  # as stored (for the separability check; not written)


def check_window(seconds: float, offset: float) -> None:
    """ValueError unless `seconds` is finite and at least one loudness gating block (0.4 s) and
    `offset` finite and 0 or more (a negative one would count from the end, infinity has no sample
    index)."""
    if not (math.isfinite(seconds) and seconds >= GATING_BLOCK_S):
        raise ValueError(
            f"seconds must be a finite number of at least {GATING_BLOCK_S:g} (one BS.1770 "
            f"loudness gating block), got {seconds:g}"
        )
    if not (math.isfinite(offset) and offset >= 0):
        raise ValueError(f"offset must be a finite number of 0 or more, got {offset:g}")


def prepare_clip(path: Path, seconds: float, offset: float) -> PreparedClip:
    """The window [offset, offset + seconds) of the file (the whole file if shorter), mono 16 kHz,
    loudness-normalised. ValueError for a window `check_window` refuses; DataFileError naming the
    file when it does not decode, is clipped, silent or shorter than a gating block, or holds
    nothing after `offset`."""
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
    window = resample(window, rate)
    loudness = integrated_loudness(window, str(path))
    if loudness is None or loudness < SILENT_LUFS:
        level = "no block above -70" if loudness is None else f"{loudness:.1f}"
        raise DataFileError(f"{path}: silent ({level} LUFS in the window used)")
    wanted = 10 ** ((TARGET_LUFS - loudness) / 20)
    # BS.1770's absolute gate (-70 LUFS) does not move with the gain: blocks of a quiet window cross
    # it once raised, so the gain is corrected once by the loudness measured at the target level
    wanted *= 10 ** ((TARGET_LUFS - integrated_loudness(window * wanted, str(path))) / 20)
    gain = min(wanted, PEAK_LIMIT / float(np.max(np.abs(window))))
    stored = (window * gain).astype(np.float32)
    flac = encode_flac(stored)
    decoded = stored_audio(flac, str(path))
    return PreparedClip(
        flac,
        decoded.pcm_sha256,
        round(len(stored) / SAMPLE_RATE, 3),
        offset,
        round(20 * math.log10(gain), 3),
        decoded.loudness_lufs,
        gain < wanted,
        decoded.samples,
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
