"""Write and read dataset folders in Hugging Face Hub layout: data/test-00000-of-00001.parquet + README.md
(one config) or data/<config>/test-*.parquet (several), and open such a folder.

A folder is assembled in a temporary sibling directory and renamed into place, so a failed build
leaves nothing behind and an existing folder is replaced only by a complete one.
"""

from __future__ import annotations

from pathlib import Path

import datasets

from symphony_bench.plugin.core.atomic import staged_directory
from symphony_bench.plugin.core.dataset_digest import (
    DEFAULT_CONFIG,
    MEDIA_COLUMNS,
    config_sha256,
    rows_sha256,
    split_files,
)
from symphony_bench.plugin.core.errors import DataFileError


def card_front_matter(pretty_name: str, licence: str) -> str:
    """The dataset card's YAML header: licence, name and the one parquet config this layout has."""
    return (
        f"---\nlicense: {licence}\npretty_name: {pretty_name}\nconfigs:\n- config_name: default\n"
        "  data_files:\n  - split: test\n    path: data/test-*.parquet\n---\n"
    )


def configs_front_matter(pretty_name: str, licence: str, configs: list[str]) -> str:
    """The card's YAML header for several configs, each at data/<config>/test-*.parquet."""
    entries = "".join(
        f"- config_name: {config}\n  data_files:\n  - split: test\n    path: data/{config}/test-*.parquet\n"
        for config in configs
    )
    return f"---\nlicense: {licence}\npretty_name: {pretty_name}\nconfigs:\n{entries}---\n"


def write_hub_configs(out: Path, tables: dict[str, list[dict]], card: str) -> Path:
    """Several configs, `tables` = {config: rows}, each at data/<config>/test-00000-of-00001.parquet."""
    with staged_directory(out) as staging:
        for config, rows in tables.items():
            (staging / "data" / config).mkdir(parents=True)
            datasets.Dataset.from_list(rows).to_parquet(
                str(staging / "data" / config / "test-00000-of-00001.parquet")
            )
        (staging / "README.md").write_text(card, encoding="utf-8")
    return Path(out)


def write_hub_folder(out: Path, rows: list[dict], card: str, casts: dict | None = None) -> Path:
    """`casts` maps column -> datasets feature (e.g. Audio(decode=False)) applied before writing."""
    dataset = datasets.Dataset.from_list(rows)
    for column, feature in (casts or {}).items():
        dataset = dataset.cast_column(column, feature)
    with staged_directory(out) as staging:
        (staging / "data").mkdir()
        dataset.to_parquet(str(staging / "data" / "test-00000-of-00001.parquet"))
        (staging / "README.md").write_text(card, encoding="utf-8")
    return Path(out)


def load_hub_dataset(
    path_or_repo: str | Path,
    split: str = "test",
    config: str | None = None,
    download_mode: str | None = None,
) -> datasets.Dataset:
    """A local folder in this layout (one config: data/<split>-*.parquet; several:
    data/<config>/<split>-*.parquet), or a Hub repo id.

    Local folders go through the parquet loader, whose cache knows a file by its path and
    modification time only: `open_folder` checks what it loaded against the files.
    """
    folder = Path(path_or_repo)
    if folder.is_dir():
        data = folder / "data" / config if config else folder / "data"
        files = [str(path) for path in split_files(data, split)]
        if not files:
            raise FileNotFoundError(f"{data}: no {split}-*.parquet files")
        return datasets.load_dataset(
            "parquet", data_files={split: files}, split=split, download_mode=download_mode
        )
    return datasets.load_dataset(str(path_or_repo), config, split=split)


def open_folder(folder: Path, expected: str, config: str | None = None) -> datasets.Dataset:
    """A local folder in Hub layout (a build, or a Hub repo's snapshot: see plugin.core.dataset_source);
    one that lacks the data is an error naming it.

    The rows loaded are the rows the folder's files hold (the content its digest was taken of): a
    cache entry left by other files under the same path and modification time (files copied with
    `cp -p`, `rsync -a`, `tar -x`) is rebuilt from the files. A datasets cache that cannot be
    written is one error naming it."""
    try:
        dataset = load_hub_dataset(folder, config=config)
        expected_sha256 = config_sha256(folder, config or DEFAULT_CONFIG)
        if _loaded_sha256(dataset) != expected_sha256:
            dataset = load_hub_dataset(folder, config=config, download_mode="force_redownload")
    except OSError as error:
        cache = Path(datasets.config.HF_DATASETS_CACHE)
        if error.filename and Path(str(error.filename)).is_relative_to(cache):
            raise DataFileError(
                f"{folder}: the datasets library cannot write its cache {cache} "
                f"({error.strerror or error}); set HF_DATASETS_CACHE to a writable folder"
            ) from error
        if isinstance(error, FileNotFoundError):
            raise DataFileError(f"{folder}: not {expected} ({error})") from error
        raise
    if _loaded_sha256(dataset) != expected_sha256:
        raise DataFileError(
            f"{folder}: the rows the datasets library loaded differ from the rows its parquet files hold, "
            "even after rebuilding its cache; remove the folder's entries from the datasets cache "
            "(HF_DATASETS_CACHE) and run again"
        )
    return dataset


def _loaded_sha256(dataset: datasets.Dataset) -> str:
    kept = [name for name in dataset.column_names if name not in MEDIA_COLUMNS]
    return rows_sha256(dataset.select_columns(kept).to_list())
