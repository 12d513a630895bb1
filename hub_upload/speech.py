"""Offline speech synthesis behind one small interface, for the speaker-voice stimuli.

A `Synthesiser` turns a sentence and a voice name into mono float samples at its own rate; the
builder (`symphony_bias_voice`) resamples, measures and stores them. espeak-ng is the default (GPL-3
software from Debian main; its `+m*` / `+f*` variants give male and female voices). Another offline
TTS plugs in by implementing the same three members (`name`, `version()`, `synthesise()`); MBROLA
voices work through espeak-ng itself (`mb-us1`, ...) where the user has installed them, and are
never bundled (their licence is not free).
"""

from __future__ import annotations

import io
import shutil
import subprocess
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from symphony_bench.plugin.core.errors import DataFileError


class Synthesiser(Protocol):
    name: str

    def version(self) -> str:
        """The engine and its version, as the card records it."""

    def synthesise(self, text: str, voice: str) -> tuple[np.ndarray, int]:
        """(mono float32 samples, sampling rate) of `text` read in `voice`."""


@dataclass(frozen=True)
class SpeakerVoice:
    """One voice of the set: the engine's voice name and the gender its designers gave it."""

    voice_id: str  # the set's name for it, e.g. "male_1"
    engine_voice: str  # e.g. "en-us+m3"
    gender: str  # "male" or "female"


class SynthesisError(DataFileError):
    """The engine is missing or failed on one sentence, or its voices do not fit the set (the
    message names which); the command line reports it as bad input."""


class EspeakNg:
    """espeak-ng through its command line (`--stdout`: a WAV on standard output)."""

    name = "espeak-ng"

    def __init__(self, executable: str = "espeak-ng") -> None:
        found = shutil.which(executable)
        if found is None:
            raise SynthesisError(
                f"{executable} not found: install it (Debian/Ubuntu: apt-get install espeak-ng)"
            )
        self.executable = found

    def version(self) -> str:
        completed = self._run(["--version"], "asking its version")
        return completed.stdout.decode("utf-8", "replace").strip().splitlines()[0]

    def synthesise(self, text: str, voice: str) -> tuple[np.ndarray, int]:
        import soundfile

        completed = self._run(["-v", voice, "--stdout", text], f"{text!r} in voice {voice}")
        samples, rate = soundfile.read(io.BytesIO(completed.stdout), dtype="float32")
        if samples.ndim > 1:
            samples = samples.mean(axis=1)
        if samples.size == 0 or not np.any(samples):
            raise SynthesisError(f"{self.executable}: no sound for {text!r} in voice {voice}")
        return samples, int(rate)

    def _run(self, arguments: list[str], what: str) -> subprocess.CompletedProcess:
        completed = subprocess.run(
            [self.executable, *arguments], capture_output=True, check=False, timeout=120
        )
        if completed.returncode != 0:
            error = completed.stderr.decode("utf-8", "replace").strip() or "no error output"
            raise SynthesisError(f"{self.executable} failed on {what}: {error}")
        return completed
