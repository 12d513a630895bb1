"""Render short random-note clips of General MIDI instruments with FluidSynth, reproducibly.

Each clip gets a fresh synthesizer: a reused one carries reverb/voice state from the previous
clip (it renders in 64-sample blocks), so the same seed would not give the same samples.
Samples are taken as float (fluid_synth_write_float): FluidSynth's 16-bit output adds dither
from the C library's rand(), which would tie the result to the process's random state.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from symphony_bench.plugin.core.audio import SAMPLE_RATE

DRUM_CHANNEL = 9
DRUM_BANK = 128
MIN_RMS = 1e-3  # raw, before normalisation: below this a clip is treated as silent
MAX_RAW_PEAK = 0.999  # raw full scale on either channel: the synth clipped
TAIL_SECONDS = 0.4


@dataclass(frozen=True)
class Voice:
    """A General MIDI voice and the notes it may play."""

    program: int  # 0-based GM program (ignored for drums)
    low: int  # lowest MIDI note
    high: int  # highest MIDI note
    drums: bool = False
    substitute: str = ""  # why this voice stands in for an instrument GM lacks


@dataclass(frozen=True)
class Note:
    pitch: int
    velocity: int
    seconds: float


def default_soundfont() -> Path:
    """The TimGM6mb General MIDI SoundFont that the pretty-midi wheel ships (GPL-2.0)."""
    import pretty_midi

    path = Path(pretty_midi.__file__).parent / "TimGM6mb.sf2"
    if not path.is_file():
        raise FileNotFoundError(
            f"{path}: SoundFont missing; reinstall pretty-midi or pass --soundfont"
        )
    return path


def random_notes(voice: Voice, seed: str, min_notes: int = 5, max_notes: int = 10) -> list[Note]:
    rng = random.Random(seed)
    return [
        Note(
            rng.randint(voice.low, voice.high),
            rng.randint(80, 112),
            round(rng.uniform(0.25, 0.7), 3),
        )
        for _ in range(rng.randint(min_notes, max_notes))
    ]


def _write_float(synth, frames: int) -> np.ndarray:
    """(frames, 2) float32 stereo from fluid_synth_write_float (no dither, unlike get_samples)."""
    import ctypes

    import fluidsynth

    write_float = fluidsynth._fl.fluid_synth_write_float
    write_float.argtypes = [
        ctypes.c_void_p,
        ctypes.c_int,
        ctypes.c_void_p,
        ctypes.c_int,
        ctypes.c_int,
        ctypes.c_void_p,
        ctypes.c_int,
        ctypes.c_int,
    ]
    buffer = np.zeros((frames, 2), dtype=np.float32)
    pointer = buffer.ctypes.data
    write_float(synth.synth, frames, pointer, 0, 2, pointer, 1, 2)
    return buffer


def fluidsynth_version() -> str:
    import ctypes

    import fluidsynth

    major, minor, micro = ctypes.c_int(), ctypes.c_int(), ctypes.c_int()
    fluidsynth._fl.fluid_version(ctypes.byref(major), ctypes.byref(minor), ctypes.byref(micro))
    return f"{major.value}.{minor.value}.{micro.value}"


def render(voice: Voice, notes: list[Note], soundfont: Path, label: str = "") -> np.ndarray:
    """Mono float32 at SAMPLE_RATE, peak-normalised to 0.9. Raises ValueError (naming `label`)
    for a missing preset, a silent or a clipped render."""
    import fluidsynth

    synth = fluidsynth.Synth(samplerate=float(SAMPLE_RATE))
    try:
        soundfont_id = synth.sfload(str(soundfont))
        if soundfont_id < 0:
            raise ValueError(f"{soundfont}: FluidSynth could not load the SoundFont")
        channel = DRUM_CHANNEL if voice.drums else 0
        bank, preset = (DRUM_BANK, 0) if voice.drums else (0, voice.program)
        if synth.program_select(channel, soundfont_id, bank, preset) != 0:
            raise ValueError(
                f"{soundfont}: no preset bank {bank} program {preset} (0-based) for {label}"
            )
        blocks = []
        for note in notes:
            synth.noteon(channel, note.pitch, note.velocity)
            blocks.append(_write_float(synth, int(note.seconds * SAMPLE_RATE)))
            synth.noteoff(channel, note.pitch)
        blocks.append(_write_float(synth, int(TAIL_SECONDS * SAMPLE_RATE)))
    finally:
        synth.delete()
    stereo = np.concatenate(blocks)
    rms, peak = float(np.sqrt(np.mean(stereo**2))), float(np.max(np.abs(stereo)))
    if rms < MIN_RMS:
        raise ValueError(f"silent render (raw RMS {rms:.2e}) for {label}")
    if peak >= MAX_RAW_PEAK:
        raise ValueError(f"clipped render (raw peak {peak:.3f}) for {label}")
    mono = stereo.mean(axis=1)
    return (mono * (0.9 / np.max(np.abs(mono)))).astype(np.float32)
