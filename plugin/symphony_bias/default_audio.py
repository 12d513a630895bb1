"""The pinned audio set with no build step: when no audio option is given and the pinned Hub repo
cannot be had (not published, offline with a cold cache), the audio tasks build the pinned default
set once into the symphony-bench cache and use it. The default set is deterministic (seed 0, five
clips per instrument, the SoundFont in pretty-midi's wheel), so the build reproduces the pinned
content; its digest is checked like a download's. A build that differs (another FluidSynth or
SoundFont) is used all the same and recorded as the user's own data (`dataset_verified` false),
with one warning.

The speaker-voice set (plugin.symphony_bias.voice) is built on first use the same way.

The build runs as `symphony-bench build <set>` in a subprocess: the builders are a
layer beside the tasks, never imported by them."""

from __future__ import annotations

import subprocess
import sys
import time
from functools import cache
from pathlib import Path

from symphony_bench.plugin.core.cache import cache_dir
from symphony_bench.plugin.core.dataset_digest import folder_sha256
from symphony_bench.plugin.core.dataset_source import DatasetSource, PinnedDataset
from symphony_bench.plugin.core.errors import DataFileError

BUILD_MARKER = ".symphony-bench-build"  # what a finished build leaves (plugin.core.atomic)
AUDIO = "symphony-bias-audio"


def default_set_folder(kind: str, pinned: PinnedDataset) -> Path:
    return cache_dir() / f"{kind}-{pinned.revision}-{(pinned.sha256 or 'unpinned')[:12]}"


def default_audio_folder(pinned: PinnedDataset) -> Path:
    return default_set_folder(AUDIO, pinned)


@cache  # every audio task of a run asks; one answer (and at most one warning) per process
def build_default_audio(pinned: PinnedDataset, why_not_the_hub: str) -> DatasetSource:
    """The pinned default audio set from the cache, built there first if it is not; see the module
    docstring. DataFileError (with the build's own last error line) if the build fails."""
    return build_default_set(AUDIO, pinned, why_not_the_hub, "another FluidSynth or SoundFont?")


def build_default_set(
    kind: str, pinned: PinnedDataset, why_not_the_hub: str, why_it_may_differ: str
) -> DatasetSource:
    """The pinned default set `kind` (`symphony-bench build KIND`) from the cache, built there
    first if it is not (callers cache the answer per process)."""
    from filelock import FileLock

    folder = default_set_folder(kind, pinned)
    folder.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(str(folder) + ".lock"):  # data-parallel ranks and concurrent runs build once
        if not (folder / BUILD_MARKER).is_file():
            _build(kind, folder, why_not_the_hub)
    sha256 = folder_sha256(folder)
    verified = sha256 == pinned.sha256
    if not verified:
        label = kind.removeprefix("symphony-bias-")
        print(
            f"symphony-bench: warning: the {label} set built into {folder} has content digest "
            f"{sha256}, not the pinned {pinned.sha256} ({why_it_may_differ}); it is "
            "used and recorded as your own data (dataset_verified false)",
            file=sys.stderr,
            flush=True,
        )
    return DatasetSource(folder, str(folder), sha256=sha256, verified=verified)


def _build(kind: str, folder: Path, why_not_the_hub: str) -> None:
    label = kind.removeprefix("symphony-bias-")
    print(
        f"symphony-bench: {why_not_the_hub}; building the pinned default {label} set into {folder} "
        "(once; a few minutes at most)",
        file=sys.stderr,
        flush=True,
    )
    started = time.monotonic()
    command = [sys.executable, "-m", "symphony_bench.plugin.cli", "build", kind]
    completed = subprocess.run(
        [*command, "--out", str(folder)], capture_output=True, text=True, check=False
    )
    if completed.returncode != 0:
        last = (completed.stderr.strip().splitlines() or ["no error output"])[-1]
        raise DataFileError(
            f"building the default {label} set into {folder} failed ({last}); build one with "
            f"`symphony-bench build {kind} --out DIR` and name it in the task's option"
        )
    print(
        f"symphony-bench: built the default {label} set in {time.monotonic() - started:.0f} s",
        file=sys.stderr,
        flush=True,
    )
