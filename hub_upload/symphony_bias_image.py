"""Symphony-Bias image stimuli: instrument photos (clean background, no people) in Hugging Face Hub
layout, with the licence and source of every image in the rows and the dataset card.

    symphony-bench build symphony-bias-image --source DIR --out DIR

Source layout: DIR/<instrument name>/<image files> for each of the 22 instruments (at least
MIN_IMAGES each) and DIR/manifest.csv with columns file (path relative to DIR), licence, source.

Beside the card, SUMMARY_FILE (`stimulus_set.json`, see `set_summary`) says per instrument how many
stimuli the set holds, which instruments have none, which source names were mapped to which
instrument (stand-ins marked) and which files were ignored; the upstream import writes it for its
audio set too.
"""

from __future__ import annotations

import hashlib
import io
import json
from collections import Counter
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from pathlib import Path

from symphony_bench.plugin.core.atomic import staged_directory
from symphony_bench.plugin.core.errors import DataFileError, read_csv
from symphony_bench.plugin.core.hub_folder import card_front_matter, write_hub_folder
from symphony_bench.plugin.core.reporting import formula_safe, md
from symphony_bench.plugin.core.vocabulary import load_instruments

MIN_IMAGES = 6
IMAGE_SUFFIXES = {".jpg", ".jpeg", ".png", ".webp", ".bmp", ".gif"}
MANIFEST = "manifest.csv"
KIND = "symphony-bias-image"  # the kind of output folder (plugin.core.atomic)
SUMMARY_FILE = "stimulus_set.json"
# formats every Pillow reads, kept byte for byte (MPO: a camera JPEG with extra frames), and their suffix
KEPT_FORMATS = {
    "JPEG": "jpg",
    "MPO": "jpg",
    "PNG": "png",
    "WEBP": "webp",
    "GIF": "gif",
    "BMP": "bmp",
}
EXIF_ORIENTATION = 0x0112


@dataclass(frozen=True)
class SourceImage:
    """One image to embed: the file read (named in errors) and what its row says about it."""

    instrument: str
    path: Path
    image_id: str
    licence: str
    source: str
    stand_in: bool = False  # the source names another instrument standing in for `instrument`


@dataclass(frozen=True)
class NameMapping:
    """How a source file or folder name was read as one of the 22 instruments."""

    source: str
    instrument: str
    stand_in: bool


def image_files(folder: Path) -> list[Path]:
    return (
        sorted(p for p in folder.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
        if folder.is_dir()
        else []
    )


def refuse_outside_links(root: Path, files: list[Path]) -> None:
    """DataFileError listing the files that resolve outside `root` (symlinks out of it): their bytes
    would be embedded from elsewhere."""
    inside = Path(root).resolve()
    outside = [
        f"{path.relative_to(root).as_posix()} -> {path.resolve()}"
        for path in files
        if not path.resolve().is_relative_to(inside)
    ]
    if outside:
        raise DataFileError(
            f"{root}: links to files outside this folder (copy them in instead): {', '.join(outside)}"
        )


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
        repeated = sorted(
            {row["file"] for row in listed if sum(r["file"] == row["file"] for r in listed) > 1}
        )
        raise DataFileError(f"{path}: listed more than once: {', '.join(repeated)}")
    files = [p.relative_to(source).as_posix() for paths in images.values() for p in paths]
    unlisted = [
        f for f in files if f not in rows or not rows[f]["licence"] or not rows[f]["source"]
    ]
    if unlisted:
        raise DataFileError(f"{path}: no licence and source for {', '.join(unlisted)}")
    return rows


@dataclass(frozen=True)
class StoredImage:
    """What a row embeds: the file's own bytes, or a PNG re-encode and why (`stored_as`)."""

    data: bytes
    suffix: str
    stored_as: str
    exif_orientation: int  # the tag in the stored bytes: 1 = upright as stored
    source_sha256: str


def stored_image(path: Path) -> StoredImage:
    """The file's bytes, kept unless a decoder could not show them as the old PNG pipeline did (see
    `_reencode_reason`). Decoded once here, EXIF orientation applied as datasets' decoder does, so an
    unreadable file is a clear error naming it."""
    from PIL import Image, ImageOps, UnidentifiedImageError

    original = path.read_bytes()
    try:
        with Image.open(io.BytesIO(original)) as image:
            orientation = image.getexif().get(EXIF_ORIENTATION, 1)
            upright = ImageOps.exif_transpose(image)  # a copy: decodes every pixel
            reason = _reencode_reason(image.format, upright)
            suffix = KEPT_FORMATS.get(image.format)
    except (
        OSError,
        SyntaxError,
        ValueError,
        UnidentifiedImageError,
        Image.DecompressionBombError,
    ) as error:
        raise DataFileError(f"{path}: not a readable image ({error})") from error
    source_sha256 = hashlib.sha256(original).hexdigest()
    if reason:
        return StoredImage(_white_backed_png(upright), "png", reason, 1, source_sha256)
    return StoredImage(
        original,
        suffix,
        "original",
        orientation if orientation in range(1, 9) else 1,
        source_sha256,
    )


def _reencode_reason(image_format: str, upright) -> str | None:
    if image_format not in KEPT_FORMATS:
        return f"png: {image_format} is not read by every Pillow"
    if (
        upright.has_transparency_data
        and upright.convert("RGBA").getchannel("A").getextrema()[0] < 255
    ):
        # a model is given image.convert("RGB"), which shows what lies under transparent pixels (often black)
        return "png: transparency flattened onto white"
    return None


def _white_backed_png(image) -> bytes:
    from PIL import Image

    rgba = image.convert("RGBA")
    flat = Image.new("RGBA", rgba.size, "white")
    flat.alpha_composite(rgba)
    buffer = io.BytesIO()
    flat.convert("RGB").save(buffer, format="PNG")
    return buffer.getvalue()


CARD = """# Symphony-Bias image stimuli

{n_images} images of {n_instruments} instruments (at least {min_images} each), clean background, no
people, so that a model's gender association can only come from the instrument. Built by
`symphony-bench build symphony-bias-image`. Licences differ per image: see the table.

Columns: `image_id`, `instrument`, `image`, `licence`, `source`, `source_sha256` (of the file read),
`sha256` (of the stored bytes), `stored_as`, `exif_orientation`, `stand_in`.

Each image keeps its file's own bytes (`stored_as` = `original`, `sha256` = `source_sha256`) in its
real format, whatever its file name says. EXIF orientation stays in those bytes (`exif_orientation`):
datasets (2.19 and later) and the Hub viewer show the image upright; a bare `PIL.Image.open` does
not (apply `PIL.ImageOps.exif_transpose`). Re-encoded as PNG, upright, and said so in `stored_as`:
images with transparent pixels (flattened onto white: a model is shown the image converted to RGB,
which reveals what lies under transparent pixels) and formats outside {kept_formats} (AVIF: Pillow
reads it only from 11.3). Here: {n_kept} kept, {n_reencoded} re-encoded.
{summary}
## Images, licences and sources

| image_id | instrument | licence | source | stored as |
|---|---|---|---|---|
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
            found.append(
                SourceImage(
                    instrument,
                    path,
                    f"{instrument.replace(' ', '_')}/{path.name}",
                    listed["licence"],
                    listed["source"],
                )
            )
    return found


def unused_files(root: Path, used: Iterable[Path], relative_to: Path) -> list[str]:
    """Files under `root` that no row embeds (a stray .DS_Store, a misnamed folder), relative paths."""
    used = set(used)
    return sorted(
        p.relative_to(relative_to).as_posix()
        for p in Path(root).rglob("*")
        if p.is_file() and p not in used
    )


def set_summary(
    modality: str,
    instruments: list[str],
    name_mappings: Iterable[NameMapping] = (),
    ignored_files: Iterable[str] = (),
) -> dict:
    """What SUMMARY_FILE holds: `instruments` has one entry per stimulus."""
    counts = Counter(instruments)
    names = [instrument.name for instrument in load_instruments()]
    return {
        "modality": modality,
        "stimuli_per_instrument": {name: counts[name] for name in names},
        "missing_instruments": [name for name in names if not counts[name]],
        "name_mappings": [asdict(mapping) for mapping in name_mappings],
        "ignored_files": sorted(ignored_files),
    }


def write_summary(out: Path, summary: dict) -> None:
    (Path(out) / SUMMARY_FILE).write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")


def summary_markdown(summary: dict, stimuli: str) -> str:
    """The card's coverage section: missing instruments, counts, name mappings, ignored files."""
    counts = ", ".join(
        f"{md(name)} {count}" for name, count in summary["stimuli_per_instrument"].items()
    )
    lines = [
        "",
        "## Coverage",
        "",
        f"No {stimuli} for: {', '.join(map(md, summary['missing_instruments'])) or 'none'}.",
        "",
        f"{stimuli.capitalize()} per instrument: {counts}.",
    ]
    if summary["name_mappings"]:
        lines += [
            "",
            "Source names read as instruments (a stand-in is another instrument used in its place):",
            "",
            "| source | instrument | mapping |",
            "|---|---|---|",
        ]
        lines += [
            f"| {md(m['source'])} | {md(m['instrument'])} | "
            f"{'stand-in' if m['stand_in'] else 'same instrument'} |"
            for m in summary["name_mappings"]
        ]
    ignored = ", ".join(map(md, summary["ignored_files"])) or "none"
    lines += [
        "",
        f"Files ignored: {ignored}.",
        "",
        f"The same, machine-readable: `{SUMMARY_FILE}` beside this card.",
        "",
    ]
    return "\n".join(lines)


def _image_row(image: SourceImage) -> dict:
    stored = stored_image(image.path)
    name = image.image_id.replace("/", "__")
    return {
        "image_id": image.image_id,
        "instrument": image.instrument,
        "image": {
            "bytes": stored.data,
            "path": name
            if name.lower().endswith(f".{stored.suffix}")
            else f"{name}.{stored.suffix}",
        },
        "licence": formula_safe(image.licence),
        "source": formula_safe(image.source),
        "source_sha256": stored.source_sha256,
        "sha256": hashlib.sha256(stored.data).hexdigest(),
        "stored_as": stored.stored_as,
        "exif_orientation": stored.exif_orientation,
        "stand_in": image.stand_in,
    }


CARD_COLUMNS = ("image_id", "instrument", "licence", "source", "stored_as")


def write_image_set(
    out: Path,
    images: list[SourceImage],
    name_mappings: Iterable[NameMapping] = (),
    ignored_files: Iterable[str] = (),
) -> Path:
    """The Hub folder at `out`: a row per image (its own bytes where possible), the card, SUMMARY_FILE."""
    rows = [_image_row(image) for image in images]
    summary = set_summary(
        "image", [row["instrument"] for row in rows], name_mappings, ignored_files
    )
    table = "\n".join("| " + " | ".join(md(r[key]) for key in CARD_COLUMNS) + " |" for r in rows)
    n_kept = sum(row["stored_as"] == "original" for row in rows)
    card = card_front_matter("Symphony-Bias image stimuli", "other") + CARD.format(
        n_images=len(rows),
        n_instruments=len({image.instrument for image in images}),
        min_images=MIN_IMAGES,
        kept_formats=", ".join(sorted(set(KEPT_FORMATS) - {"MPO"})),
        n_kept=n_kept,
        n_reencoded=len(rows) - n_kept,
        summary=summary_markdown(summary, "images"),
        table=table,
    )
    import datasets

    write_hub_folder(out, rows, card, casts={"image": datasets.Image()})
    write_summary(out, summary)
    return Path(out)


def build(source: Path, out: Path) -> Path:
    source = Path(source)
    with staged_directory(out, KIND, inputs=[source]) as staging:
        # write_hub_folder stages its own folder inside ours; ours records the kind
        images = source_images(source)
        ignored = unused_files(
            source, [source / MANIFEST, *(image.path for image in images)], source
        )
        write_image_set(staging, images, ignored_files=ignored)
    return Path(out)
