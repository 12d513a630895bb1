"""SynthMIC: a small synthetic archive in OpenMIC-2018's exact layout, rendered with FluidSynth.

Each 10 s clip mixes 1-3 General MIDI stand-ins for OpenMIC's 20 classes, every voice rendered by
`fluidsynth_render.render` (a fresh synthesizer per render, so a clip never depends on what was
rendered before it). The labels are exact by construction, with OpenMIC's quirks put in on
purpose: some present instruments get an intermediate relevance, some absent ones too, and many
instruments stay unannotated. Each clip's genres favour its instruments (a Rock clip mostly has
guitar, bass, drums...), so a genre-instrument prior has something to learn.

Used as the openmic builder's test fixture, as an offline demo and as a genre-free control
(the audio of a clip does not depend on its genre, only its instrument choice does).

    symphony-bench build synthmic --out DIR --clips N [--seed S] [--workers W]

Layout written (as in openmic-2018-v1.0.0.tgz): class-map.json, openmic-2018-aggregated-labels.csv,
openmic-2018-metadata.csv (the release's 41 columns), partitions/split01_{train,test}.csv
(headerless), audio/{key[:3]}/{key}.ogg (mono, 16 kHz, Vorbis) and a README.md. The individual
responses, openmic-2018.npz and vggish/ are not written: the builder does not read them.
"""

from __future__ import annotations

import csv
import hashlib
import json
import random
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import numpy as np

from symphony_bench.hub_upload.fluidsynth_render import Note, Voice, default_soundfont, render
from symphony_bench.hub_upload.openmic.release import (
    CLASS_MAP,
    LABEL_COLUMNS,
    LABELS_CSV,
    METADATA_CSV,
    SPLITS,
    audio_path,
)
from symphony_bench.plugin.core.atomic import staged_directory
from symphony_bench.plugin.core.audio import (
    LOUDNESS_METHOD,
    SAMPLE_RATE,
    integrated_loudness,
    loudness_summary,
)
from symphony_bench.plugin.core.vocabulary import OPENMIC_CLASSES
from symphony_bench.plugin.core.workers import ordered_map

CLIP_SECONDS = 10.0
KIND = "synthmic"  # the kind of output folder (plugin.core.atomic)
METADATA_COLUMNS = (
    "track_id",
    "album_id",
    "album_title",
    "album_url",
    "artist_id",
    "artist_name",
    "artist_url",
    "artist_website",
    "license_image_file",
    "license_image_file_large",
    "license_parent_id",
    "license_title",
    "license_url",
    "tags",
    "track_bit_rate",
    "track_comments",
    "track_composer",
    "track_copyright_c",
    "track_copyright_p",
    "track_date_created",
    "track_date_recorded",
    "track_disc_number",
    "track_duration",
    "track_explicit",
    "track_explicit_notes",
    "track_favorites",
    "track_file",
    "track_genres",
    "track_image_file",
    "track_information",
    "track_instrumental",
    "track_interest",
    "track_language_code",
    "track_listens",
    "track_lyricist",
    "track_number",
    "track_publisher",
    "track_title",
    "track_url",
    "sample_key",
    "start_time",
)
# The clips contain samples of the TimGM6mb SoundFont (GPL-2.0), so that is their licence.
LICENCE_TITLE = "GNU General Public License v2.0 (TimGM6mb SoundFont samples)"
LICENCE_URL = "https://www.gnu.org/licenses/old-licenses/gpl-2.0.html"

DRUM_KIT = (35, 36, 38, 40, 41, 43, 45, 47, 48, 50)  # kicks, snares, toms
CYMBALS = (42, 44, 46, 49, 51, 52, 55, 57, 59)  # hi-hats, crash, ride, china, splash


@dataclass(frozen=True)
class StandIn:
    """The General MIDI voice that plays an OpenMIC class, and how it plays."""

    voice: Voice
    pitches: tuple[int, ...] = ()  # drum-kit notes; empty: any pitch in voice.low..voice.high
    note_seconds: tuple[float, float] = (0.25, 0.7)


STAND_INS = {
    "accordion": StandIn(Voice(21, 53, 89)),
    "banjo": StandIn(Voice(105, 48, 84)),
    "bass": StandIn(Voice(33, 28, 55)),
    "cello": StandIn(Voice(42, 36, 76)),
    "clarinet": StandIn(Voice(71, 50, 89)),
    "cymbals": StandIn(Voice(0, 42, 59, drums=True), pitches=CYMBALS),
    "drums": StandIn(Voice(0, 35, 50, drums=True), pitches=DRUM_KIT),
    "flute": StandIn(Voice(73, 60, 96)),
    "guitar": StandIn(Voice(27, 40, 76)),
    "mallet_percussion": StandIn(
        Voice(12, 45, 96, substitute="Marimba (GM program 13) stands in for mallet percussion")
    ),
    "mandolin": StandIn(
        Voice(
            25,
            67,
            91,
            substitute="GM has no mandolin: Steel Guitar (GM program 26) in the mandolin's register, fast picking",
        ),
        note_seconds=(0.08, 0.16),
    ),
    "organ": StandIn(Voice(16, 36, 84)),
    "piano": StandIn(Voice(0, 36, 96)),
    "saxophone": StandIn(Voice(65, 49, 81)),
    "synthesizer": StandIn(
        Voice(81, 48, 84, substitute="Lead 2 sawtooth (GM program 82) stands in for synthesizer")
    ),
    "trombone": StandIn(Voice(57, 40, 72)),
    "trumpet": StandIn(Voice(56, 54, 82)),
    "ukulele": StandIn(
        Voice(
            24,
            60,
            81,
            substitute="GM has no ukulele: Nylon Guitar (GM program 25) in the ukulele's register",
        )
    ),
    "violin": StandIn(Voice(40, 55, 100)),
    "voice": StandIn(
        Voice(53, 48, 76, substitute="Voice Oohs (GM program 54) stands in for a singing voice")
    ),
}

# FMA top-level genres (id, title) and the classes a clip of that genre mostly draws from.
GENRES = {
    ("12", "Rock"): ("guitar", "bass", "drums", "cymbals", "voice"),
    ("4", "Jazz"): ("saxophone", "trumpet", "trombone", "piano", "bass", "cymbals"),
    ("5", "Classical"): ("violin", "cello", "flute", "clarinet", "piano"),
    ("17", "Folk"): ("banjo", "mandolin", "ukulele", "accordion", "guitar", "violin"),
    ("15", "Electronic"): ("synthesizer", "drums", "bass", "voice"),
    ("14", "Soul-RnB"): ("organ", "voice", "piano", "bass"),
    ("2", "International"): ("accordion", "mallet_percussion", "trumpet", "guitar"),
}
IN_GENRE_PROBABILITY = 0.85  # each instrument of a clip comes from its genre's list this often
SECOND_GENRE_PROBABILITY = 0.3
NO_GENRE_PROBABILITY = 0.1  # track_genres "[]": no usable genre metadata
INTERMEDIATE_PRESENT_PROBABILITY = 0.15  # a present instrument labelled 0.55-0.95 instead of 1.0
ABSENT_ZERO_PROBABILITY = (
    0.55  # an absent instrument labelled 0.0; else intermediate or unannotated
)
ABSENT_INTERMEDIATE_PROBABILITY = 0.07
TRAIN_PROBABILITY = 0.75


@dataclass(frozen=True)
class ClipSpec:
    key: str
    instruments: tuple[str, ...]
    gains: tuple[float, ...]
    genres: tuple[tuple[str, str], ...]
    labels: tuple[tuple[str, float, int], ...]  # (instrument, relevance, num_responses)
    split: str
    seed: str


def _sample_keys(rng: random.Random, clips: int) -> list[str]:
    track_ids = rng.sample(range(1, 160_000), clips)
    return sorted(f"{track:06d}_{960 * rng.randint(0, 300)}" for track in track_ids)


def _clip_genres(rng: random.Random) -> tuple[tuple[str, str], ...]:
    primary = rng.choice(list(GENRES))
    if rng.random() < SECOND_GENRE_PROBABILITY:
        return (primary, rng.choice([genre for genre in GENRES if genre != primary]))
    return (primary,)


def _clip_instruments(rng: random.Random, genre: tuple[str, str]) -> tuple[str, ...]:
    count = rng.choices((1, 2, 3), weights=(3, 4, 3))[0]
    chosen: list[str] = []
    while len(chosen) < count:
        pool = GENRES[genre] if rng.random() < IN_GENRE_PROBABILITY else OPENMIC_CLASSES
        instrument = rng.choice(pool)
        if instrument not in chosen:
            chosen.append(instrument)
    return tuple(chosen)


def _clip_labels(
    rng: random.Random, present: tuple[str, ...]
) -> tuple[tuple[str, float, int], ...]:
    labels = []
    for instrument in OPENMIC_CLASSES:
        draw = rng.random()
        if instrument in present:
            relevance = (
                round(rng.uniform(0.55, 0.95), 5)
                if draw < INTERMEDIATE_PRESENT_PROBABILITY
                else 1.0
            )
        elif draw < ABSENT_ZERO_PROBABILITY:
            relevance = 0.0
        elif draw < ABSENT_ZERO_PROBABILITY + ABSENT_INTERMEDIATE_PROBABILITY:
            relevance = round(rng.uniform(0.05, 0.45), 5)
        else:
            continue  # unannotated
        labels.append((instrument, relevance, rng.randint(2, 5)))
    return tuple(labels)


def clip_specs(clips: int, seed: int) -> list[ClipSpec]:
    """Every label-level choice of the archive, from `seed` alone."""
    rng = random.Random(f"{seed}:synthmic")
    specs = []
    for key in _sample_keys(rng, clips):
        genres = _clip_genres(rng)
        instruments = _clip_instruments(rng, genres[0])
        specs.append(
            ClipSpec(
                key=key,
                instruments=instruments,
                gains=tuple(round(rng.uniform(0.5, 1.0), 3) for _ in instruments),
                genres=() if rng.random() < NO_GENRE_PROBABILITY else genres,
                labels=_clip_labels(rng, instruments),
                split="train" if rng.random() < TRAIN_PROBABILITY else "test",
                seed=f"{seed}:{key}",
            )
        )
    return specs


def clip_notes(stand_in: StandIn, rng: random.Random) -> list[Note]:
    """Random notes until CLIP_SECONDS are filled."""
    voice, notes, total = stand_in.voice, [], 0.0
    while total < CLIP_SECONDS:
        pitch = (
            rng.choice(stand_in.pitches) if stand_in.pitches else rng.randint(voice.low, voice.high)
        )
        notes.append(
            Note(pitch, rng.randint(80, 112), round(rng.uniform(*stand_in.note_seconds), 3))
        )
        total += notes[-1].seconds
    return notes


def render_clip(spec: ClipSpec, soundfont: Path, root: Path) -> float | None:
    """Mix the clip's voices (each rendered by a fresh synthesizer), peak 0.9, write its .ogg;
    returns the integrated loudness of the samples the .ogg decodes to (for the card)."""
    import soundfile

    frames = int(CLIP_SECONDS * SAMPLE_RATE)
    mix = np.zeros(frames, dtype=np.float32)
    for instrument, gain in zip(spec.instruments, spec.gains, strict=True):
        stand_in = STAND_INS[instrument]
        notes = clip_notes(stand_in, random.Random(f"{spec.seed}:{instrument}"))
        mix += (
            gain
            * render(stand_in.voice, notes, soundfont, label=f"{instrument} in {spec.key}")[:frames]
        )
    path = audio_path(root, spec.key)
    path.parent.mkdir(parents=True, exist_ok=True)
    soundfile.write(
        path, mix * (0.9 / np.max(np.abs(mix))), SAMPLE_RATE, format="OGG", subtype="VORBIS"
    )
    stored, _ = soundfile.read(path, dtype="float32")
    return integrated_loudness(stored, str(path))


def _genre_literal(genres: tuple[tuple[str, str], ...]) -> str:
    """FMA's `track_genres` format: a Python-literal list of dicts (single quotes, not JSON)."""
    return repr(
        [
            {
                "genre_id": genre_id,
                "genre_title": title,
                "genre_url": f"http://freemusicarchive.org/genre/{title}/",
            }
            for genre_id, title in genres
        ]
    )


def _metadata_row(spec: ClipSpec) -> tuple[str, ...]:
    track_id, start_ms = spec.key.split("_")
    voices = "; ".join(
        f"{name}: {'GM drum kit' if STAND_INS[name].voice.drums else f'GM program {STAND_INS[name].voice.program + 1}'}"
        for name in spec.instruments
    )
    row = dict.fromkeys(METADATA_COLUMNS, "")
    row.update(
        track_id=str(int(track_id)),
        album_id="1.0",
        album_title="SynthMIC",
        artist_id="1",
        artist_name="SynthMIC (FluidSynth)",
        license_title=LICENCE_TITLE,
        license_url=LICENCE_URL,
        tags="[]",
        track_comments="0",
        track_disc_number="1",
        track_duration="00:10",
        track_favorites="0",
        track_genres=_genre_literal(spec.genres),
        track_information=f"synthetic render, seed {spec.seed}; {voices}",
        track_instrumental="1",
        track_interest="0",
        track_listens="0",
        track_number="1",
        track_title=f"synthmic {spec.key}",
        sample_key=spec.key,
        start_time=str(int(start_ms) / 1000),
    )
    return tuple(row[column] for column in METADATA_COLUMNS)


def _write_csv(path: Path, rows: list[tuple], header: tuple[str, ...] | None = None) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        if header:
            writer.writerow(header)
        writer.writerows(rows)


# The card's configs make the label and metadata tables loadable from the Hub; the audio stays as files.
README = """---
license: gpl-2.0
pretty_name: SynthMIC (synthetic, OpenMIC-2018 layout)
configs:
- config_name: labels
  data_files:
  - split: train
    path: {labels_csv}
- config_name: metadata
  data_files:
  - split: train
    path: {metadata_csv}
---
# SynthMIC (synthetic, OpenMIC-2018 layout)

{clips} clips of 10 s, written by `symphony-bench build synthmic --clips {clips} --seed {seed}`. Each clip
mixes 1-3 FluidSynth renders of General MIDI stand-ins for OpenMIC's 20 classes (TimGM6mb SoundFont,
SHA-256 `{soundfont_sha256}`). Labels are exact, except on purpose: some present instruments carry an
intermediate relevance (0.55-0.95), some absent ones 0.05-0.45, and many are unannotated. Genres are
FMA titles chosen first; instruments are then drawn mostly from the genre's typical set.

Each mix is peak-normalised to 0.9, not loudness-normalised. Integrated loudness of the clips (of
the samples their Vorbis files decode to): {loudness_range}. Method: {loudness_method}.

Licence of the clips: GPL-2.0 (they contain the SoundFont's samples). Not real music: use it as a
test fixture, an offline demo or a genre-free control, never as a stand-in for OpenMIC results.

Stand-ins that are not the instrument itself:
{substitutes}
"""


def build(
    out: Path, clips: int = 100, seed: int = 0, soundfont: Path | None = None, workers: int = 1
) -> Path:
    """Write the archive folder at `out` (atomically). `workers` > 1 renders clips in parallel
    processes; the output does not depend on it."""
    if clips < 1:
        raise ValueError(f"clips must be at least 1, got {clips}")
    soundfont = Path(soundfont) if soundfont else default_soundfont()
    if not soundfont.is_file():
        raise FileNotFoundError(f"{soundfont}: SoundFont not found")
    specs = clip_specs(clips, seed)
    with staged_directory(out, KIND, inputs=[soundfont]) as staging:
        render_one = partial(render_clip, soundfont=soundfont, root=staging)
        loudness = list(ordered_map(render_one, specs, workers, "rendering clips", chunksize=8))
        (staging / CLASS_MAP).write_text(
            json.dumps({name: index for index, name in enumerate(OPENMIC_CLASSES)})
        )
        labels = [
            (spec.key, instrument, relevance, responses)
            for spec in specs
            for instrument, relevance, responses in spec.labels
        ]
        _write_csv(staging / LABELS_CSV, labels, LABEL_COLUMNS)
        _write_csv(
            staging / METADATA_CSV, [_metadata_row(spec) for spec in specs], METADATA_COLUMNS
        )
        for split, name in SPLITS.items():  # headerless, as in the release
            _write_csv(staging / name, [(spec.key,) for spec in specs if spec.split == split])
        substitutes = "\n".join(
            f"- {name}: {s.voice.substitute}" for name, s in STAND_INS.items() if s.voice.substitute
        )
        (staging / "README.md").write_text(
            README.format(
                labels_csv=LABELS_CSV,
                metadata_csv=METADATA_CSV,
                clips=clips,
                seed=seed,
                soundfont_sha256=hashlib.sha256(soundfont.read_bytes()).hexdigest(),
                loudness_method=LOUDNESS_METHOD,
                loudness_range=loudness_summary(loudness),
                substitutes=substitutes,
            )
        )
    return Path(out)
