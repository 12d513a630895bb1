"""The loudness every audio row records and the one resampler every builder and encoder uses
(plugin.core.audio), checked against what they stand for: ITU-R BS.1770's calibration point and
gates, pyloudnorm's own meter on the decoded FLAC, and scipy's resample_poly at ratios reduced by
hand."""

from __future__ import annotations

import re

import numpy as np
import pyloudnorm
import pytest
from scipy.signal import resample_poly

from symphony_bench.plugin.core.audio import (
    SAMPLE_RATE,
    decode_audio,
    encode_flac,
    integrated_loudness,
    loudness_summary,
    pcm_sha256,
    resample,
    stored_audio,
)
from symphony_bench.plugin.core.errors import DataFileError


def sine(frequency: float, seconds: float, amplitude: float = 0.5, rate: int = SAMPLE_RATE):
    time = np.arange(int(round(seconds * rate))) / rate
    return (amplitude * np.sin(2 * np.pi * frequency * time)).astype(np.float32)


@pytest.mark.parametrize("amplitude", [1.0, 0.1, 0.01])
def test_a_997_hz_sine_reads_at_the_standards_calibration_level(amplitude):
    """BS.1770-4: a 0 dBFS 997 Hz sine in one channel reads -3.01 LUFS (K-weighting is about 0 dB
    there), and loudness follows the level dB for dB. pyloudnorm designs its filters for 16 kHz,
    where it reads 0.07 LU low."""
    expected = -3.01 + 20 * np.log10(amplitude)
    assert integrated_loudness(sine(997, 3.0, amplitude), "tone") == pytest.approx(
        expected, abs=0.1
    )


def test_silence_between_notes_is_gated_out_where_rms_counts_it():
    """Three seconds of tone then three of silence: RMS drops 3 dB, the gated loudness only by what
    the blocks that straddle the edge add (well under 0.5 LU)."""
    tone = sine(997, 3.0)
    with_silence = np.concatenate([tone, np.zeros_like(tone)])
    rms_drop = 10 * np.log10(np.mean(tone.astype(float) ** 2) / np.mean(with_silence**2))
    assert rms_drop == pytest.approx(3.01, abs=0.01)
    drop = integrated_loudness(tone, "tone") - integrated_loudness(with_silence, "tone + silence")
    assert 0 <= drop < 0.5


def test_a_clip_shorter_than_one_gating_block_is_an_error_naming_it():
    """pyloudnorm refuses audio shorter than its 400 ms block; the package says which clip it was."""
    block = int(0.4 * SAMPLE_RATE)
    short = sine(440, 0.4)[: block - 1]
    with pytest.raises(ValueError, match="block size"):
        pyloudnorm.Meter(SAMPLE_RATE).integrated_loudness(short.astype(np.float64))
    message = re.escape(
        "harp/pluck.wav: 0.399 s of audio, shorter than the 0.4 s gating block that ITU-R BS.1770 "
        "integrated loudness needs"
    )
    with pytest.raises(DataFileError, match=message):
        integrated_loudness(short, "harp/pluck.wav")
    with pytest.raises(DataFileError, match=r"clip: 0\.100 s of audio"):
        stored_audio(encode_flac(sine(440, 0.1)), "clip")
    assert integrated_loudness(sine(440, 0.4), "one block") is not None  # exactly one block: fine


def test_silence_has_no_loudness_and_is_recorded_as_null():
    """No block reaches the absolute gate (-70 LUFS): pyloudnorm gives -inf, the row null."""
    silence = np.zeros(SAMPLE_RATE, dtype=np.float32)
    assert pyloudnorm.Meter(SAMPLE_RATE).integrated_loudness(silence.astype(float)) == -np.inf
    assert integrated_loudness(silence, "silence") is None
    assert stored_audio(encode_flac(silence), "silence").loudness_lufs is None


def test_the_stored_audio_is_the_decoded_flac_its_hash_and_pyloudnorms_reading_of_it():
    rng = np.random.default_rng(3)
    samples = (
        0.2 * rng.standard_normal(2 * SAMPLE_RATE) * np.linspace(0, 1, 2 * SAMPLE_RATE)
    ).astype(np.float32)
    flac = encode_flac(samples)
    decoded = decode_audio(flac).astype(np.float64)  # the 16-bit samples as stored
    expected = pyloudnorm.Meter(SAMPLE_RATE).integrated_loudness(decoded)
    stored = stored_audio(flac, "noise")
    assert stored.loudness_lufs == round(expected, 2)
    assert np.array_equal(stored.samples, decode_audio(flac))
    assert stored.samples.dtype == np.float32
    assert stored.pcm_sha256 == pcm_sha256(flac)


def test_the_card_summary_gives_the_range_the_median_and_the_silent_clips():
    assert loudness_summary([-23.04, -20.0, -25.0]) == "-25.0 to -20.0 LUFS (median -23.0)"
    assert loudness_summary([-18.26, None]) == (
        "-18.3 to -18.3 LUFS (median -18.3); 1 silent (no block above the absolute gate: "
        "`loudness_lufs` null)"
    )


# ---- the one resampler ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    "rate, target, up, down",
    [
        (44_100, 16_000, 160, 441),
        (22_050, 16_000, 320, 441),
        (48_000, 16_000, 1, 3),
        (16_000, 24_000, 3, 2),
    ],
)
def test_resampling_is_resample_poly_at_the_reduced_ratio(rate, target, up, down):
    samples = np.random.default_rng(rate).standard_normal(rate // 2).astype(np.float32)
    resampled = resample(samples, rate, target)
    assert resampled.dtype == np.float32 and len(resampled) == -(-len(samples) * up // down)
    np.testing.assert_array_equal(resampled, resample_poly(samples, up, down).astype(np.float32))


def test_the_same_rate_is_left_alone():
    samples = sine(440, 1.0)
    assert resample(samples, SAMPLE_RATE) is samples


def test_a_tone_keeps_its_pitch_and_level_and_one_above_the_new_nyquist_is_filtered_out():
    kept = resample(sine(3_000, 2.0, 1.0, rate=44_100), 44_100)
    spectrum = np.abs(np.fft.rfft(kept))
    assert np.argmax(spectrum) * SAMPLE_RATE / len(kept) == pytest.approx(3_000, abs=1)
    assert np.sqrt(np.mean(kept[1_000:-1_000] ** 2)) == pytest.approx(np.sqrt(0.5), rel=0.01)
    folded = resample(sine(10_000, 2.0, 1.0, rate=44_100), 44_100)  # would alias to 6 kHz
    assert 20 * np.log10(np.sqrt(np.mean(folded[1_000:-1_000] ** 2)) / np.sqrt(0.5)) < -40
