"""Whether a dataset folder that symphony-bench built (its BUILD_MARKER lists the files the build
wrote; plugin.core.atomic) is still what was built, and whether a Hub snapshot in the local Hugging
Face cache still holds the files it was downloaded with. A damaged copy is built or downloaded
again where it can be, else it is one error naming what to delete."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from symphony_bench.plugin.core.atomic import BUILD_MARKER, output_kind, recorded_files
from symphony_bench.plugin.core.dataset_digest import folder_sha256
from symphony_bench.plugin.core.errors import DataFileError

SHA256_NAME = re.compile(r"[0-9a-f]{64}")


def recorded_sha256_file(folder: Path) -> Path:
    """Where a build that records its digest (the default sets) writes it: beside the folder."""
    return folder.with_name(folder.name + ".sha256")


def damage(folder: Path) -> str | None:
    """What is wrong with a finished build in `folder` (a file its build wrote missing, a parquet
    file that cannot be read, content that is not the digest its build recorded), or None when it
    is whole. Builds of any layout are checked file by file; only the default sets, which record
    their digest, are digested again."""
    import pyarrow.parquet as pq

    try:
        written = recorded_files(folder) or []
        missing = [name for name in written if not (folder / name).is_file()]
        if missing:
            return f"{len(missing)} of its files are missing ({missing[0]}...)"
        for name in written:
            if name.endswith(".parquet"):
                pq.read_metadata(folder / name)
        recorded = recorded_sha256_file(folder)
        if recorded.is_file() and folder_sha256(folder) != recorded.read_text().strip():
            return "its content changed after it was built"
    except (OSError, ValueError, DataFileError) as error:
        return f"it cannot be read ({error})"
    return None


def checked_build(folder: Path) -> None:
    """DataFileError naming what to delete and how to build it again when `folder` is a damaged
    symphony-bench build; nothing for a whole build or a folder that symphony-bench did not build."""
    if not (folder / BUILD_MARKER).is_file():
        return
    found = damage(folder)
    if found is not None:
        kind = output_kind(folder) or "KIND"
        raise DataFileError(
            f"{folder}: the set built there is damaged ({found}); delete {folder} and build it again "
            f"with `symphony-bench build {kind} --out {folder}`"
        )


def snapshot_damage(folder: Path) -> str | None:
    """What is wrong with a Hub snapshot in the local cache: a file whose cached blob is gone, or
    whose content no longer hashes to the blob's name (LFS blobs are named by their SHA-256)."""
    for path in sorted(folder.rglob("*")):
        if path.is_symlink() and not path.exists():
            return f"{path.relative_to(folder).as_posix()} is missing from the cache"
        target = path.resolve()
        if path.is_file() and SHA256_NAME.fullmatch(target.name):
            digest = hashlib.sha256()
            with target.open("rb") as stream:
                for block in iter(lambda: stream.read(1 << 20), b""):
                    digest.update(block)
            if digest.hexdigest() != target.name:
                return f"{path.relative_to(folder).as_posix()} changed after it was downloaded"
    return None
