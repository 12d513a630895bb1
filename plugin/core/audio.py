"""Audio as the datasets store it and as lmms-eval models take it: 16 kHz 16-bit FLAC bytes, decoded
float samples, a reproducible hash of the stored samples, and lmms-eval's input form."""

from __future__ import annotations

import hashlib
import io

import numpy as np
import soundfile

SAMPLE_RATE = 16_000


def encode_flac(audio: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    soundfile.write(buffer, audio, SAMPLE_RATE, format="FLAC", subtype="PCM_16")
    return buffer.getvalue()


def decode_audio(data: bytes) -> np.ndarray:
    audio, _ = soundfile.read(io.BytesIO(data), dtype="float32")
    return audio


def pcm_sha256(flac: bytes) -> str:
    """SHA-256 of the stored 16-bit samples (little-endian int16), read back from the FLAC bytes:
    compressed bytes need not be reproducible, decoded samples are."""
    samples, _ = soundfile.read(io.BytesIO(flac), dtype="int16")
    return hashlib.sha256(samples.astype("<i2").tobytes()).hexdigest()


def audio_input(encoded: bytes) -> list[dict]:
    """[{"array": float32, "sampling_rate", "type": "audio"}]: without "type", chat-mode models
    take the input for a video."""
    array, sampling_rate = soundfile.read(io.BytesIO(encoded), dtype="float32")
    return [{"array": np.ascontiguousarray(array), "sampling_rate": int(sampling_rate), "type": "audio"}]
