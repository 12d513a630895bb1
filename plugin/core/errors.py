"""The error every bad data file raises, and CSV reading whose messages name the file and line."""

from __future__ import annotations

import csv
from pathlib import Path


class DataFileError(ValueError):
    """A data file is missing or malformed; the message names the file."""


def read_csv(path: Path, required: tuple[str, ...]) -> list[dict[str, str]]:
    """Rows as {column: stripped value}; a missing column, a row with more fields than the header or
    an unreadable file is a DataFileError."""
    try:
        with open(path, newline="", encoding="utf-8") as handle:
            reader = csv.DictReader(handle)
            missing = set(required) - set(reader.fieldnames or ())
            if missing:
                raise DataFileError(f"{path}: missing columns {sorted(missing)}")
            return [_stripped_row(path, reader.line_num, row) for row in reader]
    except (OSError, UnicodeDecodeError, csv.Error) as error:
        raise DataFileError(f"{path}: cannot read ({error})") from error


def _stripped_row(path: Path, line: int, row: dict) -> dict[str, str]:
    if None in row:  # csv.DictReader files surplus fields under the key None
        raise DataFileError(f"{path}, line {line}: more fields than the header's {len(row) - 1} (an unquoted comma?)")
    return {k: (v or "").strip() for k, v in row.items()}
