"""Render short clips of General MIDI instruments with FluidSynth, reproducibly: random notes (the
paper's design) or seeded melodic phrases (drums: a groove).

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
    legato: bool = False  # its phrases are played legato (bowed strings, winds, brass)


@dataclass(frozen=True)
class Note:
    pitch: int
    velocity: int
    seconds: float  # until the next onset (the note sounds that long unless legato)
    legato: bool = False  # held until the next note has started
    together: tuple[int, ...] = ()  # further pitches struck with it (a drum kit's hits)

    def as_list(self) -> list:
        """[pitch, velocity, seconds], then legato and the struck-together pitches if any."""
        extra = [self.legato, list(self.together)] if self.legato or self.together else []
        return [self.pitch, self.velocity, self.seconds, *extra]


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


MAJOR_SCALE = (0, 2, 4, 5, 7, 9, 11)
DURATIONS = (0.25, 0.375, 0.5, 0.75)  # seconds per note, at about 80-120 beats a minute
KICK, SNARE, CLOSED_HAT, OPEN_HAT, CRASH = 36, 38, 42, 46, 49


def phrase_notes(voice: Voice, seed: str) -> list[Note]:
    """A seeded melodic phrase within the voice's range: a major scale from a seeded tonic, a
    stepwise or arpeggiated contour (rising, falling or an arch), 6-10 notes of varied length
    ending on a long tonic, velocity in an arc (softer, louder, softer), legato where the voice
    plays legato. Drums: `drum_groove`."""
    if voice.drums:
        return drum_groove(seed)
    rng = random.Random(seed)
    span = voice.high - voice.low
    octave = 12 if span >= 19 else 0
    tonic = rng.randint(voice.low, max(voice.low, voice.high - 7 - octave))
    scale = [tonic + step + 12 * o for o in range(3) for step in MAJOR_SCALE]
    scale = [pitch for pitch in scale if pitch <= voice.high]
    degrees = _contour(rng, rng.choice(("stepwise", "arpeggio")), len(scale), rng.randint(6, 10))
    peak = rng.randint(96, 112)
    count = len(degrees)
    notes = []
    for k, degree in enumerate(degrees):
        arc = 1 - abs(2 * k / (count - 1) - 1)  # 0 at the ends, 1 in the middle
        velocity = int(round(64 + (peak - 64) * arc))
        seconds = 1.0 if k == count - 1 else rng.choice(DURATIONS)
        notes.append(Note(scale[degree], velocity, seconds, legato=voice.legato and k < count - 1))
    return notes


def _contour(rng: random.Random, kind: str, n_degrees: int, length: int) -> list[int]:
    """Scale degrees (indices into the scale) of a rising, falling or arched line: steps of one
    degree, or of two (an arpeggio of thirds); a step that would leave the scale turns back."""
    step = 1 if kind == "stepwise" else 2
    shape = rng.choice(("rising", "falling", "arch"))
    half = (length + 1) // 2
    moves = {
        "rising": [step] * (length - 1),
        "falling": [-step] * (length - 1),
        "arch": [step] * (half - 1) + [-step] * (length - half),
    }[shape]
    highest = min(n_degrees - 1, step * (length - 1))
    start = {"rising": 0, "falling": highest, "arch": 0}[shape]
    degrees = [start]
    for move in moves:
        degree = degrees[-1] + move
        if not 0 <= degree < n_degrees:
            degree = degrees[-1] - move
        degrees.append(min(max(degree, 0), n_degrees - 1))
    return degrees


def drum_groove(seed: str) -> list[Note]:
    """Two bars of eighth notes: hi-hat on every eighth, kick on beats 1 and 3 (a seeded extra kick
    on the "and" of 3), snare on 2 and 4, accents on the beats, an open hi-hat or a crash to end."""
    rng = random.Random(seed)
    eighth = round(60 / rng.randint(90, 120) / 2, 3)
    extra_kick = rng.random() < 0.5
    notes = []
    for k in range(16):
        position = k % 8  # eighth within the bar
        hits = []
        if position in (0, 4) or (extra_kick and position == 5):
            hits.append(KICK)
        if position in (2, 6):
            hits.append(SNARE)
        last = k == 15
        hat = (OPEN_HAT if rng.random() < 0.5 else CRASH) if last else CLOSED_HAT
        velocity = 104 if position % 2 == 0 else 80
        notes.append(Note(hat, velocity, eighth, together=tuple(hits)))
    return notes


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
        blocks, held = [], ()
        for note in notes:
            pitches = (note.pitch, *note.together)
            for pitch in pitches:
                synth.noteon(channel, pitch, note.velocity)
            for pitch in set(held) - set(pitches):  # a legato note ends once the next has begun
                synth.noteoff(channel, pitch)
            blocks.append(_write_float(synth, int(note.seconds * SAMPLE_RATE)))
            held = pitches if note.legato else ()
            for pitch in () if note.legato else pitches:
                synth.noteoff(channel, pitch)
        for pitch in held:
            synth.noteoff(channel, pitch)
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
