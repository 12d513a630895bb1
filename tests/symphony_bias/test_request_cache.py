"""lm-eval's request cache (`--cache_requests true`) through the real command line: a cached run
with another seed or scenario set is sent its own docs' prompts, never the first run's."""

from __future__ import annotations

import json

import pytest
from support.chat_server import serve_chat
from support.harness import read_samples, run_lm_eval
from support.text_sets import tampered_text_set

TASK = "symphony_bias_text_mini"
ANSWER = json.dumps({"reason": "r", "man": "medium", "woman": "medium", "non-binary": "medium"})


@pytest.fixture
def chat_server():
    server = serve_chat(lambda body: ANSWER)
    yield server
    server.shutdown()


def cached_run(server, output, cache, *metadata: dict) -> tuple[set[str], list[dict]]:
    """(the prompts the server was sent, the run's samples)."""
    asked = len(server.requests)
    run_lm_eval(
        "local-chat-completions",
        f"model=planted,base_url=http://127.0.0.1:{server.server_address[1]}/v1/chat/completions,"
        "tokenizer_backend=none,max_retries=1",
        TASK,
        output,
        "--cache_requests",
        "true",
        *(("--metadata", json.dumps(metadata[0])) if metadata else ()),
        env={"LM_HARNESS_CACHE_PATH": str(cache)},
    )
    sent = {body["messages"][-1]["content"] for body in server.requests[asked:]}
    return sent, read_samples(output, TASK)


@pytest.mark.e2e
def test_a_cached_run_with_another_seed_or_scenario_set_sends_its_own_prompts(
    chat_server, tmp_path
):
    cache = tmp_path / "cache"
    first, _ = cached_run(chat_server, tmp_path / "a", cache)
    assert len(first) == 115 and any(cache.iterdir())

    reseeded, samples = cached_run(chat_server, tmp_path / "b", cache, {"symphony_seed": 99})
    assert {s["doc"]["seed"] for s in samples} == {99}
    assert reseeded == {s["doc"]["prompt"] for s in samples} and reseeded != first

    tampered = tampered_text_set(tmp_path / "tampered")
    sent, samples = cached_run(chat_server, tmp_path / "c", cache, {"text": str(tampered)})
    assert any("grandmother" in prompt for prompt in sent)
    assert {s["mean_abs"]["dataset_verified"] for s in samples} == {False}

    # the embedded (pinned) set again, from the same cache: its own prompts, verified
    sent, samples = cached_run(chat_server, tmp_path / "d", cache)
    assert not any("grandmother" in prompt for prompt in sent)
    assert sent == first == {s["doc"]["prompt"] for s in samples}
    assert {s["mean_abs"]["dataset_verified"] for s in samples} == {True}
    assert all("grandmother" not in s["doc"]["prompt"] for s in samples)
