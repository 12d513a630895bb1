"""Import the Symphony-Bias release's own stimuli (instrument-bias-evaluation), so the paper's photos
and recordings can be evaluated instead of ours.

Release layout: `instrument-photos/<name>/` (photos per instrument) and `instrument-audios/`
(1-6 mp3 per instrument, none for keyboard, irregular file names such as "E-Guitar 2.mp3").

    symphony-bench import-upstream --release DIR --out DIR
writes DIR/images (see symphony_bias_image) and DIR/audio (Hub layout, 16 kHz FLAC). Files are read
where they are in the release, so errors name the release's own files.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np

from symphony_bench.hub_upload import symphony_bias_image
from symphony_bench.hub_upload.symphony_bias_image import SourceImage
from symphony_bench.plugin.core.atomic import staged_directory
from symphony_bench.plugin.core.audio import SAMPLE_RATE, decode_audio, encode_flac, pcm_sha256, read_audio_file
from symphony_bench.plugin.core.errors import DataFileError
from symphony_bench.plugin.core.hub_folder import card_front_matter, write_hub_folder
from symphony_bench.plugin.core.instrument_names import single_instrument
from symphony_bench.plugin.core.vocabulary import load_instruments

AUDIO_SUFFIXES = {".mp3", ".wav", ".flac", ".ogg"}
UPSTREAM_LICENCE = "as stated by the Symphony-Bias release (instrument-bias-evaluation)"
KIND = "upstream-import"  # the kind of output folder (plugin.core.atomic)


def instrument_of(name: str) -> str | None:
    """Our instrument for an upstream file or folder name ("E-Guitar (2).mp3"), or None."""
    return single_instrument(Path(name).stem)


def _unmatched_error(folder: Path, names: list[str]) -> DataFileError:
    return DataFileError(f"{folder}: cannot tell the instrument of {', '.join(sorted(names))}")


def release_photos(release: Path) -> list[SourceImage]:
    """The photos of instrument-photos/<name>/, as the image builder takes them. Each image id is
    prefixed with its folder: "Violin/1.jpg" and "Violins/1.jpg" both survive."""
    photos = release / "instrument-photos"
    if not photos.is_dir():
        raise DataFileError(f"{photos}: not found (expected the release's instrument-photos folder)")
    folders = [p for p in sorted(photos.iterdir()) if p.is_dir()]
    unmatched = [p.name for p in folders if instrument_of(p.name) is None]
    if unmatched:
        raise _unmatched_error(photos, unmatched)
    images = []
    for folder in folders:
        instrument = instrument_of(folder.name)
        for image in symphony_bias_image.image_files(folder):
            images.append(SourceImage(instrument, image, f"{instrument.replace(' ', '_')}/{folder.name}__{image.name}",
                                      UPSTREAM_LICENCE, f"instrument-photos/{folder.name}/{image.name}"))
    symphony_bias_image.check_counts(photos, Counter(image.instrument for image in images))
    symphony_bias_image.refuse_outside_links(release, [image.path for image in images])
    return images


def _read_audio(path: Path):
    import librosa

    audio, rate = read_audio_file(path)
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
    symphony_bias_image.refuse_outside_links(release, files)
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
    """out/images and out/audio, written together: an error (naming the release's file) leaves nothing."""
    release = Path(release)
    with staged_directory(out, KIND, inputs=[release]) as staging:
        symphony_bias_image.write_image_set(staging / "images", release_photos(release))
        import_audio(release, staging / "audio")
    return Path(out)
