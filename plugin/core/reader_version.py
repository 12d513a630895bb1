"""Which reader read a record: `reader_version` is a short digest of the reader's own code (its
source files, and the version of a package whose data it reads), so that a change to any rule
changes it without anyone bumping a number. Each benchmark lists its readers' files in one place
(e.g. plugin/symphony_bias/readers.py); a record carries its reader's digest in the field
plugin.core.run_facts.READER_VERSION (a run fact: it identifies no doc)."""

from __future__ import annotations

import functools
import hashlib
from importlib import metadata
from pathlib import Path

PACKAGE_ROOT = Path(__file__).parents[2]  # the symphony_bench package's folder
DISTRIBUTION = "dist:"  # a reader's source that names an installed package: its version counts


@functools.cache
def reader_version(sources: tuple[str, ...]) -> str:
    """sha256 (first 12 hex digits) over `sources` in order: each a glob pattern of files under the
    package's folder (every match's path and bytes) or "dist:NAME" (the installed version of NAME).
    Computed once per process."""
    digest = hashlib.sha256()
    for source in sources:
        if source.startswith(DISTRIBUTION):
            name = source.removeprefix(DISTRIBUTION)
            try:
                installed = metadata.version(name)
            except metadata.PackageNotFoundError:
                installed = "absent"
            digest.update(f"{source}={installed}\n".encode())
            continue
        matches = sorted(PACKAGE_ROOT.glob(source))
        if not matches:
            raise FileNotFoundError(f"reader source {source!r} matches no file of the package")
        for path in matches:
            digest.update(path.relative_to(PACKAGE_ROOT).as_posix().encode() + b"\0")
            digest.update(path.read_bytes())
    return digest.hexdigest()[:12]
