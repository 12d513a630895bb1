"""Reading an OpenMIC-2018 release (an extracted folder or the .tgz): file names, labels, genres,
attribution and split per clip, with bad rows raised or (--skip-bad) recorded; and the confusable
groups file."""

from __future__ import annotations

import ast
import bz2
import gzip
import json
import lzma
import re
import shutil
import tarfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path

from symphony_bench.plugin.core.errors import DataFileError, read_csv
from symphony_bench.plugin.core.vocabulary import CONFUSABLE_GROUPS_CSV

CLASS_MAP = "class-map.json"
LABELS_CSV = "openmic-2018-aggregated-labels.csv"
METADATA_CSV = "openmic-2018-metadata.csv"
SPLITS = {"train": "partitions/split01_train.csv", "test": "partitions/split01_test.csv"}
LABEL_COLUMNS = ("sample_key", "instrument", "relevance", "num_responses")
SOURCE_COLUMNS = ("artist_name", "track_title", "track_url", "license_title", "license_url")
KEY_PATTERN = r"\d{6}_\d+"
ARCHIVE_MEMBER = re.compile(
    r"(^|/)(class-map\.json|openmic-2018-aggregated-labels\.csv|openmic-2018-metadata\.csv|partitions/[^/]+\.csv|audio/[^/]+/[^/]+\.ogg)$"
)
GROUPS_FILE = CONFUSABLE_GROUPS_CSV  # the confusable groups this project defines (load_groups)
EXTRACTED = "openmic-source"  # a .tgz source's extraction, in the build's scratch folder


@dataclass(frozen=True)
class Skipped:
    path: str
    where: str
    reason: str


@dataclass(frozen=True)
class Clip:
    key: str
    labels: dict[str, float]  # annotated instruments only
    genres: tuple[str, ...]  # FMA genre titles; empty: no usable genre metadata
    split: str  # OpenMIC split01 partition: "train", "test" or ""
    source: dict[str, str]  # attribution and licence (SOURCE_COLUMNS)

    def with_relevance(self, relevance: float) -> list[str]:
        return sorted(instrument for instrument, value in self.labels.items() if value == relevance)


@dataclass(frozen=True)
class Group:
    name: str
    members: tuple[str, ...]
    rationale: str


@dataclass
class Release:
    root: Path
    classes: tuple[str, ...]
    clips: dict[str, Clip]  # sorted by sample key
    skipped: list[Skipped] = field(default_factory=list)


def audio_path(root: Path, key: str) -> Path:
    return Path(root) / "audio" / key[:3] / f"{key}.ogg"


def find_release_root(folder: Path) -> Path:
    """`folder` itself, or its one subfolder, holding class-map.json."""
    if (folder / CLASS_MAP).is_file():
        return folder
    candidates = (
        [child for child in sorted(folder.iterdir()) if (child / CLASS_MAP).is_file()]
        if folder.is_dir()
        else []
    )
    if len(candidates) != 1:
        raise DataFileError(
            f"{folder}: no {CLASS_MAP} here or in exactly one subfolder; expected an extracted OpenMIC-2018 release"
        )
    return candidates[0]


def release_root(source: Path, scratch: Path) -> Path:
    """The release folder of `source` (a folder or a .tgz; a .tgz is extracted, without the
    VGGish features and the .npz, into `scratch`, which the caller removes). The archive is read as
    a stream through a bounded buffer and its extraction is bounded by the ARCHIVE_LIMITS; on any
    error the partial extraction is removed and the message names the archive (and the member)."""
    source = Path(source)
    if source.is_dir():
        return find_release_root(source)
    if not source.is_file():
        raise DataFileError(f"{source}: no such folder or archive")
    folder = Path(scratch) / EXTRACTED
    try:
        extract_release(source, folder)
        return archive_release_root(source, folder)
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise


@dataclass(frozen=True)
class ArchiveLimits:
    """Bounds on what a release archive may make `release_root` read and write. The OpenMIC-2018
    v1.0.0 .tgz is 2.6 GB in all; the builder extracts its 20,000 ten-second Ogg clips (some
    hundred kB each) and five CSV/JSON files (the largest, openmic-2018-metadata.csv, has one row of
    41 FMA fields per clip), and skips the VGGish features and the .npz. Each bound is far above
    what that release needs (about 50x for a clip, several times for the largest CSV and the
    totals), and stops a broken or hostile archive (a member that decompresses to gigabytes) with
    one error before it fills memory or disk."""

    audio_member_bytes: int = 16 * 2**20  # one audio/*/*.ogg clip
    member_bytes: int = 256 * 2**20  # one CSV or JSON file
    extracted_bytes: int = 8 * 2**30  # all extracted members together
    extracted_members: int = 100_000  # extracted members (zero-byte ones too)
    archive_bytes: int = 32 * 2**30  # all members' contents, skipped ones too (read, not kept)


ARCHIVE_LIMITS = ArchiveLimits()
_DECOMPRESSORS = (  # magic bytes -> a reader of the decompressed stream of a binary file object
    (b"\x1f\x8b", lambda raw: gzip.GzipFile(fileobj=raw, mode="rb")),
    (b"BZh", lambda raw: bz2.BZ2File(raw, mode="rb")),
    (b"\xfd7zXZ\x00", lambda raw: lzma.LZMAFile(raw, mode="rb")),
)


def _mebibytes(size: int) -> str:
    return f"{size / 2**20:,.1f} MiB" if size >= 2**20 else f"{size:,} bytes"


def extract_release(source: Path, folder: Path, limits: ArchiveLimits | None = None) -> None:
    """Extract the members the builder reads from the archive `source` (tar, optionally gzip, bzip2
    or xz compressed) into `folder`. The decompressor runs outside tarfile, which reads the plain
    tar stream in small blocks: tarfile's own stream mode ("r|*") decompresses without an output
    bound, so a member of zeros costs memory in proportion to its size and time far beyond it.
    Members over `limits` are refused from their header, before any of their data is written, with
    one DataFileError naming the archive and the member (ARCHIVE:MEMBER)."""
    limits = limits or ARCHIVE_LIMITS
    extracted_bytes = extracted_members = archive_bytes = 0
    try:
        with open(source, "rb") as raw:
            head = raw.read(6)
            raw.seek(0)
            opener = next((o for magic, o in _DECOMPRESSORS if head.startswith(magic)), None)
            stream = opener(raw) if opener else raw
            with stream, tarfile.open(fileobj=stream, mode="r|") as archive:
                for member in archive:
                    archive_bytes += member.size
                    if archive_bytes > limits.archive_bytes:
                        raise DataFileError(
                            f"{source}:{member.name}: the archive's members hold more than "
                            f"{_mebibytes(limits.archive_bytes)} up to here; no OpenMIC-2018 "
                            "release is that large"
                        )
                    if not (member.isfile() and ARCHIVE_MEMBER.search(member.name)):
                        continue
                    audio = member.name.endswith(".ogg")
                    limit = limits.audio_member_bytes if audio else limits.member_bytes
                    if member.size > limit:
                        kind = "one audio clip" if audio else "one release file"
                        raise DataFileError(
                            f"{source}:{member.name}: the member is {_mebibytes(member.size)}, "
                            f"over the {_mebibytes(limit)} limit for {kind}"
                        )
                    extracted_bytes += member.size
                    extracted_members += 1
                    if extracted_bytes > limits.extracted_bytes:
                        raise DataFileError(
                            f"{source}:{member.name}: this member brings the extracted files to "
                            f"{_mebibytes(extracted_bytes)}, over the "
                            f"{_mebibytes(limits.extracted_bytes)} limit for all of them"
                        )
                    if extracted_members > limits.extracted_members:
                        raise DataFileError(
                            f"{source}:{member.name}: this member would be extracted file "
                            f"{extracted_members:,}, over the limit of "
                            f"{limits.extracted_members:,} files"
                        )
                    # filter: Python >= 3.10.12 / 3.11.4 (pyproject)
                    archive.extract(member, folder, filter="data")
    except (tarfile.TarError, EOFError, zlib.error, lzma.LZMAError, OSError) as error:
        raise DataFileError(f"{source}: cannot read the archive ({error})") from error


def archive_release_root(source: Path, folder: Path) -> Path:
    """`find_release_root` on an archive's extraction, with errors that name the archive (the
    extraction is deleted with the build's scratch folder)."""
    if (folder / CLASS_MAP).is_file():
        return folder
    roots = (
        [child for child in sorted(folder.iterdir()) if (child / CLASS_MAP).is_file()]
        if folder.is_dir()
        else []
    )
    if len(roots) == 1:
        return roots[0]
    if roots:
        found = ", ".join(f"{root.name}/{CLASS_MAP}" for root in roots)
        raise DataFileError(
            f"{source}: the archive holds {len(roots)} releases ({found}); expected one "
            "OpenMIC-2018 release, at its top or in one top-level folder"
        )
    raise DataFileError(
        f"{source}: no {CLASS_MAP} at the archive's top or in one top-level folder; expected "
        "the OpenMIC-2018 release .tgz"
    )


def member_names(source: Path, scratch: Path):
    """A function that shows paths inside a .tgz's extraction (gone after the build) as ARCHIVE:MEMBER
    in a message; other text is unchanged."""
    extracted = f"{Path(scratch) / EXTRACTED}/"
    return lambda text: text.replace(extracted, f"{source}:")


def download_release(data_home: Path) -> None:
    """Fetch (and checksum) the release into `data_home` with mirdata's openmic2018 loader."""
    try:
        import mirdata
    except ImportError as error:
        raise ValueError("--download needs the mirdata package: pip install mirdata") from error
    mirdata.initialize("openmic2018", data_home=str(data_home)).download()


def read_frame(path: Path, columns: tuple[str, ...]):
    """The named columns as strings ("" where a field is empty or missing)."""
    import pandas as pd

    try:
        return pd.read_csv(path, usecols=list(columns), dtype=str, keep_default_na=False)
    except FileNotFoundError as error:
        raise DataFileError(f"{path}: missing from the release") from error
    except ValueError as error:  # missing columns, and pandas' ParserError (unclosed quote...)
        raise DataFileError(f"{path}: cannot read ({error})") from error


def report_problems(
    path: Path, problems: list[tuple[str, str]], skipped: list[Skipped] | None
) -> None:
    """Raise on the first problem, or with --skip-bad (`skipped` not None) record them all."""
    if problems and skipped is None:
        where, reason = problems[0]
        more = (
            f" (and {len(problems) - 1} more; --skip-bad skips and lists them)"
            if len(problems) > 1
            else ""
        )
        raise DataFileError(f"{path}, {where}: {reason}{more}")
    if skipped is not None:
        skipped.extend(Skipped(str(path), where, reason) for where, reason in problems)


def load_class_map(root: Path) -> tuple[str, ...]:
    path = root / CLASS_MAP
    try:
        classes = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise DataFileError(f"{path}: cannot read ({error})") from error
    if not isinstance(classes, dict) or not classes:
        raise DataFileError(f"{path}: expected a JSON object of instrument -> index")
    return tuple(sorted(classes, key=classes.get))


def load_labels(
    path: Path, classes: tuple[str, ...], skipped: list[Skipped] | None
) -> dict[str, dict[str, float]]:
    import pandas as pd

    frame = read_frame(path, LABEL_COLUMNS)
    relevance = pd.to_numeric(frame["relevance"], errors="coerce")
    responses = pd.to_numeric(frame["num_responses"], errors="coerce")
    checks = [
        ((frame == "").any(axis=1), "incomplete row (truncated file?)", "sample_key"),
        (~frame["sample_key"].str.fullmatch(KEY_PATTERN), "malformed sample_key", "sample_key"),
        (
            ~frame["instrument"].isin(classes),
            f"unknown instrument (not in {CLASS_MAP})",
            "instrument",
        ),
        (~relevance.between(0.0, 1.0), "relevance is not a number in [0, 1]", "relevance"),
        (~(responses >= 0), "num_responses is not a count", "num_responses"),
        (
            frame.duplicated(["sample_key", "instrument"]),
            "second label for this sample_key and instrument",
            "instrument",
        ),
    ]
    bad = pd.Series(False, index=frame.index)
    problems = []
    for mask, reason, column in checks:
        for index in frame.index[mask & ~bad]:
            problems.append((int(index), f"{reason}: {frame.at[index, column]!r}"))
        bad |= mask
    report_problems(
        path, [(f"line {index + 2}", reason) for index, reason in sorted(problems)], skipped
    )
    labels: dict[str, dict[str, float]] = {}
    good = ~bad
    for key, instrument, value in zip(
        frame["sample_key"][good], frame["instrument"][good], relevance[good], strict=True
    ):
        labels.setdefault(key, {})[instrument] = float(value)
    return labels


def parse_genres(text: str) -> tuple[str, ...]:
    """Genre titles from FMA's `track_genres` (a Python-literal list of dicts; "" or "[]": none)."""
    if not text.strip():
        return ()
    value = ast.literal_eval(text)
    if not isinstance(value, list) or not all(
        isinstance(item, dict) and "genre_title" in item for item in value
    ):
        raise ValueError("not a list of {genre_id, genre_title, genre_url} dicts")
    return tuple(sorted({str(item["genre_title"]).strip() for item in value} - {""}))


def load_metadata(
    path: Path, skipped: list[Skipped] | None
) -> dict[str, tuple[tuple[str, ...], dict[str, str]]]:
    """sample_key -> (genre titles, attribution and licence fields)."""
    frame = read_frame(path, ("sample_key", "track_genres", *SOURCE_COLUMNS))
    metadata, problems = {}, []
    for index, row in zip(frame.index, frame.itertuples(index=False), strict=True):
        where = f"row {index + 1} (sample_key {row.sample_key!r})"
        if not re.fullmatch(KEY_PATTERN, row.sample_key):
            problems.append((where, "missing or malformed sample_key (truncated file?)"))
        elif row.sample_key in metadata:
            problems.append((where, "second row for this sample_key"))
        else:
            try:
                genres = parse_genres(row.track_genres)
            except (ValueError, SyntaxError, TypeError, RecursionError, MemoryError) as error:
                problems.append(
                    (where, f"track_genres is not a Python-literal genre list ({error})")
                )
                continue
            metadata[row.sample_key] = (
                genres,
                {column: getattr(row, column) for column in SOURCE_COLUMNS},
            )
    report_problems(path, problems, skipped)
    return metadata


def load_splits(root: Path) -> dict[str, str]:
    splits = {}
    for split, name in SPLITS.items():
        path = root / name
        try:
            keys = path.read_text(encoding="utf-8").split()
        except OSError as error:
            raise DataFileError(f"{path}: cannot read ({error})") from error
        splits.update(dict.fromkeys(keys, split))
    return splits


def load_release(root: Path, skip_bad: bool) -> Release:
    skipped: list[Skipped] | None = [] if skip_bad else None
    classes = load_class_map(root)
    labels = load_labels(root / LABELS_CSV, classes, skipped)
    metadata = load_metadata(root / METADATA_CSV, skipped)
    unlisted = sorted(labels.keys() - metadata.keys())
    report_problems(
        root / METADATA_CSV,
        [(f"sample_key {key}", "no metadata row for this labelled clip") for key in unlisted],
        skipped,
    )
    splits = load_splits(root)
    clips = {
        key: Clip(key, labels[key], metadata[key][0], splits.get(key, ""), metadata[key][1])
        for key in sorted(labels.keys() & metadata.keys())
    }
    if not clips:
        raise DataFileError(f"{root / LABELS_CSV}: no usable labelled clip")
    return Release(root, classes, clips, skipped or [])


def load_groups(path: Path, classes: tuple[str, ...]) -> list[Group]:
    groups = []
    for line, row in enumerate(
        read_csv(Path(path), ("group_name", "instruments", "rationale")), start=2
    ):
        members = tuple(member.strip() for member in row["instruments"].split(";"))
        unknown = sorted(set(members) - set(classes))
        if unknown:
            raise DataFileError(
                f"{path}, line {line}: unknown instrument {unknown} (not in the release's {CLASS_MAP})"
            )
        if len(set(members)) < 4 or len(set(members)) != len(members):
            raise DataFileError(
                f"{path}, line {line}: a group needs at least 4 distinct instruments, got {list(members)}"
            )
        groups.append(Group(row["group_name"], members, row["rationale"]))
    if not groups:
        raise DataFileError(f"{path}: no groups")
    return groups
