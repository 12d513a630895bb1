"""Reading an OpenMIC-2018 release (an extracted folder or the .tgz): file names, labels, genres,
attribution and split per clip, with bad rows raised or (--skip-bad) recorded; and the confusable
groups file."""

from __future__ import annotations

import ast
import json
import re
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
    VGGish features and the .npz, into `scratch`, which the caller removes)."""
    source = Path(source)
    if source.is_dir():
        return find_release_root(source)
    if not source.is_file():
        raise DataFileError(f"{source}: no such folder or archive")
    folder = Path(scratch) / EXTRACTED
    try:
        with tarfile.open(source, "r|*") as archive:
            for member in archive:
                if member.isfile() and ARCHIVE_MEMBER.search(member.name):
                    archive.extract(
                        member, folder, filter="data"
                    )  # filter: Python >= 3.10.12 / 3.11.4 (pyproject)
    except (tarfile.TarError, EOFError, zlib.error, OSError) as error:
        raise DataFileError(f"{source}: cannot read the archive ({error})") from error
    return find_release_root(folder)


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
