"""`loopback_hub`: a Hugging Face Hub on 127.0.0.1 for the whole session — writes go to our stdlib server
(support/loopback_hub.py), reads to `olah` in offline mode serving the same git repositories (its `mirrors-path`)."""

from __future__ import annotations

import os
import threading

import pytest
from support.loopback_hub import LoopbackHub, LoopbackHubServers, start_olah, stop


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
