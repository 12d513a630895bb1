"""The content digest of a dataset: what a task YAML pins beside the Hub repo and revision
(`metadata: dataset_sha256`), so that a task loads the data it was pinned for or refuses it.

The digest is canonical_sha256 of {config: rows in order}, over every column but the media
payloads: a media row is identified by the hash its builder records of the decoded media
(`pcm_sha256` of the audio's samples, `sha256` of an image's stored bytes), and the tasks check
that hash against the media where they decode it (plugin.core.audio.checked_audio_input,
`checked_image_bytes`). Parquet bytes are not hashed: they differ between writer versions for the
same rows. A folder in Hub layout holds one config (data/*.parquet, named "default") or several
(data/<config>/*.parquet).
"""

from __future__ import annotations

import hashlib
from functools import lru_cache
from pathlib import Path

from symphony_bench.plugin.core.errors import DataFileError
from symphony_bench.plugin.core.run_facts import canonical_sha256

MEDIA_COLUMNS = ("audio", "image")
DEFAULT_CONFIG = "default"


def tables_sha256(tables: dict[str, list[dict]]) -> str:
    """The digest of {config: rows} (rows without their media payloads)."""
    return canonical_sha256(tables)


def folder_tables(folder: Path) -> dict[str, list[dict]]:
    """{config: rows} of a Hub-layout folder, media payload columns left out."""
    import pyarrow.parquet as pq

    data = Path(folder) / "data"
    top = sorted(data.glob("*.parquet")) if data.is_dir() else []
    shards = (
        {DEFAULT_CONFIG: top}
        if top
        else {
            config.name: sorted(config.glob("*.parquet"))
            for config in (sorted(data.iterdir()) if data.is_dir() else [])
            if config.is_dir()
        }
    )
    if not any(shards.values()):
        raise DataFileError(f"{folder}: no data/*.parquet or data/<config>/*.parquet files")
    tables = {}
    for config, paths in shards.items():
        rows = []
        for path in paths:
            try:
                names = pq.read_schema(path).names
                columns = [name for name in names if name not in MEDIA_COLUMNS]
                rows += pq.read_table(path, columns=columns).to_pylist()
            except (OSError, ValueError) as error:  # pyarrow's ArrowInvalid is a ValueError
                raise DataFileError(f"{path}: cannot read its parquet ({error})") from error
        tables[config] = rows
    return tables


def folder_sha256(folder: Path) -> str:
    """The digest of a Hub-layout folder's content (`tables_sha256` of its rows), computed once per
    process while its parquet files are unchanged (every task of a group asks for it)."""
    files = sorted(Path(folder).glob("data/**/*.parquet"))
    signature = tuple((str(path), path.stat().st_size, path.stat().st_mtime_ns) for path in files)
    return _folder_sha256(Path(folder), signature)


@lru_cache(maxsize=16)
def _folder_sha256(folder: Path, signature: tuple) -> str:
    return tables_sha256(folder_tables(folder))


def checked_image_bytes(data: bytes, recorded_sha256: str, where: str) -> bytes:
    """The stored image bytes, if they are the ones the row's `sha256` names; else an error."""
    found = hashlib.sha256(data).hexdigest()
    if found != recorded_sha256:
        raise DataFileError(
            f"{where}: the image's bytes hash to {found}, not the {recorded_sha256} the row records "
            "(the data was changed after it was built)"
        )
    return data
