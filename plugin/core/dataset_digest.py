"""The content digest of a dataset: what a task YAML pins beside the Hub repo and revision
(`metadata: dataset_sha256`), so that a task loads the data it was pinned for or refuses it.

The digest is canonical_sha256 of {config: rows in order}, over every column but the media
payloads: a media row is identified by the hash its builder records of the decoded media
(`pcm_sha256` of the audio's samples, `sha256` of an image's stored bytes), and the tasks check
that hash against the media where they decode it (plugin.core.audio.checked_audio_input,
`checked_image_bytes`). Parquet bytes are not hashed: they differ between writer versions for the
same rows. A folder in Hub layout holds one config (data/test-*.parquet, named "default") or several
(data/<config>/test-*.parquet); `split_files` lists them for the digest and the loaders alike, so
that a file the tasks do not load is not hashed, and one they load is.
"""

from __future__ import annotations

import hashlib
from functools import lru_cache
from pathlib import Path

from symphony_bench.plugin.core.errors import DataFileError
from symphony_bench.plugin.core.run_facts import canonical_sha256

MEDIA_COLUMNS = ("audio", "image")
DEFAULT_CONFIG = "default"
SPLIT = "test"  # the one split every task loads


def split_files(data: Path, split: str = SPLIT) -> list[Path]:
    """The parquet files of `split` in one data folder (data/ or data/<config>/), in order."""
    return sorted(Path(data).glob(f"{split}-*.parquet"))


def config_files(folder: Path) -> dict[str, list[Path]]:
    """{config: parquet files of the test split} of a Hub-layout folder (empty when it has none)."""
    data = Path(folder) / "data"
    if not data.is_dir():
        return {}
    top = split_files(data)
    if top:
        return {DEFAULT_CONFIG: top}
    configs = {
        config.name: split_files(config) for config in sorted(data.iterdir()) if config.is_dir()
    }
    return {config: files for config, files in configs.items() if files}


def tables_sha256(tables: dict[str, list[dict]]) -> str:
    """The digest of {config: rows} (rows without their media payloads)."""
    return canonical_sha256(tables)


def folder_tables(folder: Path) -> dict[str, list[dict]]:
    """{config: rows} of a Hub-layout folder, media payload columns left out."""
    import pyarrow.parquet as pq

    shards = config_files(folder)
    if not shards:
        raise DataFileError(
            f"{folder}: no data/{SPLIT}-*.parquet or data/<config>/{SPLIT}-*.parquet files"
        )
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


def rows_sha256(rows: list[dict]) -> str:
    """The digest of one config's rows, media payloads left out (the loaded rows are checked
    against the files' with it: plugin.core.hub_folder.open_folder)."""
    return canonical_sha256(
        [{key: value for key, value in row.items() if key not in MEDIA_COLUMNS} for row in rows]
    )


def folder_sha256(folder: Path) -> str:
    """The digest of a Hub-layout folder's content (`tables_sha256` of its rows), computed once per
    process while its parquet files are unchanged (every task of a group asks for it)."""
    return tables_sha256(_folder_tables(Path(folder), _signature(folder)))


def config_sha256(folder: Path, config: str) -> str:
    """`rows_sha256` of one config's rows as its files hold them."""
    return rows_sha256(_folder_tables(Path(folder), _signature(folder))[config])


def _signature(folder: Path) -> tuple:
    files = [path for paths in config_files(folder).values() for path in paths]
    return tuple((str(path), path.stat().st_size, path.stat().st_mtime_ns) for path in files)


@lru_cache(maxsize=16)
def _folder_tables(folder: Path, signature: tuple) -> dict[str, list[dict]]:
    return folder_tables(folder)


def checked_image_bytes(data: bytes, recorded_sha256: str, where: str) -> bytes:
    """The stored image bytes, if they are the ones the row's `sha256` names; else an error."""
    found = hashlib.sha256(data).hexdigest()
    if found != recorded_sha256:
        raise DataFileError(
            f"{where}: the image's bytes hash to {found}, not the {recorded_sha256} the row records "
            "(the data was changed after it was built)"
        )
    return data
