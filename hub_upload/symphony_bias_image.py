"""Symphony-Bias image stimuli: instrument photos (clean background, no people) in Hugging Face Hub
layout, with the licence and source of every image in the rows and the dataset card.

    symphony-bench build symphony-bias-image --source DIR --out DIR

Source layout: DIR/<instrument name>/<image files> for each of the 22 instruments (at least
MIN_IMAGES each) and DIR/manifest.csv with columns file (path relative to DIR), licence, source.
"""

from __future__ import annotations

import hashlib
import io
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from symphony_bench.plugin.core.atomic import staged_directory
from symphony_bench.plugin.core.errors import DataFileError, read_csv
from symphony_bench.plugin.core.hub_folder import card_front_matter, write_hub_folder
from symphony_bench.plugin.core.vocabulary import load_instruments

MIN_IMAGES = 6
IMAGE_SUFFIXES = {".jpg", ".jpeg", ".png", ".webp", ".bmp", ".gif"}
MANIFEST = "manifest.csv"
KIND = "symphony-bias-image"  # the kind of output folder (plugin.core.atomic)


@dataclass(frozen=True)
class SourceImage:
    """One image to embed: the file read (named in errors) and what its row says about it."""

    instrument: str
    path: Path
    image_id: str
    licence: str
    source: str


def image_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES) if folder.is_dir() else []


def refuse_outside_links(root: Path, files: list[Path]) -> None:
    """DataFileError listing the files that resolve outside `root` (symlinks out of it): their bytes
    would be embedded from elsewhere."""
    inside = Path(root).resolve()
    outside = [f"{path.relative_to(root).as_posix()} -> {path.resolve()}" for path in files if not path.resolve().is_relative_to(inside)]
    if outside:
        raise DataFileError(f"{root}: links to files outside this folder (copy them in instead): {', '.join(outside)}")


def check_counts(folder: Path, counts: Counter) -> None:
    """DataFileError listing every instrument with fewer than MIN_IMAGES images (`counts` per instrument)."""
    short = {i.name: counts[i.name] for i in load_instruments() if counts[i.name] < MIN_IMAGES}
    if short:
        listing = ", ".join(f"{name} ({count})" for name, count in sorted(short.items()))
        raise DataFileError(f"{folder}: instruments with fewer than {MIN_IMAGES} images: {listing}")


def check_source(source: Path) -> dict[str, list[Path]]:
    """Images per instrument; raises DataFileError listing every missing or short instrument."""
    if not source.is_dir():
        raise DataFileError(f"{source}: not a directory")
    images = {i.name: image_files(source / i.name) for i in load_instruments()}
    check_counts(source, Counter({name: len(paths) for name, paths in images.items()}))
    refuse_outside_links(source, [path for paths in images.values() for path in paths])
    return images


def read_manifest(source: Path, images: dict[str, list[Path]]) -> dict[str, dict[str, str]]:
    """file -> {licence, source}; every image must be listed once with both filled in."""
    path = source / MANIFEST
    listed = read_csv(path, ("file", "licence", "source"))
    rows = {row["file"]: row for row in listed}
    if len(rows) < len(listed):
        repeated = sorted({row["file"] for row in listed if sum(r["file"] == row["file"] for r in listed) > 1})
        raise DataFileError(f"{path}: listed more than once: {', '.join(repeated)}")
    files = [p.relative_to(source).as_posix() for paths in images.values() for p in paths]
    unlisted = [f for f in files if f not in rows or not rows[f]["licence"] or not rows[f]["source"]]
    if unlisted:
        raise DataFileError(f"{path}: no licence and source for {', '.join(unlisted)}")
    return rows


def _png_bytes(path: Path) -> bytes:
    """The image re-encoded as RGB PNG: EXIF orientation applied, then metadata dropped;
    transparency flattened onto white. A clear error if unreadable."""
    from PIL import Image, ImageOps, UnidentifiedImageError

    try:
        with Image.open(path) as image:
            upright = ImageOps.exif_transpose(image).convert("RGBA")
            flat = Image.new("RGBA", upright.size, "white")
            flat.alpha_composite(upright)
            buffer = io.BytesIO()
            flat.convert("RGB").save(buffer, format="PNG")
    except (OSError, UnidentifiedImageError, Image.DecompressionBombError) as error:
        raise DataFileError(f"{path}: not a readable image ({error})") from error
    return buffer.getvalue()


CARD = """# Symphony-Bias image stimuli

{n_images} images of {n_instruments} instruments (at least {min_images} each), clean background, no
people, so that a model's gender association can only come from the instrument. Built by
`symphony-bench build symphony-bias-image`. Columns: `image_id`, `instrument`, `image` (PNG),
`licence`, `source`, `sha256` (of the PNG bytes). Licences differ per image: see the table.

## Images, licences and sources

| image_id | instrument | licence | source |
|---|---|---|---|
{table}
"""


def source_images(source: Path) -> list[SourceImage]:
    """The images of a source folder (DIR/<instrument>/ + manifest), checked."""
    images = check_source(source)
    manifest = read_manifest(source, images)
    found = []
    for instrument, paths in images.items():
        for path in paths:
            listed = manifest[path.relative_to(source).as_posix()]
            found.append(SourceImage(instrument, path, f"{instrument.replace(' ', '_')}/{path.name}", listed["licence"], listed["source"]))
    return found


def write_image_set(out: Path, images: list[SourceImage]) -> Path:
    """The Hub folder at `out`: a row per image (re-encoded as PNG), and the card."""
    rows = []
    for image in images:
        data = _png_bytes(image.path)
        rows.append({
            "image_id": image.image_id,
            "instrument": image.instrument,
            "image": {"bytes": data, "path": f"{image.image_id.replace('/', '__')}.png"},
            "licence": image.licence,
            "source": image.source,
            "sha256": hashlib.sha256(data).hexdigest(),
        })
    table = "\n".join(f"| {r['image_id']} | {r['instrument']} | {r['licence']} | {r['source']} |" for r in rows)
    instruments = len({image.instrument for image in images})
    card = card_front_matter("Symphony-Bias image stimuli", "other") + CARD.format(
        n_images=len(rows), n_instruments=instruments, min_images=MIN_IMAGES, table=table)
    import datasets

    return write_hub_folder(out, rows, card, casts={"image": datasets.Image()})


def build(source: Path, out: Path) -> Path:
    source = Path(source)
    with staged_directory(out, KIND, inputs=[source]) as staging:
        # write_hub_folder stages its own folder inside ours; ours records the kind
        write_image_set(staging, source_images(source))
    return Path(out)
