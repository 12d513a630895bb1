"""The loopback Hub, driven by the real `huggingface_hub` client (writes) and the real `datasets` /
`snapshot_download` through olah (reads, in a subprocess so that HF_ENDPOINT is read at import as
on a user's machine)."""

from __future__ import annotations

import hashlib
import io
import json
import os
import socket
import subprocess
import sys
import wave
from pathlib import Path

import pytest
from datasets import Audio, Dataset
from huggingface_hub import CommitOperationAdd
from huggingface_hub.errors import HfHubHTTPError

pytestmark = (
    pytest.mark.slow
)  # the loopback Hub: our write server and olah, started for the session
CARD = """---
license: cc-by-4.0
configs:
- config_name: alpha
  data_files:
  - split: test
    path: data/alpha/test-*.parquet
- config_name: beta
  data_files:
  - split: test
    path: data/beta/test-*.parquet
---
# Loopback test set
"""

READER = r"""
import hashlib, json, sys
from pathlib import Path
import datasets, huggingface_hub
repo_id, reads, snapshot_revision = json.loads(sys.argv[1])
out = {}
for config, revision in reads:
    rows = datasets.load_dataset(repo_id, config, revision=revision, split="test")
    out[f"{config}@{revision}"] = [[r["id"], hashlib.sha256(r["audio"]["bytes"]).hexdigest()] for r in rows]
folder = huggingface_hub.snapshot_download(repo_id, repo_type="dataset", revision=snapshot_revision)
out["snapshot"] = sorted(str(p.relative_to(folder)) for p in Path(folder).rglob("*") if p.is_file())
print(json.dumps(out))
"""


def wav(seed: int) -> bytes:
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(8000)
        out.writeframes(bytes([seed % 256, 0]) * 400)
    return buffer.getvalue()


def parquet(ids: list[int]) -> bytes:
    rows = {"id": ids, "audio": [{"bytes": wav(i), "path": f"{i}.wav"} for i in ids]}
    buffer = io.BytesIO()
    Dataset.from_dict(rows).cast_column("audio", Audio(decode=False)).to_parquet(buffer)
    return buffer.getvalue()


def expected(ids: list[int]) -> list[list]:
    return [[i, hashlib.sha256(wav(i)).hexdigest()] for i in ids]


def dataset_ops(alpha: list[int], beta: list[int]) -> list[CommitOperationAdd]:
    return [
        CommitOperationAdd("README.md", CARD.encode()),
        CommitOperationAdd("data/alpha/test-00000-of-00001.parquet", parquet(alpha)),
        CommitOperationAdd("data/beta/test-00000-of-00001.parquet", parquet(beta)),
    ]


def head(api, repo_id: str) -> str:
    return api.repo_info(repo_id, repo_type="dataset").sha


def test_create_repo_is_refused_when_it_exists_unless_exist_ok(loopback_hub):
    api = loopback_hub.api()
    url = api.create_repo("org/created", repo_type="dataset")
    assert url.repo_id == "org/created" and url.repo_type == "dataset"
    with pytest.raises(HfHubHTTPError, match="already created") as refused:
        api.create_repo("org/created", repo_type="dataset")
    assert refused.value.response.status_code == 409
    assert (
        api.create_repo("org/created", repo_type="dataset", exist_ok=True).repo_id == "org/created"
    )
    refs = api.list_repo_refs("org/created", repo_type="dataset")
    assert [b.name for b in refs.branches] == [
        "main"
    ] and refs.tags == []  # like the Hub: an initial commit
    assert (
        loopback_hub.root / "datasets" / "org" / "created" / "HEAD"
    ).is_file()  # olah's mirrors-path layout


def test_commit_same_content_stale_parent_and_tags(loopback_hub):
    api, repo_id = loopback_hub.api(), "org/commits"
    api.create_repo(repo_id, repo_type="dataset")
    first = api.create_commit(
        repo_id,
        dataset_ops([1], [2]),
        commit_message="publish",
        repo_type="dataset",
        parent_commit=head(api, repo_id),
    )
    assert head(api, repo_id) == first.oid
    assert {s.rfilename for s in api.repo_info(repo_id, repo_type="dataset").siblings} >= {
        "README.md",
        "data/alpha/test-00000-of-00001.parquet",
        "data/beta/test-00000-of-00001.parquet",
    }

    # Same content: preupload answers each file's current blob id, the client drops every operation and sends no commit.
    commits_before = sum(
        path.endswith("/commit/main") for _, path, _ in loopback_hub.server.requests
    )
    again = api.create_commit(
        repo_id,
        dataset_ops([1], [2]),
        commit_message="publish",
        repo_type="dataset",
        parent_commit=first.oid,
    )
    assert again.oid == first.oid and head(api, repo_id) == first.oid
    assert (
        sum(path.endswith("/commit/main") for _, path, _ in loopback_hub.server.requests)
        == commits_before
    )

    with pytest.raises(HfHubHTTPError, match="A commit has happened since") as stale:
        api.create_commit(
            repo_id,
            dataset_ops([9], [9]),
            commit_message="stale",
            repo_type="dataset",
            parent_commit="0" * 40,
        )
    assert stale.value.response.status_code == 412 and head(api, repo_id) == first.oid

    api.create_tag(repo_id, tag="v1", revision=first.oid, repo_type="dataset")
    with pytest.raises(HfHubHTTPError, match="Tag v1 already exists") as duplicate:
        api.create_tag(repo_id, tag="v1", repo_type="dataset")
    assert duplicate.value.response.status_code == 409
    assert [
        (t.name, t.target_commit) for t in api.list_repo_refs(repo_id, repo_type="dataset").tags
    ] == [("v1", first.oid)]
    assert api.repo_info(repo_id, repo_type="dataset", revision="v1").sha == first.oid


def test_bad_token_is_refused_with_a_readable_error(loopback_hub):
    loopback_hub.api().create_repo("org/guarded", repo_type="dataset")
    intruder = loopback_hub.api(token="hf_wrong")
    with pytest.raises(
        HfHubHTTPError, match="Invalid credentials in Authorization header"
    ) as refused:
        intruder.create_repo("org/other", repo_type="dataset")
    assert refused.value.response.status_code == 401
    with pytest.raises(HfHubHTTPError, match="Invalid credentials") as refused:
        intruder.create_commit(
            "org/guarded",
            [CommitOperationAdd("a.txt", b"a")],
            commit_message="x",
            repo_type="dataset",
        )
    assert refused.value.response.status_code == 401
    assert not (loopback_hub.root / "datasets" / "org" / "other").exists()


def test_malformed_card_is_refused_before_any_upload(loopback_hub):
    api = loopback_hub.api()
    api.create_repo("org/carded", repo_type="dataset")
    before = len(loopback_hub.server.requests)
    bad_card = "---\nconfigs:\n- data_files: data/*.parquet\n---\n"
    with pytest.raises(
        ValueError, match=r"Invalid metadata in README.md.\n- \"configs\[0\]\" must be an object"
    ):
        api.create_commit(
            "org/carded",
            [CommitOperationAdd("README.md", bad_card.encode())],
            commit_message="x",
            repo_type="dataset",
        )
    with pytest.raises(ValueError, match="Invalid YAML"):
        api.create_commit(
            "org/carded",
            [CommitOperationAdd("README.md", b"---\nconfigs: [\n---\n")],
            commit_message="x",
            repo_type="dataset",
        )
    assert [path for _, path, _ in loopback_hub.server.requests[before:]] == [
        "/api/validate-yaml"
    ] * 2


def test_interrupted_commit_leaves_no_partial_commit(loopback_hub):
    api, repo_id = loopback_hub.api(), "org/interrupted"
    api.create_repo(repo_id, repo_type="dataset")
    before = head(api, repo_id)
    line = json.dumps(
        {"key": "file", "value": {"path": "a.txt", "content": "YQ==", "encoding": "base64"}}
    )
    body = (
        json.dumps({"key": "header", "value": {"summary": "cut"}}) + "\n" + line + "\n"
    ).encode()
    port = int(loopback_hub.write_endpoint.rsplit(":", 1)[1])
    with socket.create_connection(("127.0.0.1", port)) as conn:
        conn.sendall(
            f"POST /api/datasets/{repo_id}/commit/main HTTP/1.1\r\nHost: x\r\n"
            f"Authorization: Bearer {loopback_hub.token}\r\nContent-Type: application/x-ndjson\r\n"
            f"Content-Length: {len(body) + 1000}\r\n\r\n".encode()
            + body
        )
        conn.shutdown(socket.SHUT_WR)  # the client dies mid-upload
        assert b" 400 " in conn.recv(1000).split(b"\r\n")[0]
    assert head(api, repo_id) == before
    git_dir = loopback_hub.root / "datasets" / repo_id
    assert (
        loopback_hub.server.git(git_dir, "rev-list", "--all", "--count") == "1"
    )  # only the initial commit


def test_published_rows_load_through_olah_by_tag_and_old_tags_keep_old_rows(loopback_hub):
    api, repo_id = loopback_hub.api(), "org/audio-set"
    api.create_repo(repo_id, repo_type="dataset")
    v1 = api.create_commit(
        repo_id,
        dataset_ops([1, 2], [3]),
        commit_message="v1",
        repo_type="dataset",
        parent_commit=head(api, repo_id),
    )
    api.create_tag(repo_id, tag="v1", revision=v1.oid, repo_type="dataset")
    v2 = api.create_commit(
        repo_id,
        dataset_ops([4, 5, 6], [3]),
        commit_message="v2",
        repo_type="dataset",
        parent_commit=v1.oid,
    )
    api.create_tag(repo_id, tag="v2", revision=v2.oid, repo_type="dataset")

    reads = [["alpha", "v1"], ["beta", "v1"], ["alpha", "v2"], ["alpha", v1.oid], ["alpha", "main"]]
    done = subprocess.run(
        [sys.executable, "-c", READER, json.dumps([repo_id, reads, "v1"])],
        env=loopback_hub.env(),
        capture_output=True,
        text=True,
        timeout=600,  # seconds when idle; wide for a loaded machine
        check=False,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    got = json.loads(done.stdout.splitlines()[-1])
    assert got["alpha@v1"] == expected([1, 2]) and got["beta@v1"] == expected([3])
    assert got["alpha@v2"] == got["alpha@main"] == expected([4, 5, 6])
    assert got[f"alpha@{v1.oid}"] == expected([1, 2])
    assert got["snapshot"] == [
        ".gitattributes",
        "README.md",
        "data/alpha/test-00000-of-00001.parquet",
        "data/beta/test-00000-of-00001.parquet",
    ]


def test_the_loopback_tests_pass_when_the_caller_runs_offline(tmp_path):
    """HF_HUB_OFFLINE=1 (common for people who run evaluations offline) in the environment pytest is
    started with: an in-process client test still reaches the loopback Hub, since the tests set the
    environment they need (tests/hub/conftest.py), also in the constants read at import."""
    offline = {"HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    completed = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "--basetemp",
            str(tmp_path / "basetemp"),
            f"{__file__}::test_create_repo_is_refused_when_it_exists_unless_exist_ok",
        ],
        cwd=Path(__file__).parents[2],
        env={**os.environ, **offline},
        capture_output=True,
        text=True,
        timeout=600,  # seconds when idle; wide for a loaded machine
    )
    assert completed.returncode == 0, completed.stdout[-4000:]
    assert "1 passed" in completed.stdout
