"""What the lmms-eval tasks of this package share: a dataset named by an environment variable (lmms-eval
has no --metadata), the prompt with lmms-eval's pre/post prompt, and audio in lmms-eval's input form."""

from __future__ import annotations

import io
import os
from pathlib import Path

import datasets
import numpy as np
import soundfile

from symphony_bench.hub_upload.hub_layout import load_hub_dataset
from symphony_bench.plugin.scenarios import DataFileError


def source_from_environment(variable: str, built_by: str) -> str:
    source = os.environ.get(variable, "").strip()
    if not source:
        raise DataFileError(f"set {variable} to a folder built with `{built_by}`, or to a Hub repo id in that layout")
    return source


def open_source(source: str, expected: str, config: str | None = None) -> datasets.Dataset:
    """A local folder in Hub layout or a Hub repo id ("owner/name"); anything else that is not an
    existing folder is an error naming it."""
    folder = Path(source).expanduser()
    if folder.is_dir():
        try:
            return load_hub_dataset(folder, config=config)
        except FileNotFoundError as error:
            raise DataFileError(f"{source}: not {expected} ({error})") from error
    if source.count("/") != 1 or source.startswith((".", "/", "~")):
        raise DataFileError(f"{source}: no such folder (expected {expected})")
    return load_hub_dataset(source, config=config)


def prompt_text(doc: dict, lmms_eval_specific_kwargs: dict | None = None) -> str:
    kwargs = lmms_eval_specific_kwargs or {}
    return f"{kwargs.get('pre_prompt', '')}{doc['prompt']}{kwargs.get('post_prompt', '')}"


def audio_input(encoded: bytes) -> list[dict]:
    """[{"array": float32, "sampling_rate", "type": "audio"}]: without "type", chat-mode models
    take the input for a video."""
    array, sampling_rate = soundfile.read(io.BytesIO(encoded), dtype="float32")
    return [{"array": np.ascontiguousarray(array), "sampling_rate": int(sampling_rate), "type": "audio"}]
