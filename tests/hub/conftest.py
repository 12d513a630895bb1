"""`loopback_hub`: a Hugging Face Hub on 127.0.0.1 for the whole session — writes go to our stdlib server
(support/loopback_hub.py), reads to `olah` in offline mode serving the same git repositories (its `mirrors-path`).

Every test here talks to that Hub, in this process too (`loopback_hub.api()`), so `online_hub_client`
sets the environment it needs whatever the caller's is: HF_HUB_OFFLINE=1 is a common setting for people
who run evaluations offline. Subprocesses get theirs from `loopback_hub.env()`."""

from __future__ import annotations

import os
import sys
import threading

import pytest
from support.loopback_hub import LoopbackHub, LoopbackHubServers, start_olah, stop

OFFLINE_SWITCHES = ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE", "TRANSFORMERS_OFFLINE")


@pytest.fixture(autouse=True)
def online_hub_client(monkeypatch):
    """Offline switches off for the test, in the environment and in the constants the clients read
    from it at import (huggingface_hub.constants.HF_HUB_OFFLINE; datasets.config's copies)."""
    import huggingface_hub.constants

    for name in OFFLINE_SWITCHES:
        monkeypatch.setenv(name, "0")
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", False)
    if "datasets.config" in sys.modules:  # imported already: its copies were taken at import
        config = sys.modules["datasets.config"]
        monkeypatch.setattr(config, "HF_HUB_OFFLINE", False)
        monkeypatch.setattr(config, "HF_DATASETS_OFFLINE", False)


@pytest.fixture(scope="session")
def loopback_hub(tmp_path_factory):
    scratch = tmp_path_factory.mktemp("loopback-hub")
    root = scratch / "mirrors"
    root.mkdir()
    token = "hf_loopback_" + os.urandom(8).hex()
    server = LoopbackHub(root, token)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    olah, port = start_olah(root, scratch)
    try:
        yield LoopbackHubServers(
            server.endpoint, f"http://127.0.0.1:{port}", token, root, server, scratch
        )
    finally:
        stop(olah)
        server.shutdown()
        server.server_close()
        thread.join()
