"""Facts about a run that every doc and per-doc record carries, so that `symphony-bench
leaderboard`, `compare` and `export` can tell which data and code produced a result (lmms-eval's
samples files do not hold the docs, only the records)."""

from __future__ import annotations

import functools
import hashlib
import json
from importlib import metadata

# the data a doc was made from (plugin.core.dataset_source.DatasetSource.facts)
DATA_FIELDS = (
    "dataset_repo",
    "dataset_revision",
    "dataset_commit",
    "dataset_sha256",
    "dataset_verified",
)
# the digest of the reader that read a record (plugin.core.reader_version): set by the reader, never
# copied from a doc, but like every run fact no part of the doc's identity
READER_VERSION = "reader_version"
# "task_options": the options the docs were built with, as given (plugin.core.options.given_options)
RUN_FIELDS = (
    "seed",
    *DATA_FIELDS,
    "symphony_bench_version",
    "task_options",
    READER_VERSION,
)


@functools.lru_cache(maxsize=1)
def package_version() -> str | None:
    try:
        return metadata.version("symphony-bench")
    except metadata.PackageNotFoundError:
        return None


def canonical_sha256(value) -> str:
    """sha256 of the canonical JSON text of `value`: sorted keys, no spaces, non-ASCII characters
    as \\u escapes (so the text, and the digest, do not depend on an encoding). Every content hash
    of the package (scenario set, stereotype table, a run's config) is this one."""
    return hashlib.sha256(
        json.dumps(value, sort_keys=True, separators=(",", ":")).encode()
    ).hexdigest()


def run_facts(doc: dict) -> dict:
    """The RUN_FIELDS a doc holds, to copy into its record."""
    return {field: doc[field] for field in RUN_FIELDS if field in doc}
