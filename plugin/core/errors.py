"""The error every bad data file raises, and CSV reading whose messages name the file and line."""

from __future__ import annotations

import csv
from pathlib import Path


class DataFileError(ValueError):
    """A data file is missing or malformed; the message names the file."""


def read_csv(path: Path, required: tuple[str, ...]) -> list[dict[str, str]]:
    """Rows as {column: stripped value}; a missing column or an unreadable file is a DataFileError."""
    try:
        with open(path, newline="", encoding="utf-8") as handle:
            reader = csv.DictReader(handle)
            missing = set(required) - set(reader.fieldnames or ())
            if missing:
                raise DataFileError(f"{path}: missing columns {sorted(missing)}")
            return [{k: (v or "").strip() for k, v in row.items()} for row in reader]
    except (OSError, UnicodeDecodeError, csv.Error) as error:
        raise DataFileError(f"{path}: cannot read ({error})") from error
