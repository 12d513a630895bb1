"""`symphony-bench publish BUILD_DIR --repo-id ORG/NAME`: a folder a `symphony-bench build` wrote,
to a Hugging Face Hub dataset repo, in one commit, optionally tagged.

Checks the folder and its dataset card here first (the build kind, no symbolic link or other
non-file anywhere in it, the card's YAML, `configs` <-> files, licence, media features), so a bad
folder is refused before anything is sent. What is sent is what the build wrote, as its
BUILD_MARKER lists it (plugin.core.atomic.recorded_files): a file the build did not write is refused,
a hidden file or folder (a name starting with ".", e.g. `.env`, where tokens live) is never looked
into nor sent, and a file with more than one name (a hard link: another name may be outside the
folder, and no build writes one) is refused. Then: create the repo if needed, compare the folder with
the head's files (git blob ids), refuse a tag that exists unless it already marks this content, then
one `create_commit` of the changed and deleted files whose `parent_commit` is the head it read (a
concurrent push makes it fail instead of mixing; same content again: no commit at all), then the
tag. The token (`--token`, else `HF_TOKEN` or the saved login, as huggingface_hub resolves it) never
appears in what is printed.
"""

from __future__ import annotations

import hashlib
import os
import stat
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import yaml

from symphony_bench.plugin.core.atomic import (
    BUILD_MARKER,
    output_kind,
    recorded_files,
    sigterm_raises,
)
from symphony_bench.plugin.core.errors import DataFileError
from symphony_bench.plugin.core.progress import progress
from symphony_bench.plugin.core.registry import BuildKind, build_kind, build_kinds

CARD = "README.md"
NOT_PUBLISHED = {BUILD_MARKER, "skipped.csv"}  # build bookkeeping stays local


class PublishError(ValueError):
    """The Hub refused or could not be reached; the message never holds the token."""


@dataclass(frozen=True)
class Published:
    repo_id: str
    commit: str
    new_commit: bool
    tag: str | None


# ---- checks made before anything is sent --------------------------------------------------------
def card_metadata(folder: Path) -> dict:
    """The card's YAML front matter, checked: licence, and configs whose data_files match files."""
    path = folder / CARD
    if not path.is_file():
        raise DataFileError(f"{path}: no dataset card")
    text = path.read_text(encoding="utf-8")
    if not text.startswith("---\n") or "\n---\n" not in text[3:]:
        raise DataFileError(f"{path}: the card has no YAML front matter (--- ... ---)")
    try:
        metadata = yaml.safe_load(text[4 : text.index("\n---\n", 3)])
    except yaml.YAMLError as error:
        raise DataFileError(f"{path}: the card's YAML does not parse ({error})") from error
    if not isinstance(metadata, dict):
        raise DataFileError(f"{path}: the card's YAML is not a mapping")
    if not isinstance(metadata.get("license"), str) or not metadata["license"].strip():
        raise DataFileError(f"{path}: the card names no licence (`license:`)")
    return metadata


def config_files(folder: Path, metadata: dict) -> dict[str, list[Path]]:
    """{config name: its files}; each config must match files, and every data file must be in a config.
    Patterns match as the Hub's do: `*` stays within a folder, `**` crosses folders."""
    configs = metadata.get("configs")
    if not isinstance(configs, list) or not configs:
        raise DataFileError(f"{folder / CARD}: the card lists no `configs`")
    matched: dict[str, list[Path]] = {}
    for entry in configs:
        patterns = data_file_patterns(entry.get("data_files")) if isinstance(entry, dict) else None
        if not (patterns and isinstance(entry.get("config_name"), str)):
            raise DataFileError(
                f"{folder / CARD}: each `configs` entry needs config_name and data_files, got {entry!r}"
            )
        found = sorted(
            {
                path
                for pattern in patterns
                for path in folder.glob(pattern)
                if path.is_file() and not hidden(path.relative_to(folder).as_posix())
            }
        )
        if not found:
            raise DataFileError(
                f"{folder / CARD}: config {entry['config_name']!r} matches no file ({patterns})"
            )
        matched[entry["config_name"]] = found
    covered = {path for paths in matched.values() for path in paths}
    stray = sorted(
        path.relative_to(folder).as_posix()
        for path in folder.rglob("*.parquet")
        if path not in covered and not hidden(path.relative_to(folder).as_posix())
    )
    if stray:
        raise DataFileError(f"{folder / CARD}: data files in no config: {stray[:5]}")
    return matched


def data_file_patterns(data_files) -> list[str] | None:
    """The path patterns of a config's `data_files` in any form the Hub accepts (a pattern, a list of
    patterns, a list of {split, path}, a {split: pattern(s)} mapping); None when malformed."""
    if isinstance(data_files, str):
        return [data_files]
    if isinstance(data_files, dict):
        items = list(data_files.values())
    elif isinstance(data_files, list):
        items = [item.get("path") if isinstance(item, dict) else item for item in data_files]
    else:
        return None
    patterns = []
    for item in items:
        group = [item] if isinstance(item, str) else item
        if not (
            isinstance(group, list) and group and all(isinstance(pattern, str) for pattern in group)
        ):
            return None
        patterns += group
    return patterns


def check_features(folder: Path, kind: BuildKind, matched: dict[str, list[Path]]) -> None:
    """Parquet files carry their `datasets` features; media kinds hold their media as real Audio /
    Image features, and every image has a licence."""
    import datasets
    import pyarrow.parquet as pq

    for path in (p for paths in matched.values() for p in paths if p.suffix == ".parquet"):
        schema = pq.read_schema(path)
        if b"huggingface" not in (schema.metadata or {}):
            raise DataFileError(f"{path}: no `datasets` features in the parquet metadata")
        if kind.media:
            column, feature = kind.media
            found = type(datasets.Features.from_arrow_schema(schema).get(column)).__name__
            if found != feature:
                raise DataFileError(
                    f"{path}: column {column!r} is {'missing' if found == 'NoneType' else found}, "
                    f"expected a datasets {feature} feature"
                )
        if kind.licensed_rows:
            check_licences(path, schema)


def check_licences(path: Path, schema) -> None:
    import pyarrow.parquet as pq

    if "licence" not in schema.names:
        raise DataFileError(f"{path}: no `licence` column; only licensed images are published")
    licences = pq.read_table(path, columns=["licence"]).column("licence").to_pylist()
    unlicensed = [k for k, licence in enumerate(licences) if not (licence or "").strip()]
    if unlicensed:
        raise DataFileError(
            f"{path}: rows {unlicensed[:5]} have no licence; only licensed images are published"
        )


def check_folder(folder: Path) -> str:
    """The build kind of `folder` after every local check; raises DataFileError naming what is wrong."""
    if not (folder / BUILD_MARKER).is_file():
        raise DataFileError(
            f"{folder}: not a folder written by `symphony-bench build` (no {BUILD_MARKER})"
        )
    build_files(folder)  # no links, nothing but files and folders: before any file is read
    kind = output_kind(folder)
    registered = build_kind(kind)
    if registered is None:
        raise DataFileError(
            f"{folder}: a {kind!r} output is not published (publishable: {', '.join(build_kinds())})"
        )
    files_to_publish(folder)  # only what the build wrote, no hard links: before any file is read
    metadata = card_metadata(folder)
    required = registered.card_text
    if required and required not in (folder / CARD).read_text(encoding="utf-8"):
        raise DataFileError(
            f"{folder / CARD}: the card must credit the source's licence ({required})"
        )
    check_features(folder, registered, config_files(folder, metadata))
    return kind


def files_to_publish(folder: Path) -> list[str]:
    """The folder's files to send (POSIX paths relative to it): the files its build wrote (the list
    in its BUILD_MARKER) that are still there, build bookkeeping and hidden files left out. Refuses
    (DataFileError naming each, before any file is read) a marker without that list, a file the
    build did not write, and a file with more than one name: a hard link cannot be told from the
    file it links to, another of its names may be outside the folder (`ln ~/.env README.md`), and
    no build writes one."""
    folder = Path(folder)
    found = build_files(folder)
    recorded = recorded_files(folder)
    if recorded is None:
        raise DataFileError(
            f"{folder}: its {BUILD_MARKER} lists no files (written by an older symphony-bench): "
            "rebuild the folder; `publish` sends only the files a build lists as written. Nothing "
            "was sent"
        )
    bookkeeping = {name for name in found if name.rsplit("/", 1)[-1] in NOT_PUBLISHED}
    unlisted = sorted(set(found) - set(recorded) - bookkeeping)
    if unlisted:
        raise DataFileError(
            f"{folder}: files the build did not write (its {BUILD_MARKER} lists what it wrote): "
            f"{listed(unlisted)}. `publish` sends a build as it was written: remove them (a "
            "hidden file, named with a leading '.', is left out instead). Nothing was sent"
        )
    files = [name for name in found if name not in bookkeeping]
    linked = [(name, (folder / name).lstat().st_nlink) for name in files]
    linked = [f"{name} ({count} names)" for name, count in linked if count > 1]
    if linked:
        raise DataFileError(
            f"{folder}: refusing to publish files with more than one name (hard links): "
            f"{listed(linked)}. Another name may be outside the folder, and a build writes none: "
            "replace each with a copy of its own (cp FILE FILE.copy && mv FILE.copy FILE). "
            "Nothing was sent"
        )
    return files


def hidden(name: str) -> bool:
    """Whether a POSIX path in the folder is or lies inside a hidden file or folder (a part
    starting with "."): never sent, never looked into."""
    return any(part.startswith(".") for part in name.split("/"))


def hidden_entries(folder: Path) -> list[str]:
    """The hidden files and folders ("name/") of the build folder that `publish` leaves out (the
    build marker is not named), not looked into."""
    found = []
    for top, folders, names in os.walk(folder):
        relative = Path(top).relative_to(folder).as_posix()
        prefix = "" if relative == "." else f"{relative}/"
        found += [f"{prefix}{name}/" for name in folders if name.startswith(".")]
        found += [f"{prefix}{name}" for name in names if name.startswith(".")]
        folders[:] = [name for name in folders if not name.startswith(".")]
    return sorted(name for name in found if name != BUILD_MARKER)


def build_files(folder: Path) -> list[str]:
    """Every file of the build folder but hidden ones, sorted; refuses (DataFileError naming each)
    symbolic links and anything that is neither a regular file nor a folder. Hidden files and
    folders (a name starting with ".") are skipped unread: they are never sent. Every other link is
    refused, also one that stays inside the folder: the Hub stores no links (the client would upload
    the bytes the link points to under the link's name, so the repo would not be the folder), no
    builder writes one (so a link is not part of the build), and a link found harmless here could
    point elsewhere by the time its file is read. Linked folders are never entered."""
    folder = Path(folder)
    files, links, others = [], [], []

    def unreadable(error: OSError) -> None:
        raise DataFileError(f"{error.filename}: cannot read the build folder ({error.strerror})")

    for top, folders, names in os.walk(folder, onerror=unreadable):
        folders[:] = [name for name in folders if not name.startswith(".")]
        names = [name for name in names if not name.startswith(".")]
        for name in folders + names:
            path = Path(top) / name
            relative = path.relative_to(folder).as_posix()
            mode = path.lstat().st_mode
            if stat.S_ISLNK(mode):
                links.append(relative)
            elif not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
                others.append(relative)
            elif stat.S_ISREG(mode):
                files.append(relative)
    if links:
        raise DataFileError(
            f"{folder}: refusing to publish a folder with symbolic links: "
            f"{listed([link_text(folder, name) for name in sorted(links)])}. The Hub stores no "
            "links (the file a link points to would be uploaded in its place) and a build writes "
            "none: replace each link with the file it stands for, or remove it. Nothing was sent"
        )
    if others:
        raise DataFileError(
            f"{folder}: refusing to publish what is neither a file nor a folder: "
            f"{listed(sorted(others))}. Nothing was sent"
        )
    return sorted(files)


def link_text(folder: Path, name: str) -> str:
    path = folder / name
    resolved = Path(os.path.realpath(path))  # realpath, not resolve(): a loop must not raise
    if not resolved.is_relative_to(os.path.realpath(folder)):
        where = "leaves the folder"
    elif resolved.exists():  # False for a loop too
        where = "inside the folder"
    else:
        where = "inside the folder, to nothing"
    return f"{name} -> {os.readlink(path)} ({where})"


def listed(items: list[str], most: int = 10) -> str:
    more = f" and {len(items) - most} more" if len(items) > most else ""
    return ", ".join(items[:most]) + more


# ---- talking to the Hub ---------------------------------------------------------------------------
def publish(
    folder: Path,
    repo_id: str,
    tag: str | None = None,
    private: bool = False,
    token: str | None = None,
) -> Published:
    from huggingface_hub import HfApi

    folder = Path(folder)
    kind = check_folder(folder)
    api = HfApi(token=token)
    with hub_errors(repo_id, token):
        api.create_repo(repo_id, repo_type="dataset", private=private, exist_ok=True)
        head = api.repo_info(repo_id, repo_type="dataset", revision="main", files_metadata=True)
        if private and not head.private:
            raise PublishError(
                f"{repo_id}: --private, but the repo exists and is public; nothing was sent. Make it "
                "private on the Hub first, or publish without --private"
            )
        operations = changes(folder, head.siblings or [])
        tags = {
            ref.name: ref.target_commit
            for ref in api.list_repo_refs(repo_id, repo_type="dataset").tags
        }
        if tag in tags and (operations or tags[tag] != head.sha):
            raise PublishError(
                f"{repo_id}: tag {tag!r} already exists (on commit {tags[tag]}) and marks other "
                f"content than this folder's{digest_note(folder, kind)}; a published tag is never "
                "moved (tasks pin it with its content digest): choose a new tag. Nothing was committed"
            )
        commit = head.sha
        if operations:
            commit = api.create_commit(
                repo_id,
                operations,
                repo_type="dataset",
                parent_commit=head.sha,
                commit_message=f"symphony-bench publish: {kind}",
            ).oid
    if tag and tag not in tags:
        with hub_errors(
            repo_id,
            token,
            f"committed {commit} but could not tag it {tag!r} (publish again to tag it)",
        ):
            api.create_tag(repo_id, tag=tag, revision=commit, repo_type="dataset")
    return Published(repo_id, commit, commit != head.sha, tag)


def content_digest(folder: Path, kind: str) -> str | None:
    """The content digest a task YAML pins for this folder (plugin.core.dataset_digest); None for
    a kind no task loads."""
    from symphony_bench.plugin.core.dataset_digest import folder_sha256

    registered = build_kind(kind)
    return folder_sha256(folder) if registered and registered.task_data else None


def digest_note(folder: Path, kind: str) -> str:
    digest = content_digest(folder, kind)
    return f" (dataset_sha256 {digest})" if digest else ""


def changes(folder: Path, siblings: list) -> list:
    """The operations that make the repo's files equal the folder's: files new or changed here (by git
    blob id, or sha256 for LFS files) and files only there."""
    from huggingface_hub import CommitOperationAdd, CommitOperationDelete

    remote = {
        sibling.rfilename: sibling for sibling in siblings if sibling.rfilename != ".gitattributes"
    }
    ours = files_to_publish(folder)
    operations = []
    with progress(len(ours), "comparing files with the Hub") as counter:
        for name in ours:
            if name not in remote or not same_content(folder / name, remote[name]):
                operations.append(CommitOperationAdd(name, folder / name))
            counter.update(1)
    return operations + [CommitOperationDelete(name) for name in sorted(set(remote) - set(ours))]


def same_content(path: Path, sibling) -> bool:
    """Whether the Hub's file (a RepoSibling with files metadata) holds `path`'s bytes."""
    if sibling.lfs is not None:
        with path.open("rb") as handle:
            return sibling.lfs.sha256 == hashlib.file_digest(handle, "sha256").hexdigest()
    blob = hashlib.sha1(b"blob %d\0" % path.stat().st_size)  # git's blob id
    with path.open("rb") as handle:
        while chunk := handle.read(1 << 20):
            blob.update(chunk)
    return sibling.blob_id == blob.hexdigest()


@contextmanager
def hub_errors(repo_id: str, token: str | None, doing: str = "") -> Iterator[None]:
    """Turns the client's HTTP and connection errors into one PublishError line; no message that
    leaves here holds the token (given, from HF_TOKEN or from the saved login)."""
    import httpx2  # huggingface_hub 2.x's HTTP client
    from huggingface_hub import get_token
    from huggingface_hub.errors import HfHubHTTPError

    secrets = [secret for secret in (token, get_token()) if secret]
    prefix = f"{repo_id}: {doing + ': ' if doing else ''}"

    def scrub(text: str) -> str:
        for secret in secrets:
            text = text.replace(secret, "***")
        return text

    try:
        yield
    except PublishError as error:
        raise PublishError(scrub(str(error))) from None
    except HfHubHTTPError as error:
        status = error.response.status_code if error.response is not None else "?"
        reason = error.server_message or str(error).splitlines()[0]
        raise PublishError(
            scrub(f"{prefix}the Hub answered {status}: {reason}{HINTS.get(status, '')}")
        ) from None
    except (httpx2.HTTPError, ConnectionError) as error:
        raise PublishError(
            scrub(f"{prefix}cannot reach the Hub ({type(error).__name__}: {error})")
        ) from None
    except (ValueError, OSError) as error:
        kind = (
            "the Hub refused the dataset card"
            if "Invalid metadata in README.md" in str(error)
            else type(error).__name__
        )
        raise PublishError(scrub(f"{prefix}{kind}: {error}")) from None


HINTS = {
    401: " (check the token: --token, HF_TOKEN or `hf auth login`)",
    403: " (the token cannot write to this repo)",
    409: " (someone else made it meanwhile)",
    412: " (the repo changed while publishing: nothing was committed; publish again)",
}


def describe(folder: Path, repo_id: str, tag: str | None, private: bool) -> str:
    """What `publish` would do, for --dry-run: the checks run, nothing is sent (so it cannot know which
    files the Hub already has)."""
    kind = check_folder(Path(folder))
    files = files_to_publish(Path(folder))
    sizes = {name: (Path(folder) / name).stat().st_size for name in files}
    lines = [
        f"would publish {folder} ({kind}) to the {'private' if private else 'public'} dataset repo {repo_id}, "
        f"in one commit{f', tagged {tag}' if tag else ''}: {len(files)} files, {sum(sizes.values()):,} bytes. "
        "Files the Hub already holds unchanged are skipped, files only on the Hub are deleted."
    ]
    lines += [f"  {name} ({sizes[name]:,} bytes)" for name in files]
    lines += [left_out_line(Path(folder))] if hidden_entries(Path(folder)) else []
    digest = content_digest(Path(folder), kind)
    lines += [f"dataset_sha256 {digest} (what a task YAML pins)"] if digest else []
    lines += ["", f"--- {CARD} ---", (Path(folder) / CARD).read_text(encoding="utf-8")]
    return "\n".join(lines)


def left_out_line(folder: Path) -> str:
    return (
        f"not sent (hidden files and folders are never published): {listed(hidden_entries(folder))}"
    )


def run(args) -> None:
    if args.dry_run:
        print(describe(args.build_dir, args.repo_id, args.revision, args.private))
        return
    with sigterm_raises():  # a stop mid-upload ends the request: the Hub commits nothing
        published = publish(
            args.build_dir, args.repo_id, tag=args.revision, private=args.private, token=args.token
        )
    if hidden_entries(Path(args.build_dir)):
        print(f"symphony-bench: {left_out_line(Path(args.build_dir))}", file=sys.stderr)
    change = "new commit" if published.new_commit else "unchanged, no new commit"
    print(
        f"repo {published.repo_id}\ncommit {published.commit} ({change})\ntag {published.tag or '-'}"
    )
    digest = content_digest(Path(args.build_dir), output_kind(Path(args.build_dir)))
    if digest:
        print(
            f"dataset_sha256 {digest} (pin it with dataset_repo {published.repo_id} and "
            f"dataset_revision {published.tag or published.commit} in the task YAML's metadata)"
        )
    if not published.new_commit:
        print(
            f"symphony-bench: {args.build_dir} is already the head of {args.repo_id}",
            file=sys.stderr,
        )
