"""Where a task's data comes from, and whether it is the data the task was pinned for.

Every task YAML pins a Hub repo, a revision and the content digest of the data this task version is
for (`metadata: dataset_repo, dataset_revision, dataset_sha256`; plugin.core.dataset_digest). Data
comes, in this order, from:

1. the user's option (lm-eval `--metadata` key or `SYMPHONY_<NAME>`): a local folder in Hub layout, or
   a Hub repo id, optionally `owner/name@revision`. The pinned repo is verified like the pin itself
   (its content must be the pinned content) unless the revision is an explicit commit sha, which
   accepts other content knowingly; any other repo or folder is the user's own data, not verified;
2. else, for the text tasks, the data embedded in the package: the pinned content itself, so no
   server is asked;
3. else the pinned repo at the pinned revision (`huggingface_hub.snapshot_download`, so
   `HF_HUB_OFFLINE=1` reads a warm cache), verified after download, before a doc is built;
4. else, where the package can rebuild the pinned content (the default audio set), a local build
   of it in the symphony-bench cache, verified by its digest.

Whatever was used is recorded with each doc (`DatasetSource.facts`): repo, revision, the commit it
resolved to, the content digest, and whether that content is the task's pin (`dataset_verified`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import cache, lru_cache
from pathlib import Path

import yaml

from symphony_bench.plugin.core.built_sets import checked_build, snapshot_damage
from symphony_bench.plugin.core.dataset_digest import folder_sha256
from symphony_bench.plugin.core.errors import DataFileError
from symphony_bench.plugin.core.task_folders import TASKS_DIR

COMMIT_SHA = re.compile(r"^[0-9a-f]{40}$")


@dataclass(frozen=True)
class PinnedDataset:
    repo_id: str
    revision: str
    sha256: str | None  # None: the content could not be pinned (no build is reproducible offline)


@dataclass(frozen=True)
class DatasetSource:
    folder: Path | None  # None: the embedded data
    repo: str  # Hub repo id, or the local folder as given
    revision: str | None = None
    commit: str | None = None  # the commit sha the revision resolved to
    sha256: str | None = None  # the content digest (plugin.core.dataset_digest)
    verified: bool = False  # the content is the task's pin

    def facts(self) -> dict:
        return {
            "dataset_repo": self.repo,
            "dataset_revision": self.revision,
            "dataset_commit": self.commit,
            "dataset_sha256": self.sha256,
            "dataset_verified": self.verified,
        }


class _TaskYamlLoader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):
    """Reads task YAML without importing what `!function` names (libyaml's parser where PyYAML has
    it: the pure-Python one is ten times slower)."""


_TaskYamlLoader.add_constructor("!function", lambda loader, node: loader.construct_scalar(node))


def task_yaml(path: Path) -> dict:
    """A task YAML with its `include:` chain merged the way the harnesses merge it (shallow, the
    including file wins)."""
    config = yaml.load(path.read_text(encoding="utf-8"), Loader=_TaskYamlLoader) or {}
    include = config.pop("include", None)
    return {**task_yaml(path.parent / include), **config} if include else config


@cache
def pinned_dataset(yaml_path: str) -> PinnedDataset:
    """The Hub repo, revision and content digest a task YAML (path relative to the package's
    tasks/) pins."""
    path = TASKS_DIR / yaml_path
    metadata = task_yaml(path).get("metadata") or {}
    repo, revision = metadata.get("dataset_repo"), metadata.get("dataset_revision")
    sha256 = metadata.get("dataset_sha256")
    if not (isinstance(repo, str) and isinstance(revision, str)):
        raise DataFileError(f"{path}: metadata needs dataset_repo and dataset_revision")
    if sha256 is not None and not re.fullmatch(r"[0-9a-f]{64}", str(sha256)):
        raise DataFileError(f"{path}: metadata dataset_sha256 must be a SHA-256 in hex or absent")
    return PinnedDataset(repo, revision, sha256)


def is_repo_id(value: str) -> bool:
    """`owner/name` or `owner/name@revision` (a non-empty revision)."""
    name, at, revision = value.partition("@")
    return (
        name.count("/") == 1
        and not value.startswith((".", "/", "~"))
        and all(name.split("/"))
        and (revision or not at)
    )


def resolve(
    value: str | None,
    pinned: PinnedDataset,
    how_to_build: str,
    embedded: Callable[[], str] | None = None,
    locate: Callable[[Path], Path] = lambda folder: folder,
    build_pinned: Callable[[PinnedDataset, str], DatasetSource] | None = None,
) -> DatasetSource:
    """The data the option names, else the embedded data (`embedded`: its digest; text tasks), else
    the pinned repo at its revision. `locate(folder)` is where in a folder or snapshot the data lies.
    A pinned repo that cannot be reached is built locally where the task can (`build_pinned(pinned,
    why the repo could not be had)`), else it is one error that says how to proceed
    (`how_to_build`); so is a repo whose content is not the pin."""
    if value:
        return _named(value, pinned, how_to_build, locate)
    if embedded is not None:
        digest = embedded()
        return DatasetSource(
            None, pinned.repo_id, pinned.revision, None, digest, digest == pinned.sha256
        )
    source = fetch(pinned.repo_id, pinned.revision)
    if isinstance(source, str) and build_pinned is not None:
        return build_pinned(pinned, source)
    if isinstance(source, str):
        raise DataFileError(f"{source}; {how_to_build}")
    return _checked_against_pin(_with_digest(source, locate), pinned, how_to_build)


def _named(
    value: str, pinned: PinnedDataset, how_to_build: str, locate: Callable[[Path], Path]
) -> DatasetSource:
    folder = Path(value).expanduser()
    if folder.is_dir():
        checked_build(folder)
        source = _with_digest(DatasetSource(folder, value), locate)
        return replace(source, verified=source.sha256 == pinned.sha256)
    if not is_repo_id(value):
        raise DataFileError(
            f"{value}: no such folder, and not a Hub repo id (owner/name[@revision]); {how_to_build}"
        )
    repo, _, revision = value.partition("@")
    source = fetch(repo, revision or (pinned.revision if repo == pinned.repo_id else "main"))
    if isinstance(source, str):  # a mistyped relative folder reads as a repo id too: say both
        raise DataFileError(f"{value}: no such folder, and {source}; {how_to_build}")
    source = _with_digest(source, locate)
    if repo == pinned.repo_id and not COMMIT_SHA.match(revision):
        return _checked_against_pin(source, pinned, how_to_build)
    return replace(source, verified=source.sha256 == pinned.sha256)


def _with_digest(source: DatasetSource, locate: Callable[[Path], Path]) -> DatasetSource:
    folder = locate(source.folder)
    return replace(source, folder=folder, sha256=folder_sha256(folder))


def _checked_against_pin(
    source: DatasetSource, pinned: PinnedDataset, how_to_build: str
) -> DatasetSource:
    """The pinned repo's data, if its content is the pinned content; else one error."""
    where = f"{source.repo} at revision {source.revision} (commit {source.commit})"
    accept = (
        f"to use it anyway, name it with that commit: {source.repo}@{source.commit} (recorded in "
        "every doc as data that is not the task's pin)"
    )
    if pinned.sha256 is None:
        raise DataFileError(
            f"{where}: this task version pins no content digest for it (its data cannot be rebuilt "
            f"here to pin one), so its content cannot be checked; {how_to_build}, or {accept}"
        )
    if source.sha256 != pinned.sha256:
        raise DataFileError(
            f"{where}: its content is not the data this task is pinned to (dataset_sha256 "
            f"{source.sha256}, the pin expects {pinned.sha256}: the tag was moved or the repo holds "
            f"other data); {how_to_build}, or {accept}"
        )
    return replace(source, verified=True)


@lru_cache(maxsize=16)
def fetch(repo_id: str, revision: str) -> DatasetSource | str:
    """The dataset repo at `revision`, from the Hub or (offline) the local Hugging Face cache; else
    why not. A cached copy whose files changed or went missing is downloaded again, once. Asked once
    per process, failures included: every task of a group shares the answer."""
    folder = _snapshot(repo_id, revision, force_download=False)
    if isinstance(folder, str):
        return folder
    damaged = snapshot_damage(folder)
    if damaged is not None and not isinstance(
        _snapshot(repo_id, revision, force_download=True), str
    ):
        damaged = snapshot_damage(folder)
    if damaged is not None:
        return (
            f"the local Hugging Face cache's copy of the dataset {repo_id} at revision {revision} "
            f"is damaged ({damaged}) and could not be downloaded again; delete {folder.parents[1]} "
            "and run again with the Hub reachable"
        )
    return DatasetSource(folder, repo_id, revision, commit=folder.name)


def _snapshot(repo_id: str, revision: str, force_download: bool) -> Path | str:
    from huggingface_hub import snapshot_download
    from huggingface_hub.errors import HfHubHTTPError, LocalEntryNotFoundError

    try:
        return Path(
            snapshot_download(
                repo_id, repo_type="dataset", revision=revision, force_download=force_download
            )
        )
    except (HfHubHTTPError, LocalEntryNotFoundError, OSError, ValueError) as error:
        reason = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        return f"cannot load the dataset {repo_id} at revision {revision} from the Hub or the local cache ({reason})"
