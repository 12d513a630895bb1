"""Where a task's built data comes from, in one documented order:

1. the user's option (lm-eval `--metadata` key or `SYMPHONY_<NAME>`): a local folder in Hub layout, or
   a Hub repo id, optionally `owner/name@revision`;
2. the Hub repo and revision pinned in the task's YAML (`metadata: dataset_repo, dataset_revision`),
   fetched with `huggingface_hub.snapshot_download` (so `HF_HUB_OFFLINE=1` reads a warm cache);
3. for the text tasks only, the data embedded in the package.

Whatever was used is recorded with each doc (`dataset_repo`, `dataset_revision`, `dataset_commit`).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path

import yaml

from symphony_bench.plugin.core.errors import DataFileError
from symphony_bench.plugin.core.task_folders import TASKS_DIR

EMBEDDED = "embedded"  # dataset_repo of docs made from the package's own data


@dataclass(frozen=True)
class PinnedDataset:
    repo_id: str
    revision: str


@dataclass(frozen=True)
class DatasetSource:
    folder: Path | None  # None: the embedded data
    repo: str  # Hub repo id, the local folder as given, or EMBEDDED
    revision: str | None = None
    commit: str | None = None  # the commit sha the revision resolved to

    def facts(self) -> dict:
        return {
            "dataset_repo": self.repo,
            "dataset_revision": self.revision,
            "dataset_commit": self.commit,
        }


class _TaskYamlLoader(yaml.SafeLoader):
    """Reads task YAML without importing what `!function` names."""


_TaskYamlLoader.add_constructor("!function", lambda loader, node: loader.construct_scalar(node))


def task_yaml(path: Path) -> dict:
    """A task YAML with its `include:` chain merged the way the harnesses merge it (shallow, the
    including file wins)."""
    config = yaml.load(path.read_text(encoding="utf-8"), Loader=_TaskYamlLoader) or {}
    include = config.pop("include", None)
    return {**task_yaml(path.parent / include), **config} if include else config


@cache
def pinned_dataset(yaml_path: str) -> PinnedDataset:
    """The Hub repo and revision a task YAML (path relative to the package's tasks/) pins."""
    path = TASKS_DIR / yaml_path
    metadata = task_yaml(path).get("metadata") or {}
    repo, revision = metadata.get("dataset_repo"), metadata.get("dataset_revision")
    if not (isinstance(repo, str) and isinstance(revision, str)):
        raise DataFileError(f"{path}: metadata needs dataset_repo and dataset_revision")
    return PinnedDataset(repo, revision)


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
    value: str | None, pinned: PinnedDataset, how_to_build: str, embedded_fallback: bool = False
) -> DatasetSource:
    """The option's folder or repo, else the pinned repo; a pinned repo that cannot be reached falls
    back to the embedded data where `embedded_fallback`, else is one error saying how to build the
    data locally (`how_to_build`)."""
    if value:
        folder = Path(value).expanduser()
        if folder.is_dir():
            return DatasetSource(folder, value)
        if not is_repo_id(value):
            raise DataFileError(
                f"{value}: no such folder, and not a Hub repo id (owner/name[@revision]); {how_to_build}"
            )
        repo, _, revision = value.partition("@")
        source = fetch(repo, revision or (pinned.revision if repo == pinned.repo_id else "main"))
        if isinstance(source, str):  # a mistyped relative folder reads as a repo id too: say both
            raise DataFileError(f"{value}: no such folder, and {source}; {how_to_build}")
        return source
    source = fetch(pinned.repo_id, pinned.revision)
    if not isinstance(source, str):
        return source
    if embedded_fallback:
        say_once(f"symphony-bench: {source}; using the data embedded in the package")
        return DatasetSource(None, EMBEDDED)
    raise DataFileError(f"{source}; {how_to_build}")


@lru_cache(maxsize=16)
def fetch(repo_id: str, revision: str) -> DatasetSource | str:
    """The dataset repo at `revision`, from the Hub or (offline) the local Hugging Face cache; else
    why not. Asked once per process, failures included: every task of a group shares the answer."""
    from huggingface_hub import snapshot_download
    from huggingface_hub.errors import HfHubHTTPError, LocalEntryNotFoundError

    try:
        folder = Path(snapshot_download(repo_id, repo_type="dataset", revision=revision))
    except (HfHubHTTPError, LocalEntryNotFoundError, OSError, ValueError) as error:
        reason = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        return f"cannot load the dataset {repo_id} at revision {revision} from the Hub or the local cache ({reason})"
    return DatasetSource(folder, repo_id, revision, commit=folder.name)


@cache
def say_once(line: str) -> None:
    print(line, file=sys.stderr)
