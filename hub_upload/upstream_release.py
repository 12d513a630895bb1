"""Import the Symphony-Bias release's own stimuli (instrument-bias-evaluation), so the paper's photos
and recordings can be evaluated instead of ours.

Release layout: `instrument-photos/<name>/` (photos per instrument) and `instrument-audios/`
(1-6 mp3 per instrument, none for keyboard, irregular file names such as "E-Guitar 2.mp3").

    symphony-bench import-upstream --release DIR --out DIR
writes DIR/images (see symphony_bias_image) and DIR/audio (Hub layout, 16 kHz FLAC).
"""

from __future__ import annotations

import csv
import shutil
import tempfile
from pathlib import Path

import numpy as np

from symphony_bench.hub_upload import symphony_bias_image
from symphony_bench.plugin.core.atomic import staged_directory
from symphony_bench.plugin.core.audio import SAMPLE_RATE, decode_audio, encode_flac, pcm_sha256
from symphony_bench.plugin.core.errors import DataFileError
from symphony_bench.plugin.core.hub_folder import card_front_matter, write_hub_folder
from symphony_bench.plugin.core.instrument_names import single_instrument
from symphony_bench.plugin.core.vocabulary import load_instruments

AUDIO_SUFFIXES = {".mp3", ".wav", ".flac", ".ogg"}
UPSTREAM_LICENCE = "as stated by the Symphony-Bias release (instrument-bias-evaluation)"


def instrument_of(name: str) -> str | None:
    """Our instrument for an upstream file or folder name ("E-Guitar (2).mp3"), or None."""
    return single_instrument(Path(name).stem)


def _unmatched_error(folder: Path, names: list[str]) -> DataFileError:
    return DataFileError(f"{folder}: cannot tell the instrument of {', '.join(sorted(names))}")


def import_photos(release: Path, staging: Path) -> Path:
    """Copy instrument-photos/<name>/ into the image builder's source layout, with a manifest."""
    photos = release / "instrument-photos"
    if not photos.is_dir():
        raise DataFileError(f"{photos}: not found (expected the release's instrument-photos folder)")
    folders = [p for p in sorted(photos.iterdir()) if p.is_dir()]
    unmatched = [p.name for p in folders if instrument_of(p.name) is None]
    if unmatched:
        raise _unmatched_error(photos, unmatched)
    rows = []
    for folder in folders:
        instrument = instrument_of(folder.name)
        (staging / instrument).mkdir(parents=True, exist_ok=True)
        for image in sorted(folder.iterdir()):
            if image.suffix.lower() in symphony_bias_image.IMAGE_SUFFIXES:
                # prefixed with the source folder: "Violin/1.jpg" and "Violins/1.jpg" both survive
                name = f"{folder.name}__{image.name}"
                shutil.copyfile(image, staging / instrument / name)
                rows.append({"file": f"{instrument}/{name}", "licence": UPSTREAM_LICENCE,
                             "source": f"instrument-photos/{folder.name}/{image.name}"})
    with open(staging / symphony_bias_image.MANIFEST, "w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=["file", "licence", "source"])
        writer.writeheader()
        writer.writerows(rows)
    return staging


def _read_audio(path: Path):
    import librosa
    import soundfile

    try:
        audio, rate = soundfile.read(path, dtype="float32", always_2d=True)
    except (RuntimeError, soundfile.LibsndfileError) as error:
        raise DataFileError(f"{path}: not a readable audio file ({error})") from error
    mono = audio.mean(axis=1)
    if mono.size == 0 or not mono.any():
        raise DataFileError(f"{path}: the audio is empty or silent")
    if rate != SAMPLE_RATE:
        mono = librosa.resample(mono, orig_sr=rate, target_sr=SAMPLE_RATE)
    peak = float(np.max(np.abs(mono)))
    return mono * (0.99 / peak) if peak > 1.0 else mono  # resampling can overshoot full scale


AUDIO_CARD = """# Symphony-Bias audio stimuli, imported from the upstream release

{n_clips} recordings of {n_instruments} instruments from the release's `instrument-audios/` folder,
converted to mono {sample_rate} Hz FLAC (a recording whose peak exceeds full scale after resampling
is scaled down to 0.99). Licence: {licence}. Instruments without a recording:
{missing}. Columns: `clip_id`, `instrument`, `source_file`, `duration_s`, `pcm_sha256`, `audio`.
"""


def import_audio(release: Path, out: Path) -> Path:
    recordings = release / "instrument-audios"
    if not recordings.is_dir():
        raise DataFileError(f"{recordings}: not found (expected the release's instrument-audios folder)")
    files = sorted(p for p in recordings.rglob("*") if p.suffix.lower() in AUDIO_SUFFIXES)
    unmatched = [p.relative_to(recordings).as_posix() for p in files if instrument_of(p.name) is None]
    if unmatched:
        raise _unmatched_error(recordings, unmatched)
    if not files:
        raise DataFileError(f"{recordings}: no audio files ({', '.join(sorted(AUDIO_SUFFIXES))})")
    rows = []
    for k, path in enumerate(files):
        flac = encode_flac(_read_audio(path))
        rows.append({
            "clip_id": f"upstream_{k:03d}",
            "instrument": instrument_of(path.name),
            "source_file": path.relative_to(recordings).as_posix(),
            "duration_s": round(len(decode_audio(flac)) / SAMPLE_RATE, 3),
            "pcm_sha256": pcm_sha256(flac),
            "audio": {"bytes": flac, "path": f"upstream_{k:03d}.flac"},
        })
    present = {r["instrument"] for r in rows}
    missing = ", ".join(i.name for i in load_instruments() if i.name not in present) or "none"
    card = card_front_matter("Symphony-Bias audio stimuli (upstream release)", "other") + AUDIO_CARD.format(n_clips=len(rows), n_instruments=len(present), sample_rate=SAMPLE_RATE,
                             licence=UPSTREAM_LICENCE, missing=missing)
    import datasets

    return write_hub_folder(out, rows, card, casts={"audio": datasets.Audio(sampling_rate=SAMPLE_RATE, decode=False)})


def import_release(release: Path, out: Path) -> Path:
    """out/images and out/audio, written together: an error (naming the file) leaves nothing."""
    release = Path(release)
    with staged_directory(out) as staging, tempfile.TemporaryDirectory() as photos:
        symphony_bias_image.build(import_photos(release, Path(photos)), staging / "images")
        import_audio(release, staging / "audio")
    return Path(out)
