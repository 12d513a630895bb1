"""The error every bad data file raises, and CSV reading whose messages name the file and line."""

from __future__ import annotations

import atexit
import contextlib
import csv
import functools
import sys
from pathlib import Path


class DataFileError(ValueError):
    """A data file is missing or malformed; the message names the file."""


_ANNOUNCED: list[str] = []


def announced(function):
    """For functions a harness calls (process_docs): a DataFileError is printed to stderr when it is
    raised and again as the very last line when the process exits. lmms-eval wraps it in a
    tenacity RetryError, prints that last and exits 0, burying the actionable message."""

    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        try:
            return function(*args, **kwargs)
        except DataFileError as error:
            if not getattr(error, "announced", False):
                announce(error)
            raise

    return wrapper


def announce(error: Exception) -> None:
    """Print `error` to stderr now and again as the very last line when the process exits."""
    message = f"symphony-bench: error: {error}"
    print(message, file=sys.stderr, flush=True)
    if not _ANNOUNCED:
        atexit.register(_repeat_announced)
    _ANNOUNCED.append(message)
    error.announced = True


def forget_announced() -> None:
    """Drop the errors waiting to be repeated at exit (tests that provoke them on purpose)."""
    _ANNOUNCED.clear()


def _repeat_announced() -> None:
    if _ANNOUNCED:
        _close_progress_bars()
        print("\n".join(dict.fromkeys(_ANNOUNCED)), file=sys.stderr, flush=True)


def _close_progress_bars() -> None:
    """Close the tqdm bars still open (a harness's, left open by the error): tqdm redraws an open
    bar when it is collected, after the exit handlers, which would bury the announced line."""
    tqdm = getattr(sys.modules.get("tqdm.std"), "tqdm", None)
    for bar in list(getattr(tqdm, "_instances", ())):
        with contextlib.suppress(Exception):  # a bar half torn down already: nothing to redraw
            bar.close()


def read_csv(path: Path, required: tuple[str, ...]) -> list[dict[str, str]]:
    """Rows as {column: stripped value}; a missing column, a row with more fields than the header or
    an unreadable file is a DataFileError. A UTF-8 byte order mark (Excel's "CSV UTF-8") is read
    past, not taken into the first column's name."""
    try:
        with open(path, newline="", encoding="utf-8-sig") as handle:
            reader = csv.DictReader(handle)
            missing = set(required) - set(reader.fieldnames or ())
            if missing:
                raise DataFileError(f"{path}: missing columns {sorted(missing)}")
            return [_stripped_row(path, reader.line_num, row) for row in reader]
    except (OSError, UnicodeDecodeError, csv.Error) as error:
        raise DataFileError(f"{path}: cannot read ({error})") from error


def _stripped_row(path: Path, line: int, row: dict) -> dict[str, str]:
    if None in row:  # csv.DictReader files surplus fields under the key None
        raise DataFileError(
            f"{path}, line {line}: more fields than the header's {len(row) - 1} (an unquoted comma?)"
        )
    return {k: (v or "").strip() for k, v in row.items()}
