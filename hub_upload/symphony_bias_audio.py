"""Symphony-Bias audio stimuli: for each of the 22 instruments, clips of 5-10 random notes within its
playable range (`--style random`, the paper's design) or seeded melodic phrases (`--style phrase`:
contour, varied durations, a dynamic arc, legato where the instrument plays legato; drums a
groove), rendered with FluidSynth and a General MIDI SoundFont, written in Hugging Face Hub layout
(parquet + dataset card). Same seed -> identical decoded PCM. Each clip is peak-normalised at render
(fluidsynth_render) and records its integrated loudness (`loudness_lufs`, ITU-R BS.1770-4).

    symphony-bench build symphony-bias-audio --out DIR [--seed N] [--clips-per-instrument 5] [--style phrase]
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np

from symphony_bench.hub_upload.fluidsynth_render import (
    Voice,
    default_soundfont,
    fluidsynth_version,
    phrase_notes,
    random_notes,
    render,
)
from symphony_bench.plugin.core.atomic import staged_directory
from symphony_bench.plugin.core.audio import (
    LOUDNESS_METHOD,
    SAMPLE_RATE,
    encode_flac,
    loudness_summary,
    stored_audio,
)
from symphony_bench.plugin.core.hub_folder import card_front_matter, write_hub_folder
from symphony_bench.plugin.core.vocabulary import load_instruments
from symphony_bench.plugin.core.workers import ordered_map

KIND = "symphony-bias-audio"  # the kind of output folder (plugin.core.atomic)

# General MIDI voices (0-based programs) and playable ranges (MIDI notes).
VOICES = {
    "acoustic guitar": Voice(25, 40, 76),
    "bass guitar": Voice(33, 28, 55),
    "bassoon": Voice(70, 34, 72, legato=True),
    "cello": Voice(42, 36, 76, legato=True),
    "clarinet": Voice(71, 50, 89, legato=True),
    "drums": Voice(0, 35, 59, drums=True),  # GM drum kit notes (bass drum .. ride cymbal)
    "electric guitar": Voice(27, 40, 84),
    "flute": Voice(73, 60, 96, legato=True),
    "glockenspiel": Voice(9, 79, 108),
    "harmonica": Voice(22, 60, 84, legato=True),
    "harp": Voice(46, 36, 96),
    "horn": Voice(60, 34, 77, legato=True),
    "keyboard": Voice(
        4,
        41,
        89,
        substitute="GM has no generic keyboard: Electric Piano 1 (GM program 5, 0-based 4) stands in",
    ),
    "oboe": Voice(68, 58, 91, legato=True),
    "piano": Voice(0, 36, 96),
    "piccolo": Voice(72, 74, 108, legato=True),
    "saxophone": Voice(65, 49, 81, legato=True),
    "trombone": Voice(57, 40, 72, legato=True),
    "trumpet": Voice(56, 54, 82, legato=True),
    "tuba": Voice(58, 28, 58, legato=True),
    "ukulele": Voice(
        24,
        60,
        81,
        substitute="GM has no ukulele: Nylon Guitar (GM program 25, 0-based 24) in the ukulele's register",
    ),
    "violin": Voice(40, 55, 100, legato=True),
}


# what a clip plays, by --style; the value of a phrase set's `stimulus_origin` column
STYLES = {"random": random_notes, "phrase": phrase_notes}
STIMULUS_ORIGIN = {"random": "synth-random", "phrase": "synth-phrase"}


def clip_rows(
    seed: int, clips_per_instrument: int, soundfont: Path, style: str = "random", workers: int = 1
) -> list[dict]:
    """Every instrument's clips, rendered in `workers` processes (a clip depends only on its own
    seed: the rows are the same for any number of workers)."""
    jobs = [
        (seed, instrument.name, k, soundfont, style)
        for instrument in load_instruments()
        for k in range(clips_per_instrument)
    ]
    return list(ordered_map(clip_row, jobs, workers, "rendering clips"))


def clip_row(job: tuple[int, str, int, Path, str]) -> dict:
    """One clip's row; a top-level function: the worker processes unpickle it."""
    seed, name, k, soundfont, style = job
    voice = VOICES[name]
    clip_seed = f"{seed}:{name}:{k}"
    notes = STYLES[style](voice, clip_seed)
    label = f"{name} (clip seed {clip_seed})"
    flac = encode_flac(render(voice, notes, soundfont, label=label))
    stored = stored_audio(flac, label)  # its samples are for the separability check
    clip_id = f"{name.replace(' ', '_')}_{k:02d}"
    return {
        "clip_id": clip_id,
        "instrument": name,
        "gm_program": -1 if voice.drums else voice.program,
        "substitute": voice.substitute,
        "notes": json.dumps([note.as_list() for note in notes]),
        "seed": clip_seed,
        "duration_s": round(len(stored.samples) / SAMPLE_RATE, 3),
        "loudness_lufs": stored.loudness_lufs,
        "pcm_sha256": stored.pcm_sha256,
        "audio": {"bytes": flac, "path": f"{clip_id}.flac"},
        "_samples": stored.samples,
        # no column in the random set (the one the audio tasks pin): a set with `notes`
        # and no `stimulus_origin` is read as synth-random (multimodal.stimulus_origins)
        **({"stimulus_origin": STIMULUS_ORIGIN[style]} if style != "random" else {}),
    }


def separability(rows: list[dict]) -> dict[str, float]:
    """Mean cosine distance of MFCC + spectral-descriptor vectors within vs between instruments, and
    the 1-nearest-neighbour instrument accuracy (leave one out: each clip's closest other clip is
    of its instrument; chance is about 1 / 22)."""
    import librosa

    vectors, labels = [], []
    for row in rows:
        magnitude = np.abs(librosa.stft(row["_samples"]))  # one STFT shared by every descriptor
        mel = librosa.feature.melspectrogram(S=magnitude**2, sr=SAMPLE_RATE)
        mfcc = librosa.feature.mfcc(S=librosa.power_to_db(mel), n_mfcc=20)
        centroid = librosa.feature.spectral_centroid(S=magnitude, sr=SAMPLE_RATE)
        bandwidth = librosa.feature.spectral_bandwidth(S=magnitude, sr=SAMPLE_RATE)
        flatness = librosa.feature.spectral_flatness(S=magnitude)
        features = np.concatenate(
            [
                mfcc.mean(axis=1),
                mfcc.std(axis=1),
                [centroid.mean() / 1000, bandwidth.mean() / 1000, flatness.mean()],
            ]
        )
        vectors.append(features)
        labels.append(row["instrument"])
    matrix = np.array(vectors)
    matrix = (matrix - matrix.mean(axis=0)) / (matrix.std(axis=0) + 1e-9)
    unit = matrix / np.linalg.norm(matrix, axis=1, keepdims=True)
    distance = 1.0 - unit @ unit.T
    labels = np.array(labels)
    same = labels[:, None] == labels[None, :]
    off_diagonal = ~np.eye(len(labels), dtype=bool)
    within = (
        float(distance[same & off_diagonal].mean()) if np.any(same & off_diagonal) else float("nan")
    )
    between = float(distance[~same].mean())
    nearest = np.where(off_diagonal, distance, np.inf).argmin(axis=1)
    return {
        "within_instrument": within,
        "between_instruments": between,
        "ratio_between_to_within": between / within,
        "nearest_neighbour_accuracy": float(np.mean(labels[nearest] == labels)),
    }


NO_SEPARABILITY = {
    "within_instrument": float("nan"),
    "between_instruments": float("nan"),
    "ratio_between_to_within": float("nan"),
    "nearest_neighbour_accuracy": float("nan"),
}


def separability_text(check: dict[str, float]) -> str:
    """The card's separability section body."""
    return (
        "MFCC (20 coefficients, mean and std) plus spectral centroid, bandwidth and flatness per clip,\n"
        f"standardised; mean cosine distance within instruments {check['within_instrument']:.3f}, between\n"
        f"instruments {check['between_instruments']:.3f} (ratio {check['ratio_between_to_within']:.2f}; "
        "above 1 means clips of one\ninstrument are closer to each other than to other instruments); "
        "1-nearest-neighbour instrument\naccuracy (leave one out) "
        f"{check['nearest_neighbour_accuracy']:.3f} (chance about 1/22 = 0.045)."
    )


WHAT_IS_PLAYED = {
    "random": (
        "Short clips of 5-10 random notes per instrument, within each instrument's playable range, "
        "so that only timbre identifies the instrument (no melody, style or dynamics)."
    ),
    "phrase": (
        "Seeded melodic phrases per instrument, within each instrument's playable range: a major "
        "scale from a seeded tonic, a stepwise or arpeggiated contour (rising, falling or an arch), "
        "6-10 notes of varied length ending on a long tonic, velocity in an arc (softer, louder, "
        "softer), legato on bowed strings, winds and brass; the drum kit plays two bars of an "
        "eighth-note groove (hi-hat, kick on 1 and 3, snare on 2 and 4). The column "
        "`stimulus_origin` is `synth-phrase`."
    ),
}

CARD = """# Symphony-Bias audio stimuli

{what_is_played} Built by
`symphony-bench build symphony-bias-audio --seed {seed} --clips-per-instrument {clips}{style_option}`:
{n_clips} clips, {n_instruments} instruments, mono {sample_rate} Hz FLAC (16-bit), {seconds:.1f} s in all.

## Columns

`clip_id`, `instrument`, `gm_program` (0-based General MIDI program, -1 for the drum kit),
`substitute` (why a voice stands in for an instrument General MIDI lacks), `notes` (JSON list of
[MIDI pitch, velocity, seconds until the next onset], then, for a legato note or a drum hit with
others, legato and the pitches struck with it), `seed` (the string every random choice of the clip derives from),
`duration_s`, `loudness_lufs` (integrated loudness of the stored samples, below), `pcm_sha256`
(SHA-256 of the stored samples read as little-endian int16: the same seed gives the same hash),
`audio` ({{bytes, path}}; decode the bytes with soundfile — no torchcodec needed).

## Loudness

Each render is peak-normalised (mono peak 0.9), not loudness-normalised. `loudness_lufs` is the
integrated loudness of the stored samples: {loudness_range}. Method: {loudness_method}.

## Substitutes

{substitutes}

## Separability check

{separability}

## Provenance and licence

Rendered with FluidSynth {fluidsynth_version} (float output, no dither) from the TimGM6mb General
MIDI SoundFont (GPL-2.0, as shipped by the pretty-midi package; SoundFont file SHA-256
`{soundfont_sha256}`). The clips contain that SoundFont's
samples, so this dataset is distributed under GPL-2.0.
"""


def build(
    out: Path,
    seed: int = 0,
    clips_per_instrument: int = 5,
    soundfont: Path | None = None,
    style: str = "random",
    workers: int = 1,
) -> dict:
    """Write the dataset folder at `out` (atomically), the clips rendered in `workers` processes
    (same bytes for any number); returns the separability numbers."""
    if style not in STYLES:
        raise ValueError(f"style must be one of {sorted(STYLES)}, got {style!r}")
    if clips_per_instrument < 1:
        raise ValueError(f"clips_per_instrument must be at least 1, got {clips_per_instrument}")
    soundfont = Path(soundfont) if soundfont else default_soundfont()
    if not soundfont.is_file():
        raise FileNotFoundError(f"{soundfont}: SoundFont not found")
    with staged_directory(
        out, KIND, inputs=[soundfont]
    ) as staging:  # refuses a wrong --out before rendering
        rows = clip_rows(seed, clips_per_instrument, soundfont, style, workers)
        check = separability(rows) if clips_per_instrument > 1 else NO_SEPARABILITY
        substitutes = "\n".join(
            f"- {name}: {voice.substitute}" for name, voice in VOICES.items() if voice.substitute
        )
        card = card_front_matter(
            "Symphony-Bias audio stimuli (FluidSynth renders)", "gpl-2.0"
        ) + CARD.format(
            what_is_played=WHAT_IS_PLAYED[style],
            style_option="" if style == "random" else f" --style {style}",
            seed=seed,
            clips=clips_per_instrument,
            n_clips=len(rows),
            n_instruments=len(VOICES),
            sample_rate=SAMPLE_RATE,
            seconds=sum(r["duration_s"] for r in rows),
            loudness_method=LOUDNESS_METHOD,
            loudness_range=loudness_summary([r["loudness_lufs"] for r in rows]),
            substitutes=substitutes,
            separability=separability_text(check),
            fluidsynth_version=fluidsynth_version(),
            soundfont_sha256=hashlib.sha256(soundfont.read_bytes()).hexdigest(),
        )
        # write_hub_folder stages its own folder inside ours; ours records the kind
        write_audio_folder(staging, rows, card)
    return check


def write_audio_folder(folder: Path, rows: list[dict], card: str) -> None:
    """The Hub folder of clip rows (what the builder keeps under names starting with "_", such as
    the decoded `_samples` of the separability check, left out), the audio stored as its FLAC
    bytes."""
    import datasets

    stored = [{key: value for key, value in row.items() if not key.startswith("_")} for row in rows]
    write_hub_folder(
        folder,
        stored,
        card,
        casts={"audio": datasets.Audio(sampling_rate=SAMPLE_RATE, decode=False)},
    )
