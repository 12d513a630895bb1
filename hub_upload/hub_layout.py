"""Write a dataset folder in Hugging Face Hub layout: data/test-00000-of-00001.parquet + README.md.

The folder is assembled in a temporary sibling directory and renamed into place, so a failed
build leaves nothing behind and an existing folder is replaced only by a complete one.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import datasets


def write_hub_folder(
    out: Path, rows: list[dict], card: str, audio_columns: tuple[str, ...] = (), sampling_rate: int | None = None
) -> Path:
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(dir=out.parent, prefix=f".{out.name}.staging-"))
    try:
        dataset = datasets.Dataset.from_list(rows)
        for column in audio_columns:
            dataset = dataset.cast_column(column, datasets.Audio(sampling_rate=sampling_rate, decode=False))
        (staging / "data").mkdir()
        dataset.to_parquet(str(staging / "data" / "test-00000-of-00001.parquet"))
        (staging / "README.md").write_text(card, encoding="utf-8")
        staging.chmod(0o755)
        if out.exists():
            shutil.rmtree(out)
        staging.rename(out)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return out
