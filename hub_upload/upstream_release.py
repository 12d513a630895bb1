"""Import the Symphony-Bias release's own stimuli (instrument-bias-evaluation), so the paper's photos
and recordings can be evaluated instead of ours.

Release layout: `instrument-photos/<name>/` (6 photos per instrument, all named .jpg, some of them
WEBP, PNG or AVIF) and `instrument-audios/` (1-6 mp3 per instrument, irregular file names such as
"Saw Synth 01.mp3"; branch main has no clarinet recordings and gives the keyboard's as "Saw Synth"
clips, branch audio_batched has clarinet but no keyboard).

    symphony-bench import-upstream --release DIR --out DIR
writes DIR/images (see symphony_bias_image) and DIR/audio (Hub layout, 16 kHz FLAC at the release's
own levels, each row with its integrated loudness, `loudness_lufs`). Files are read
where they are in the release, so errors name the release's own files. Each set's card and
`stimulus_set.json` (symphony_bias_image.set_summary) list the instruments without stimuli, every
source name read as an instrument, the stand-ins among them, and the files ignored.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from pathlib import Path

import numpy as np

from symphony_bench.hub_upload import symphony_bias_image
from symphony_bench.hub_upload.symphony_bias_image import NameMapping, SourceImage
from symphony_bench.plugin.core.atomic import staged_directory
from symphony_bench.plugin.core.audio import (
    LOUDNESS_METHOD,
    RESAMPLER,
    SAMPLE_RATE,
    encode_flac,
    loudness_summary,
    read_audio_file,
    resample,
    stored_audio,
)
from symphony_bench.plugin.core.errors import DataFileError
from symphony_bench.plugin.core.hub_folder import card_front_matter, write_hub_folder
from symphony_bench.plugin.core.instrument_names import single_instrument

AUDIO_SUFFIXES = {".mp3", ".wav", ".flac", ".ogg"}
UPSTREAM_LICENCE = "as stated by the Symphony-Bias release (instrument-bias-evaluation)"
KIND = "upstream-import"  # the kind of output folder (plugin.core.atomic)
# names that instrument_names reads as one of ours but that name another instrument used in its place
STAND_INS = ("synth", "synthesizer", "electric piano", "snare")


def instrument_of(name: str) -> str | None:
    """Our instrument for an upstream file or folder name ("E-Guitar (2).mp3"), or None."""
    return single_instrument(Path(name).stem)


def is_stand_in(name: str) -> bool:
    """True if the name ("Saw Synth 01.mp3") names a stand-in (STAND_INS) rather than the instrument."""
    words = f" {' '.join(re.sub(r'[^a-z]+', ' ', Path(name).stem.lower()).split())} "
    return any(re.search(rf" {re.escape(phrase)}(?:e?s)? ", words) for phrase in STAND_INS)


def name_mapping(path: Path, release: Path) -> NameMapping:
    return NameMapping(
        path.relative_to(release).as_posix(), instrument_of(path.name), is_stand_in(path.name)
    )


def _unmatched_error(folder: Path, names: list[str]) -> DataFileError:
    return DataFileError(f"{folder}: cannot tell the instrument of {', '.join(sorted(names))}")


def release_photos(release: Path) -> tuple[list[SourceImage], list[NameMapping]]:
    """The photos of instrument-photos/<name>/, as the image builder takes them, and how each folder
    name was read. Each image id is prefixed with its folder: "Violin/1.jpg" and "Violins/1.jpg" both
    survive."""
    photos = release / "instrument-photos"
    if not photos.is_dir():
        raise DataFileError(
            f"{photos}: not found (expected the release's instrument-photos folder)"
        )
    folders = [p for p in sorted(photos.iterdir()) if p.is_dir()]
    unmatched = [p.name for p in folders if instrument_of(p.name) is None]
    if unmatched:
        raise _unmatched_error(photos, unmatched)
    mappings = [name_mapping(folder, release) for folder in folders]
    images = []
    for folder, mapping in zip(folders, mappings, strict=True):
        for image in symphony_bias_image.image_files(folder):
            images.append(
                SourceImage(
                    mapping.instrument,
                    image,
                    f"{mapping.instrument.replace(' ', '_')}/{folder.name}__{image.name}",
                    UPSTREAM_LICENCE,
                    f"instrument-photos/{folder.name}/{image.name}",
                    mapping.stand_in,
                )
            )
    symphony_bias_image.check_counts(photos, Counter(image.instrument for image in images))
    symphony_bias_image.refuse_outside_links(release, [image.path for image in images])
    return images, mappings


def import_photos(release: Path, out: Path) -> Path:
    images, mappings = release_photos(release)
    ignored = symphony_bias_image.unused_files(
        release / "instrument-photos", [image.path for image in images], release
    )
    return symphony_bias_image.write_image_set(out, images, mappings, ignored)


def _read_audio(path: Path):
    audio, rate = read_audio_file(path)
    mono = audio.mean(axis=1)
    if mono.size == 0 or not mono.any():
        raise DataFileError(f"{path}: the audio is empty or silent")
    mono = resample(mono, rate)
    peak = float(np.max(np.abs(mono)))
    return mono * (0.99 / peak) if peak > 1.0 else mono  # resampling can overshoot full scale


AUDIO_CARD = """# Symphony-Bias audio stimuli, imported from the upstream release

{n_clips} recordings of {n_instruments} instruments from the release's `instrument-audios/` folder,
converted to mono {sample_rate} Hz FLAC (resampled with {resampler}; a recording whose peak exceeds
full scale after resampling is scaled down to 0.99). Levels are the release's own (not normalised);
`loudness_lufs` is the integrated loudness of the stored samples: {loudness_range}. Method:
{loudness_method}. A recording shorter than one 0.4 s gating block has none and is refused by name.
Licence: {licence}. Columns: `clip_id`, `instrument`, `source_file`, `source_sha256` (of the
release's file), `stand_in` (the file name names another instrument used in this one's place),
`duration_s`, `loudness_lufs`, `pcm_sha256`, `audio`.
{summary}"""


def _audio_row(k: int, path: Path, recordings: Path, mapping: NameMapping) -> dict:
    flac = encode_flac(_read_audio(path))
    stored = stored_audio(flac, str(path))
    return {
        "clip_id": f"upstream_{k:03d}",
        "instrument": mapping.instrument,
        "source_file": path.relative_to(recordings).as_posix(),
        "source_sha256": hashlib.sha256(path.read_bytes()).hexdigest(),
        "stand_in": mapping.stand_in,
        "duration_s": round(len(stored.samples) / SAMPLE_RATE, 3),
        "loudness_lufs": stored.loudness_lufs,
        "pcm_sha256": stored.pcm_sha256,
        "audio": {"bytes": flac, "path": f"upstream_{k:03d}.flac"},
    }


def import_audio(release: Path, out: Path) -> Path:
    recordings = release / "instrument-audios"
    if not recordings.is_dir():
        raise DataFileError(
            f"{recordings}: not found (expected the release's instrument-audios folder)"
        )
    files = sorted(p for p in recordings.rglob("*") if p.suffix.lower() in AUDIO_SUFFIXES)
    symphony_bias_image.refuse_outside_links(release, files)
    unmatched = [
        p.relative_to(recordings).as_posix() for p in files if instrument_of(p.name) is None
    ]
    if unmatched:
        raise _unmatched_error(recordings, unmatched)
    if not files:
        raise DataFileError(f"{recordings}: no audio files ({', '.join(sorted(AUDIO_SUFFIXES))})")
    mappings = [name_mapping(path, release) for path in files]
    rows = [
        _audio_row(k, path, recordings, mapping)
        for k, (path, mapping) in enumerate(zip(files, mappings, strict=True))
    ]
    ignored = symphony_bias_image.unused_files(recordings, files, release)
    summary = symphony_bias_image.set_summary(
        "audio", [row["instrument"] for row in rows], mappings, ignored
    )
    card = card_front_matter(
        "Symphony-Bias audio stimuli (upstream release)", "other"
    ) + AUDIO_CARD.format(
        n_clips=len(rows),
        n_instruments=len({row["instrument"] for row in rows}),
        sample_rate=SAMPLE_RATE,
        resampler=RESAMPLER,
        loudness_method=LOUDNESS_METHOD,
        loudness_range=loudness_summary([row["loudness_lufs"] for row in rows]),
        licence=UPSTREAM_LICENCE,
        summary=symphony_bias_image.summary_markdown(summary, "recordings"),
    )
    import datasets

    write_hub_folder(
        out, rows, card, casts={"audio": datasets.Audio(sampling_rate=SAMPLE_RATE, decode=False)}
    )
    symphony_bias_image.write_summary(out, summary)
    return Path(out)


def import_release(release: Path, out: Path) -> Path:
    """out/images and out/audio, written together: an error (naming the release's file) leaves nothing."""
    release = Path(release)
    with staged_directory(out, KIND, inputs=[release]) as staging:
        import_photos(release, staging / "images")
        import_audio(release, staging / "audio")
    return Path(out)


def describe_gaps(out: Path) -> str:
    """A line per imported set (from its SUMMARY_FILE): instruments without stimuli, stand-ins, ignored files."""
    lines = []
    for part, stimuli in (("images", "images"), ("audio", "recordings")):
        summary = json.loads(
            (Path(out) / part / symphony_bias_image.SUMMARY_FILE).read_text(encoding="utf-8")
        )
        stand_ins = [
            f"{m['source']} -> {m['instrument']}" for m in summary["name_mappings"] if m["stand_in"]
        ]
        lines.append(
            f"{part}: no {stimuli} for: {', '.join(summary['missing_instruments']) or 'none'}; "
            f"stand-ins: {', '.join(stand_ins) or 'none'}; files ignored: "
            f"{', '.join(summary['ignored_files']) or 'none'}"
        )
    return "\n".join(lines)
