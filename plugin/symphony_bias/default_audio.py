"""The pinned audio set with no build step: when no audio option is given and the pinned Hub repo
cannot be had (not published, offline with a cold cache), the audio tasks build the pinned default
set once into the symphony-bench cache and use it. The default set is deterministic (seed 0, five
clips per instrument, the SoundFont in pretty-midi's wheel), so the build reproduces the pinned
content; its digest is checked like a download's. A build that differs (another FluidSynth or
SoundFont) is used all the same and recorded as the user's own data (`dataset_verified` false),
with one warning.

The build runs the registered builder of the kind (plugin.core.registry.build_default_set) in a
child interpreter: the builders are a layer beside the tasks, never imported by them."""

from __future__ import annotations

import sys
import time
from functools import cache
from pathlib import Path

from symphony_bench.plugin.core.cache import cache_dir
from symphony_bench.plugin.core.dataset_digest import folder_sha256
from symphony_bench.plugin.core.dataset_source import DatasetSource, PinnedDataset
from symphony_bench.plugin.core.errors import DataFileError
from symphony_bench.plugin.core.registry import build_default_set

BUILD_MARKER = ".symphony-bench-build"  # what a finished build leaves (plugin.core.atomic)


def default_audio_folder(pinned: PinnedDataset) -> Path:
    return (
        cache_dir() / f"symphony-bias-audio-{pinned.revision}-{(pinned.sha256 or 'unpinned')[:12]}"
    )


@cache  # every audio task of a run asks; one answer (and at most one warning) per process
def build_default_audio(pinned: PinnedDataset, why_not_the_hub: str) -> DatasetSource:
    """The pinned default audio set from the cache, built there first if it is not; see the module
    docstring. DataFileError (with the build's own last error line) if the build fails."""
    from filelock import FileLock

    folder = default_audio_folder(pinned)
    folder.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(str(folder) + ".lock"):  # data-parallel ranks and concurrent runs build once
        if not (folder / BUILD_MARKER).is_file():
            _build(folder, why_not_the_hub)
    sha256 = folder_sha256(folder)
    verified = sha256 == pinned.sha256
    if not verified:
        print(
            f"symphony-bench: warning: the audio set built into {folder} has content digest "
            f"{sha256}, not the pinned {pinned.sha256} (another FluidSynth or SoundFont?); it is "
            "used and recorded as your own data (dataset_verified false)",
            file=sys.stderr,
            flush=True,
        )
    return DatasetSource(folder, str(folder), sha256=sha256, verified=verified)


def _build(folder: Path, why_not_the_hub: str) -> None:
    print(
        f"symphony-bench: {why_not_the_hub}; building the pinned default audio set into {folder} "
        "(once; about a minute)",
        file=sys.stderr,
        flush=True,
    )
    started = time.monotonic()
    completed = build_default_set("symphony-bias-audio", folder)
    if completed.returncode != 0:
        last = (completed.stderr.strip().splitlines() or ["no error output"])[-1]
        raise DataFileError(
            f"building the default audio set into {folder} failed ({last}); build one with "
            "`symphony-bench build symphony-bias-audio --out DIR` and set SYMPHONY_AUDIO=DIR"
        )
    print(
        f"symphony-bench: built the default audio set in {time.monotonic() - started:.0f} s",
        file=sys.stderr,
        flush=True,
    )
