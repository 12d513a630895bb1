"""`loopback_hub`: a Hugging Face Hub on 127.0.0.1 for the whole session — writes go to our stdlib server
(loopback_hub.py), reads to `olah` in offline mode serving the same git repositories (its `mirrors-path`)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from huggingface_hub import HfApi

from hub.loopback_hub import LoopbackHub

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
        tests/conftest.py's OFFLINE_ENV when merged after it."""
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


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _start_olah(root: Path, scratch: Path, attempts: int = 3) -> tuple[subprocess.Popen, int]:
    """Starts `olah-cli` on a free port and waits until it accepts connections; a port taken meanwhile is retried."""
    olah = Path(sys.executable).with_name("olah-cli")
    for attempt in range(attempts):
        port = _free_port()
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
        deadline = time.monotonic() + 60
        while process.poll() is None and time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                return process, port
            except OSError:
                time.sleep(0.1)
        _stop(process)
    pytest.fail(f"olah did not start ({attempts} attempts); last log:\n{log.read_text()[-4000:]}")


def _stop(process: subprocess.Popen) -> None:
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


@pytest.fixture(scope="session")
def loopback_hub(tmp_path_factory):
    scratch = tmp_path_factory.mktemp("loopback-hub")
    root = scratch / "mirrors"
    root.mkdir()
    token = "hf_loopback_" + os.urandom(8).hex()
    server = LoopbackHub(root, token)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    olah, port = _start_olah(root, scratch)
    try:
        yield LoopbackHubServers(
            server.endpoint, f"http://127.0.0.1:{port}", token, root, server, scratch
        )
    finally:
        _stop(olah)
        server.shutdown()
        server.server_close()
        thread.join()
