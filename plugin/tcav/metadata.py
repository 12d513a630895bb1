"""The tracks CSV: one row per track with its id, genre, concept attributes (e.g. gender, language)
and, for `embed`, its audio file; and the COLUMN=VALUE concepts an analysis tests."""

from __future__ import annotations

import collections
import csv
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from symphony_bench.plugin.core.errors import DataFileError
from symphony_bench.plugin.tcav.defaults import DEFAULT_CONCEPT_COLUMNS


@dataclass(frozen=True)
class Metadata:
    path: Path
    track_ids: tuple[str, ...]
    genres: np.ndarray  # (n,) str
    attributes: dict  # concept column -> (n,) str, "" where unknown
    audio: (
        tuple[Path, ...] | None
    )  # resolved against the CSV's folder; None without an audio column


def read_metadata(
    path: Path,
    id_column: str = "track_id",
    genre_column: str = "genre",
    concept_columns=DEFAULT_CONCEPT_COLUMNS,
    audio_column: str | None = None,
) -> Metadata:
    """One row per track. Track ids must be unique and every row needs a genre (and an audio path
    when `audio_column` is given); an empty concept value means unknown."""
    path = Path(path)
    columns = [id_column, genre_column, *concept_columns] + ([audio_column] if audio_column else [])
    rows = _read_rows(path, columns)
    ids = [row[id_column] for row in rows]
    for line, row in enumerate(rows, start=2):
        for column in [id_column, genre_column] + ([audio_column] if audio_column else []):
            if not row[column]:
                raise DataFileError(f"{path}, line {line}: empty {column!r}")
    duplicates = sorted(i for i, count in collections.Counter(ids).items() if count > 1)
    if duplicates:
        raise DataFileError(f"{path}: duplicate track ids {duplicates[:5]}")
    audio = (
        tuple((path.parent / row[audio_column]).resolve() for row in rows) if audio_column else None
    )
    return Metadata(
        path,
        tuple(ids),
        np.array([row[genre_column] for row in rows], dtype=str),
        {c: np.array([row[c] for row in rows], dtype=str) for c in concept_columns},
        audio,
    )


def _read_rows(path: Path, columns) -> list[dict]:
    try:
        with open(path, newline="", encoding="utf-8-sig") as handle:
            reader = csv.DictReader(handle)
            present = reader.fieldnames or []
            for column in columns:
                if column not in present:
                    raise DataFileError(f"{path}: no column {column!r}; the columns are {present}")
            rows = [{c: (row[c] or "").strip() for c in columns} for row in reader]
    except (OSError, UnicodeDecodeError, csv.Error) as error:
        raise DataFileError(f"{path}: cannot read ({error})") from error
    if not rows:
        raise DataFileError(f"{path}: no tracks")
    return rows


def parse_concepts(specs, metadata: Metadata) -> list[tuple[str, str]]:
    """COLUMN=VALUE strings -> (column, value); none given: every value of every concept column."""
    if not specs:
        return [
            (c, v) for c, values in metadata.attributes.items() for v in sorted(set(values) - {""})
        ]
    concepts = []
    for spec in specs:
        column, sep, value = spec.partition("=")
        if not sep or column not in metadata.attributes:
            columns = sorted(metadata.attributes)
            raise ValueError(
                f"concept {spec!r}: expected COLUMN=VALUE with COLUMN one of {columns}"
            )
        if value not in set(metadata.attributes[column]):
            raise DataFileError(f"{metadata.path}: no track has {column}={value!r}")
        concepts.append((column, value))
    return concepts
