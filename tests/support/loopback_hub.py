"""A loopback stand-in for the Hugging Face Hub's WRITE API, for tests; reads go through `olah` (`start_olah`),
and `LoopbackHubServers` is the pair the `loopback_hub` fixture (tests/hub/conftest.py) yields.

Each repository is a bare git repository at `<root>/<type>s/<org>/<name>`, the layout olah's offline
`mirrors-path` serves. The endpoints are the ones `huggingface_hub` 2.4 calls to create a repo, validate a card,
pre-upload, commit and tag (checked against its `hf_api.py` / `_commit_api.py`), plus repo info and refs.
Every file is answered `uploadMode: "regular"`, so its bytes travel base64 inside the NDJSON commit and neither
LFS nor Xet is ever used. Errors have the Hub's shape (`{"error": ...}` plus `X-Error-Code` / `X-Error-Message`),
so the client raises its own exceptions with readable messages.
"""

from __future__ import annotations

import base64
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlsplit

import pytest
import yaml
from huggingface_hub import HfApi

GIT_ENV = {
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_AUTHOR_NAME": "loopback-hub",
    "GIT_AUTHOR_EMAIL": "hub@loopback.invalid",
    "GIT_COMMITTER_NAME": "loopback-hub",
    "GIT_COMMITTER_EMAIL": "hub@loopback.invalid",
}
GITATTRIBUTES = b"".join(
    f"*.{ext} filter=lfs diff=lfs merge=lfs -text\n".encode() for ext in ("parquet", "arrow", "wav")
)
REPO = r"/api/(?P<repo_type>models|datasets|spaces)/(?P<repo_id>[^/]+/[^/]+)"
ROUTES = [  # (method, path pattern, handler name)
    ("POST", r"/api/repos/create", "create_repo"),
    ("POST", r"/api/validate-yaml", "validate_yaml"),
    ("POST", REPO + r"/preupload/(?P<rev>[^/]+)", "preupload"),
    ("POST", REPO + r"/commit/(?P<rev>[^/]+)", "commit"),
    ("POST", REPO + r"/tag/(?P<rev>[^/]+)", "tag"),
    ("GET", REPO + r"/refs", "refs"),
    ("GET", REPO + r"(?:/revision/(?P<rev>[^/]+))?", "repo_info"),
]


class HubError(Exception):
    def __init__(
        self, status: int, message: str, code: str | None = None, extra: dict | None = None
    ):
        super().__init__(message)
        self.status, self.message, self.code, self.extra = status, message, code, extra or {}


def card_errors(content: str) -> list[str]:
    """What the Hub's validate-yaml would refuse: malformed YAML, or `configs` that are not named file lists."""
    match = re.match(r"---\r?\n(.*?)\r?\n---", content, flags=re.DOTALL)
    if match is None:
        return []
    try:
        meta = yaml.safe_load(match.group(1)) or {}
    except yaml.YAMLError as err:
        return [f"Invalid YAML in the card's metadata: {err}"]
    if not isinstance(meta, dict):
        return ["The card's metadata must be a YAML mapping"]
    configs = meta.get("configs", [])
    if not isinstance(configs, list):
        return ['"configs" must be an array']
    errors = []
    for i, config in enumerate(configs):
        if not isinstance(config, dict) or not isinstance(config.get("config_name"), str):
            errors.append(f'"configs[{i}]" must be an object with a string "config_name"')
        elif not isinstance(config.get("data_files"), (str, list)):
            errors.append(f'"configs[{i}].data_files" must be a string or an array')
    return errors


class LoopbackHub(ThreadingHTTPServer):
    """`LoopbackHub(root, token)` listens on 127.0.0.1 (a free port); run `serve_forever` in a thread.
    `requests` logs `(method, path, status)` of every request, so tests can see what the client sent."""

    daemon_threads = True

    def __init__(self, root: Path, token: str, port: int = 0):
        super().__init__(("127.0.0.1", port), _Handler)
        self.root, self.token = Path(root), token
        self.endpoint = f"http://127.0.0.1:{self.server_address[1]}"
        self.requests: list[tuple[str, str, int]] = []
        self.lock = threading.Lock()  # repo creation, commits and tags change refs one at a time
        self.body_delay_s = (
            0.0  # > 0: read request bodies 16 KiB at a time with this pause (a slow link)
        )
        self.large_body_started = (
            threading.Event()
        )  # set when a slow read of a body over 1 MB begins

    def git(
        self, repo: Path, *args: str, input: bytes | None = None, env: dict | None = None
    ) -> str:
        done = subprocess.run(
            ["git", "--git-dir", str(repo), *args],
            input=input,
            capture_output=True,
            env={**os.environ, **GIT_ENV, **(env or {})},
            check=True,
        )
        return done.stdout.decode().strip()

    def repo_path(self, repo_type: str, repo_id: str, must_exist: bool = True) -> Path:
        path = self.root / repo_type / repo_id
        if must_exist and not path.is_dir():
            raise HubError(404, "Repository not found", "RepoNotFound")
        return path

    def resolve(self, repo: Path, rev: str) -> str:
        try:
            return self.git(repo, "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}")
        except subprocess.CalledProcessError:
            raise HubError(404, f"Invalid rev id: {rev}", "RevisionNotFound") from None

    def blob_oid(self, repo: Path, rev: str, path: str) -> str | None:
        listing = self.git(repo, "ls-tree", rev, "--", path)
        return listing.split()[2] if listing else None

    # --- endpoints: each takes the URL's groups, the parsed body and the query, and returns a JSON-able answer ---

    def create_repo(self, body, query):
        repo_type = (body.get("type") or "model") + "s"
        repo_id = (
            f"{body['organization']}/{body['name']}"
            if body.get("organization")
            else f"user/{body['name']}"
        )
        prefix = "" if repo_type == "models" else f"{repo_type}/"
        url = f"{self.endpoint}/{prefix}{repo_id}"
        repo = self.repo_path(repo_type, repo_id, must_exist=False)
        with self.lock:
            if repo.exists():
                # the client reads the url from this 409 when exist_ok=True
                raise HubError(
                    409, f"You already created this {repo_type[:-1]} repo", extra={"url": url}
                )
            subprocess.run(
                ["git", "init", "--quiet", "--bare", "--initial-branch=main", str(repo)],
                check=True,
                capture_output=True,
                env={**os.environ, **GIT_ENV},
            )
            self.write_commit(
                repo, None, "initial commit", "", {".gitattributes": GITATTRIBUTES}, []
            )
        return {"url": url, "name": repo_id, "id": repo_id}

    def validate_yaml(self, body, query):
        errors = card_errors(body.get("content", ""))
        if errors:
            raise HubError(
                400,
                "Invalid metadata in README.md",
                extra={"errors": [{"message": e} for e in errors]},
            )
        return {"errors": [], "warnings": []}

    def preupload(self, body, query, repo_type, repo_id, rev):
        repo = self.repo_path(repo_type, repo_id)
        head = self.resolve(repo, rev)
        # `oid` (the blob id already at that path) is what lets the client drop unchanged files: it compares it with
        # the git blob id of its own bytes. `shouldIgnore` is for .gitignore'd files, which still yield a commit.
        files = [
            {
                "path": f["path"],
                "uploadMode": "regular",
                "shouldIgnore": False,
                "oid": self.blob_oid(repo, head, f["path"]),
            }
            for f in body["files"]
        ]
        return {"files": files, "commitOid": head}

    def commit(self, body, query, repo_type, repo_id, rev):
        repo = self.repo_path(repo_type, repo_id)
        if "create_pr" in query:
            raise HubError(400, "The loopback hub does not open pull requests")
        header, added, deleted = None, {}, []
        for item in body:
            key, value = item["key"], item["value"]
            if key == "header":
                header = value
            elif key == "file" and value.get("encoding") == "base64":
                added[value["path"]] = base64.b64decode(value["content"], validate=True)
            elif key in ("deletedFile", "deletedFolder"):
                deleted.append(value["path"].rstrip("/"))
            else:
                raise HubError(
                    400,
                    f"Unsupported commit operation {key!r} (the loopback hub answers uploadMode 'regular')",
                )
        if header is None:
            raise HubError(400, "The commit payload has no header line")
        with self.lock:
            head = self.resolve(repo, f"refs/heads/{rev}")
            parent = header.get("parentCommit")
            if parent and not head.startswith(parent.lower()):
                raise HubError(412, "A commit has happened since. Please refresh and try again.")
            oid = self.write_commit(
                repo,
                head,
                header["summary"],
                header.get("description", ""),
                added,
                deleted,
                branch=rev,
            )
        prefix = "" if repo_type == "models" else f"/{repo_type}"
        return {
            "success": True,
            "commitOid": oid,
            "commitUrl": f"{self.endpoint}{prefix}/{repo_id}/commit/{oid}",
            "pullRequestUrl": None,
        }

    def write_commit(
        self,
        repo: Path,
        head: str | None,
        summary: str,
        description: str,
        added: dict,
        deleted: list,
        branch: str = "main",
    ) -> str:
        """Builds the new tree in a private index and moves the branch only if it still points at `head`."""
        index = {"GIT_INDEX_FILE": str(repo / f"index-{threading.get_ident()}")}
        try:
            self.git(repo, *(["read-tree", head] if head else ["read-tree", "--empty"]), env=index)
            for path in deleted:
                listed = self.git(repo, "ls-files", "-z", "--", path, env=index).split("\0")
                if not [p for p in listed if p]:
                    raise HubError(
                        404, f"A file with this name doesn't exist: {path}", "EntryNotFound"
                    )
                self.git(
                    repo,
                    "update-index",
                    "--force-remove",
                    "-z",
                    "--stdin",
                    input="\0".join(listed).encode(),
                    env=index,
                )
            for path, content in added.items():
                blob = self.git(repo, "hash-object", "-w", "--stdin", input=content)
                self.git(
                    repo, "update-index", "--add", "--cacheinfo", f"100644,{blob},{path}", env=index
                )
            tree = self.git(repo, "write-tree", env=index)
        finally:
            Path(index["GIT_INDEX_FILE"]).unlink(missing_ok=True)
        message = summary + (f"\n\n{description}" if description else "")
        oid = self.git(
            repo, "commit-tree", tree, *(["-p", head] if head else []), input=message.encode()
        )
        self.git(repo, "update-ref", f"refs/heads/{branch}", oid, head or "0" * 40)
        return oid

    def tag(self, body, query, repo_type, repo_id, rev):
        repo = self.repo_path(repo_type, repo_id)
        name = body["tag"]
        with self.lock:
            target = self.resolve(repo, rev)
            if self.git(repo, "for-each-ref", f"refs/tags/{name}"):
                raise HubError(409, f"Tag {name} already exists")
            message = ["-m", body["message"]] if body.get("message") else []
            self.git(repo, "tag", *message, name, target)
        return {}

    def refs(self, body, query, repo_type, repo_id):
        repo = self.repo_path(repo_type, repo_id)
        groups = {
            "refs/heads/": "branches",
            "refs/tags/": "tags",
            "refs/convert/": "converts",
            "refs/pr/": "pullRequests",
        }
        answer = {group: [] for group in groups.values()}
        for line in self.git(
            repo, "for-each-ref", "--format=%(refname) %(objectname) %(*objectname)"
        ).splitlines():
            ref, target, peeled = (line.split() + [""])[:3]
            prefix = next((p for p in groups if ref.startswith(p)), None)
            if prefix:
                answer[groups[prefix]].append(
                    {"name": ref[len(prefix) :], "ref": ref, "targetCommit": peeled or target}
                )
        if "include_prs" not in query:
            del answer["pullRequests"]
        return answer

    def repo_info(self, body, query, repo_type, repo_id, rev=None):
        repo = self.repo_path(repo_type, repo_id)
        sha = self.resolve(repo, rev or "main")
        entries = [
            line.split("\t", 1)
            for line in self.git(repo, "ls-tree", "-r", "-l", "-z", sha).split("\0")
            if line
        ]
        date = datetime.fromtimestamp(
            int(self.git(repo, "show", "-s", "--format=%ct", sha)), timezone.utc
        )
        # `?blobs=true` (files_metadata=True) adds each file's git blob id and size, as the Hub does
        blobs = "blobs" in query
        siblings = [
            {
                "rfilename": path,
                **({"blobId": info.split()[2], "size": int(info.split()[3])} if blobs else {}),
            }
            for info, path in entries
        ]
        return {
            "id": repo_id,
            "author": repo_id.split("/")[0],
            "sha": sha,
            "private": False,
            "disabled": False,
            "gated": False,
            "lastModified": date.strftime("%Y-%m-%dT%H:%M:%S.000Z"),
            "tags": [],
            "siblings": siblings,
        }


class _Handler(BaseHTTPRequestHandler):
    server: LoopbackHub

    def do_GET(self):
        self.dispatch("GET")

    def do_POST(self):
        self.dispatch("POST")

    def do_HEAD(
        self,
    ):  # not served, but logged like every request (tests check that nothing was asked)
        self.dispatch("HEAD")

    def dispatch(self, method: str):
        url = urlsplit(self.path)
        try:
            self.check_token(write=method == "POST")
            for route_method, pattern, name in ROUTES:
                match = re.fullmatch(pattern, url.path)
                if route_method == method and match:
                    groups = {
                        key: unquote(value)
                        for key, value in match.groupdict().items()
                        if value is not None
                    }
                    self.answer(
                        200,
                        getattr(self.server, name)(self.read_body(), parse_qs(url.query), **groups),
                    )
                    return
            raise HubError(404, f"The loopback hub has no endpoint {method} {url.path}")
        except HubError as err:
            self.answer(err.status, {"error": err.message, **err.extra}, err)
        except (KeyError, TypeError, ValueError) as err:  # malformed request bodies
            self.answer(400, {"error": f"Bad request: {err!r}"})
        except subprocess.CalledProcessError as err:
            self.answer(500, {"error": f"git failed: {err.stderr.decode(errors='replace')}"})

    def check_token(self, write: bool):
        given = self.headers.get("Authorization")
        if given is not None and given != f"Bearer {self.server.token}":
            raise HubError(401, "Invalid credentials in Authorization header")
        if given is None and write:
            raise HubError(401, "You must be authenticated to write to the Hub")

    def read_body(self):
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if not self.server.body_delay_s else self.read_slowly(length)
        if len(raw) < length:  # the client went away mid-request: nothing is written
            raise HubError(400, f"Incomplete request body ({len(raw)} of {length} bytes)")
        if not raw:
            return {}
        if self.headers.get("Content-Type", "").startswith("application/x-ndjson"):
            return [json.loads(line) for line in raw.splitlines() if line.strip()]
        return json.loads(raw)

    def read_slowly(self, length: int) -> bytes:
        if length > 1_000_000:
            self.server.large_body_started.set()
        chunks, received = [], 0
        while received < length:
            chunk = self.rfile.read(min(16384, length - received))
            if not chunk:
                break
            chunks.append(chunk)
            received += len(chunk)
            time.sleep(self.server.body_delay_s)
        return b"".join(chunks)

    def answer(self, status: int, payload, error: HubError | None = None):
        data = json.dumps(payload).encode()
        self.server.requests.append((self.command, urlsplit(self.path).path, status))
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        if error is not None:
            self.send_header("X-Error-Message", error.message)
            if error.code:
                self.send_header("X-Error-Code", error.code)
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


# ---- the read side (olah) and the pair of servers the fixture yields ----------------------------

PROXY_VARIABLES = (
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "ALL_PROXY",
    "http_proxy",
    "https_proxy",
    "all_proxy",
)
OLAH_CONFIG = """[basic]
host = "127.0.0.1"
port = {port}
repos-path = "{cache}"
mirrors-path = ["{root}"]

[accessibility]
offline = true
"""


@dataclass
class LoopbackHubServers:
    write_endpoint: (
        str  # our server: create repo, validate-yaml, preupload, commit, tag, repo info, refs
    )
    read_endpoint: str  # olah: repo info by revision, tree, paths-info, resolve (what datasets / snapshot_download use)
    token: str  # the only token the write server accepts
    root: Path  # <root>/datasets/<org>/<name> is each repository's bare git directory
    server: LoopbackHub = field(
        repr=False
    )  # `server.requests` logs (method, path, status) of every write-side request
    scratch: Path = field(repr=False)

    def api(self, token: str | None = None) -> HfApi:
        """The real client, pointed at the write server (with the right token unless another is given)."""
        return HfApi(endpoint=self.write_endpoint, token=token or self.token)

    def env(self, *, write: bool = False, token: str | bool = True) -> dict[str, str]:
        """A complete environment for a subprocess: HF_ENDPOINT is the read endpoint (olah), or the write one with
        `write=True`; HF_HOME is a fresh folder on every call; HF_TOKEN is the server's token (`token=False`: none,
        a string: that one). Offline switches are turned off and proxies removed, so this also overrides
        support.harness's OFFLINE_ENV when merged after it."""
        env = {
            key: value
            for key, value in os.environ.items()
            if key not in PROXY_VARIABLES and key != "HF_TOKEN"
        }
        env.update(
            {
                "HF_ENDPOINT": self.write_endpoint if write else self.read_endpoint,
                "HF_HOME": tempfile.mkdtemp(prefix="hf-home-", dir=self.scratch),
                "HF_HUB_DISABLE_TELEMETRY": "1",
                "HF_HUB_OFFLINE": "0",
                "HF_DATASETS_OFFLINE": "0",
                "NO_PROXY": "127.0.0.1,localhost",
                "no_proxy": "127.0.0.1,localhost",
            }
        )
        if token:
            env["HF_TOKEN"] = self.token if token is True else token
        return env


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start_olah(root: Path, scratch: Path, attempts: int = 3) -> tuple[subprocess.Popen, int]:
    """Starts `olah-cli` on a free port and waits until it accepts connections; a port taken meanwhile is retried."""
    olah = Path(sys.executable).with_name("olah-cli")
    for attempt in range(attempts):
        port = free_port()
        config = scratch / f"olah-{attempt}.toml"
        config.write_text(OLAH_CONFIG.format(port=port, cache=scratch / "olah-cache", root=root))
        log = scratch / f"olah-{attempt}.log"
        with log.open("w") as out:
            process = subprocess.Popen(
                [str(olah), "-c", str(config), "--log-path", str(scratch / "olah-logs")],
                cwd=scratch,
                stdout=out,
                stderr=subprocess.STDOUT,
            )
        deadline = time.monotonic() + 300  # seconds when idle; wide for a loaded machine
        while process.poll() is None and time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                return process, port
            except OSError:
                time.sleep(0.1)
        stop(process)
    pytest.fail(f"olah did not start ({attempts} attempts); last log:\n{log.read_text()[-4000:]}")


def stop(process: subprocess.Popen) -> None:
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
