"""The pinned audio set with no build step: when no audio option is given and the pinned Hub repo
cannot be had (not published, offline with a cold cache), the audio tasks build the pinned default
set once into the symphony-bench cache and use it. The default set is deterministic (seed 0, five
clips per instrument, the SoundFont in pretty-midi's wheel), so the build reproduces the pinned
content; its digest is checked like a download's. A build that differs (another FluidSynth or
SoundFont) is used all the same and recorded as the user's own data (`dataset_verified` false),
with one warning.

A build records the digest it produced beside the folder (`<folder>.sha256`): a set whose content
no longer has that digest, or lacks a file its build wrote, was damaged after the build and is
built again. A cache folder that cannot be written is one error line naming what to do, unless the
set is already there and whole (then it is only read).

The speaker-voice set (plugin.symphony_bias.voice) is built on first use the same way.

The build runs the registered builder of the kind (plugin.core.registry.build_default_set) in a
child interpreter: the builders are a layer beside the tasks, never imported by them."""

from __future__ import annotations

import sys
import time
from functools import cache
from pathlib import Path

from symphony_bench.plugin.core.atomic import write_text_atomically
from symphony_bench.plugin.core.built_sets import damage, recorded_sha256_file
from symphony_bench.plugin.core.cache import cache_dir
from symphony_bench.plugin.core.dataset_digest import folder_sha256
from symphony_bench.plugin.core.dataset_source import DatasetSource, PinnedDataset
from symphony_bench.plugin.core.errors import DataFileError
from symphony_bench.plugin.core.registry import build_default_set

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
    return default_set(AUDIO, pinned, why_not_the_hub, "another FluidSynth or SoundFont?")


def default_set(
    kind: str, pinned: PinnedDataset, why_not_the_hub: str, why_it_may_differ: str
) -> DatasetSource:
    """The pinned default set `kind` (a registered build kind with a default set) from the cache,
    built there first if it is not (callers cache the answer per process)."""
    folder = default_set_folder(kind, pinned)
    sha256 = _whole_set_sha256(folder)
    if sha256 is None:
        sha256 = _built_once(kind, folder, why_not_the_hub)
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


def _whole_set_sha256(folder: Path) -> str | None:
    """The digest of a finished, undamaged build in `folder` (read without writing anything); None
    when there is none to use."""
    if not (folder / BUILD_MARKER).is_file() or damage(folder) is not None:
        return None
    return folder_sha256(folder)


def _built_once(kind: str, folder: Path, why_not_the_hub: str) -> str:
    """Builds the set into `folder` under a lock (data-parallel ranks and concurrent runs build
    once), first or again when damaged, and records its digest; returns it."""
    from filelock import FileLock

    try:
        folder.parent.mkdir(parents=True, exist_ok=True)
        lock = FileLock(str(folder) + ".lock")
        lock.acquire()
    except OSError as error:
        damaged = (folder / BUILD_MARKER).is_file() and damage(folder)
        raise DataFileError(
            f"{folder.parent}: cannot write the symphony-bench cache ({error.strerror or error}), "
            f"where the default {kind} set is built on first use"
            + (f" (the set in {folder} is damaged: {damaged}; delete it)" if damaged else "")
            + ": set SYMPHONY_BENCH_CACHE to a writable folder, or build the set with "
            f"`symphony-bench build {kind} --out DIR` and name DIR in the task's option"
        ) from error
    try:
        found = damage(folder) if (folder / BUILD_MARKER).is_file() else "missing"
        if found is not None:
            if found != "missing":
                why_not_the_hub = f"the default {kind} set in {folder} is damaged ({found})"
            _build(kind, folder, why_not_the_hub)
            if damage(folder) is not None:  # a build that is not whole: say what to delete
                raise DataFileError(
                    f"{folder}: the default {kind} set built there is damaged ({damage(folder)}); "
                    f"delete {folder} and {recorded_sha256_file(folder)} and run again"
                )
            write_text_atomically(recorded_sha256_file(folder), folder_sha256(folder) + "\n")
        return folder_sha256(folder)
    finally:
        lock.release()


def _build(kind: str, folder: Path, why_not_the_hub: str) -> None:
    label = kind.removeprefix("symphony-bias-")
    print(
        f"symphony-bench: {why_not_the_hub}; building the pinned default {label} set into {folder} "
        "(once; a few minutes at most)",
        file=sys.stderr,
        flush=True,
    )
    started = time.monotonic()
    completed = build_default_set(kind, folder)
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
