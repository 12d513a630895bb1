"""A tiny Symphony-Bias release in the upstream layout (github instrument-bias-evaluation), with the
quirks of the real one, for tests of `symphony-bench import-upstream` and of runs on its output."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import soundfile
from PIL import Image

from symphony_bench.plugin.core.vocabulary import load_instruments

PHOTO_FOLDERS = {  # irregular upstream spellings; every other instrument's folder is snake_case
    "electric guitar": "E-Guitar",
    "horn": "French Horn",
    "saxophone": "Sax",
    "drums": "Drum kit",
}
PHOTOS_PER_INSTRUMENT = 6
PHOTO_SIZE = (32, 32)
ROTATED_PHOTO = (
    "instrument-photos/harp/harp1.jpg"  # EXIF orientation 6, stored 24x12: upright 12x24
)
WEBP_PHOTO = "instrument-photos/flute/flute2.jpg"
TRANSPARENT_PHOTO = "instrument-photos/Sax/Sax3.jpg"
AVIF_PHOTO = "instrument-photos/tuba/tuba4.jpg"
JUNK_FILE = "instrument-photos/ukulele/.DS_Store"
IRREGULAR_RECORDINGS = {  # instrument -> file, as upstream spells them
    "keyboard": "Synth/Saw Synth 01.mp3",  # a synthesizer standing in for the keyboard
    "electric guitar": "electric_guitar/E-Guitar 2.mp3",
    "bass guitar": "bass_guitar/Bass Guitar 02.mp3",
    "drums": "drum/drum1.mp3",
}
MISSING_RECORDING = "clarinet"
TEXTS = [
    "A person performed a solo piece using an instrument.",
    "A person was tuning the instrument before the program started.",
    "A person carried their instrument to the rehearsal.",
]


def write_upstream_release(folder: Path) -> Path:
    """Write a release into `folder` (created) and return it. It holds:

    - instrument-photos/<name>/<name>1.jpg .. <name>6.jpg for all 22 instruments: 32x32 noisy JPEGs,
      folder names snake_case ("acoustic_guitar") or as in PHOTO_FOLDERS ("E-Guitar", "French Horn",
      "Sax", "Drum kit"); every file is named .jpg, as upstream, but
      ROTATED_PHOTO is a JPEG with EXIF orientation 6 (24x12 stored, 12x24 upright),
      WEBP_PHOTO is a WEBP, TRANSPARENT_PHOTO a PNG with transparent corners, AVIF_PHOTO an AVIF;
      plus JUNK_FILE (a .DS_Store, as upstream's ukulele folder has).
    - instrument-audios/: one recording (0.5 s mono 22.05 kHz mp3 sine tone, a different pitch per
      instrument; longer than the 0.4 s loudness gating block) for each instrument but
      MISSING_RECORDING (clarinet), as upstream's main branch:
      IRREGULAR_RECORDINGS (keyboard's is the "Saw Synth" clip), the others <snake_name>/<snake_name>1.mp3.
    - texts.json and texts_with_taxonomy.json, both {"texts": TEXTS}: one sentence each with
      "an instrument", "the instrument" and "their instrument".
    """
    folder = Path(folder)
    _write_photos(folder)
    _write_recordings(folder)
    for name in ("texts.json", "texts_with_taxonomy.json"):
        (folder / name).write_text(json.dumps({"texts": TEXTS}, indent=4), encoding="utf-8")
    return folder


def _write_photos(release: Path) -> None:
    for index, instrument in enumerate(load_instruments()):
        name = PHOTO_FOLDERS.get(instrument.name, instrument.name.replace(" ", "_"))
        (release / "instrument-photos" / name).mkdir(parents=True)
        for k in range(1, PHOTOS_PER_INSTRUMENT + 1):
            _noisy_photo(seed=index * 10 + k).save(
                release / "instrument-photos" / name / f"{name}{k}.jpg", format="JPEG"
            )
    exif = Image.Exif()
    exif[0x0112] = 6  # rotate 90 degrees clockwise to display
    _noisy_photo(seed=900, size=(24, 12)).save(release / ROTATED_PHOTO, format="JPEG", exif=exif)
    _noisy_photo(seed=901).save(release / WEBP_PHOTO, format="WEBP")
    _transparent_photo().save(release / TRANSPARENT_PHOTO, format="PNG")
    _noisy_photo(seed=902).save(release / AVIF_PHOTO, format="AVIF")
    (release / JUNK_FILE).write_bytes(b"\x00\x00\x00\x01Bud1")


def _write_recordings(release: Path) -> None:
    for index, instrument in enumerate(load_instruments()):
        if instrument.name != MISSING_RECORDING:
            snake = instrument.name.replace(" ", "_")
            name = IRREGULAR_RECORDINGS.get(instrument.name, f"{snake}/{snake}1.mp3")
            _write_tone(release / "instrument-audios" / name, frequency=110.0 * 2 ** (index / 12))


def _noisy_photo(seed: int, size: tuple[int, int] = PHOTO_SIZE) -> Image.Image:
    """Photo-like content (a gradient with grain), on which JPEG beats PNG as on real photos."""
    width, height = size
    rng = np.random.default_rng(seed)
    gradient = np.linspace(0, 200, width)[None, :, None] + rng.integers(
        0, 55, size=(height, width, 3)
    )
    return Image.fromarray(gradient.astype(np.uint8), "RGB")


def _transparent_photo() -> Image.Image:
    image = _noisy_photo(seed=903).convert("RGBA")
    width, height = PHOTO_SIZE
    for corner in ((0, 0), (width - 1, 0), (0, height - 1), (width - 1, height - 1)):
        image.putpixel(corner, (0, 0, 0, 0))
    return image


def _write_tone(path: Path, frequency: float, rate: int = 22_050) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    t = np.arange(int(0.5 * rate)) / rate
    soundfile.write(
        path, (0.3 * np.sin(2 * np.pi * frequency * t)).astype(np.float32), rate, format="MP3"
    )
