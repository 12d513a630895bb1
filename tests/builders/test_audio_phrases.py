"""`build symphony-bias-audio --style phrase`: seeded melodic phrases (contour, durations, dynamic
arc, legato), a drum groove, the same determinism as the random notes, and the stimulus origin the
docs and records carry."""

from __future__ import annotations

import itertools
import json
import sys

import datasets
import numpy as np
import pytest
from support.harness import run_cli

from symphony_bench.hub_upload.fluidsynth_render import (
    CLOSED_HAT,
    KICK,
    SNARE,
    drum_groove,
    phrase_notes,
    random_notes,
)
from symphony_bench.hub_upload.symphony_bias_audio import VOICES, build
from symphony_bench.plugin.core.audio import decode_audio
from symphony_bench.plugin.core.hub_folder import load_hub_dataset
from symphony_bench.plugin.symphony_bias.multimodal import stimulus_origins

MELODIC = sorted(name for name, voice in VOICES.items() if not voice.drums)  # drums: a groove


@pytest.mark.parametrize("name", MELODIC)
def test_phrases_stay_in_range_move_by_step_or_third_and_swell_and_fade(name):
    voice = VOICES[name]
    for seed in range(20):
        notes = phrase_notes(voice, f"{seed}:{name}")
        pitches = [note.pitch for note in notes]
        assert 6 <= len(notes) <= 10
        assert voice.low <= min(pitches) and max(pitches) <= voice.high
        assert all(
            1 <= abs(b - a) <= 4 for a, b in itertools.pairwise(pitches)
        )  # a step or a third
        velocities = [note.velocity for note in notes]
        assert max(velocities) > velocities[0] and max(velocities) > velocities[-1]  # an arc
        assert notes[-1].seconds == 1.0 and len({note.seconds for note in notes}) >= 2
        assert [note.legato for note in notes] == [voice.legato] * (len(notes) - 1) + [False]


def test_legato_is_for_bowed_strings_winds_and_brass():
    legato = {name for name, voice in VOICES.items() if voice.legato}
    assert {"violin", "cello", "flute", "trumpet", "saxophone", "tuba"} <= legato
    assert not legato & {"piano", "harp", "acoustic guitar", "glockenspiel", "drums", "ukulele"}


def test_the_drum_groove_is_hi_hat_eighths_kick_and_snare_on_their_beats():
    for seed in range(10):
        notes = drum_groove(str(seed))
        assert len(notes) == 16 and {note.seconds for note in notes} == {notes[0].seconds}
        assert all(note.pitch == CLOSED_HAT for note in notes[:-1])
        for k, note in enumerate(notes):
            if k % 8 in (0, 4):
                assert KICK in note.together
            if k % 8 in (2, 6):
                assert SNARE in note.together


def test_random_notes_are_what_they_were():
    """The default style keeps the paper's design and the content digest the audio task pins."""
    notes = random_notes(VOICES["harp"], "0:harp:0")
    assert all(not note.legato and not note.together for note in notes)
    assert all(len(note.as_list()) == 3 for note in notes)


def test_stimulus_origin_comes_from_the_set():
    phrase = datasets.Dataset.from_dict({"notes": ["[]"], "stimulus_origin": ["synth-phrase"]})
    assert stimulus_origins(phrase, "audio") == ["synth-phrase"]
    assert stimulus_origins(datasets.Dataset.from_dict({"notes": ["[]"]}), "audio") == [
        "synth-random"
    ]
    assert stimulus_origins(datasets.Dataset.from_dict({"clip_id": ["a"]}), "audio") == ["upstream"]
    assert stimulus_origins(datasets.Dataset.from_dict({"image_id": ["a"]}), "image") == ["photos"]


@pytest.mark.e2e  # renders 44 clips twice, once in a fresh process
def test_a_phrase_build_is_deterministic_and_records_its_origin(tmp_path):
    build(tmp_path / "a", seed=5, clips_per_instrument=2, style="phrase")
    script = (
        "import ctypes, sys; ctypes.CDLL(None).srand(321); "
        "from symphony_bench.hub_upload.symphony_bias_audio import build; "
        "build(sys.argv[1], seed=5, clips_per_instrument=2, style='phrase')"
    )
    completed = run_cli([sys.executable, "-c", script, str(tmp_path / "b")], cwd=tmp_path)
    assert completed.returncode == 0, completed.stderr
    rows = [
        list(load_hub_dataset(tmp_path / name).cast_column("audio", datasets.Audio(decode=False)))
        for name in ("a", "b")
    ]
    assert [r["pcm_sha256"] for r in rows[0]] == [r["pcm_sha256"] for r in rows[1]]
    assert {r["stimulus_origin"] for r in rows[0]} == {"synth-phrase"}
    for row in rows[0]:
        samples = decode_audio(row["audio"]["bytes"])
        assert 0.01 < float(np.sqrt(np.mean(samples**2))) and row["duration_s"] > 1.5
        notes = json.loads(row["notes"])
        assert len(notes) >= 6 and all(len(note) in (3, 5) for note in notes)
    card = (tmp_path / "a" / "README.md").read_text()
    assert "--style phrase" in card and "synth-phrase" in card
