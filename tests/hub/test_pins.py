"""Every pin is checked against the content it stands for, on the loopback Hub, through the tasks'
own loaders in fresh processes: the pinned content loads (by default or by name) and records that
it is the pin; other content at the pinned repo and tag (published there by someone else, or a
tag moved to other data) is refused; an explicit commit of other content is accepted and recorded
as not the pin; and a text run with no option asks no server at all."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from support.harness import executable, read_lmms_samples, run_cli, run_lmms_eval
from support.text_sets import tampered_text_set

from symphony_bench.hub_upload import symphony_bias_audio, symphony_bias_text
from symphony_bench.plugin.core.dataset_digest import folder_sha256
from symphony_bench.plugin.core.dataset_source import pinned_dataset

pytestmark = pytest.mark.slow
SYMPHONY_BENCH = executable("symphony-bench")
TEXT_PIN = pinned_dataset("lm_eval/symphony_bias/_symphony_bias_common_yaml")
AUDIO_PIN = pinned_dataset("lmms_eval/symphony_bias_multimodal/_audio_likert_yaml")
FACT_KEYS = (
    "dataset_repo",
    "dataset_revision",
    "dataset_commit",
    "dataset_sha256",
    "dataset_verified",
)
TEXT_DOCS = textwrap.dedent("""
    import json, sys
    from symphony_bench.plugin.symphony_bias import text
    options = dict(arg.split("=", 1) for arg in sys.argv[1:])
    docs = text.load_dataset(subset="mini", **options)["test"]
    print(json.dumps(docs.to_list()))
""")
AUDIO_DOCS = textwrap.dedent("""
    import json
    from symphony_bench.plugin.symphony_bias import multimodal
    from symphony_bench.plugin.symphony_bias.docs import Design
    docs = multimodal.condition_docs(Design(modality="audio", condition="stimulus", subset="mini"))
    print(json.dumps(docs))
""")


def run_python(script: str, env: dict, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", script, *args], capture_output=True, text=True, timeout=600, env=env
    )


def facts_of(completed: subprocess.CompletedProcess) -> set[tuple]:
    assert completed.returncode == 0, completed.stderr[-3000:]
    return {tuple(doc[key] for key in FACT_KEYS) for doc in json.loads(completed.stdout)}


def publish(hub, folder: Path, repo: str, *extra: str, cwd: Path) -> str:
    completed = run_cli(
        [SYMPHONY_BENCH, "publish", str(folder), "--repo-id", repo, *extra],
        cwd=cwd,
        env=hub.env(write=True),
    )
    assert completed.returncode == 0, completed.stderr[-3000:]
    assert f"dataset_sha256 {folder_sha256(folder)}" in completed.stdout
    return re.search(r"^commit ([0-9a-f]{40}) ", completed.stdout, flags=re.MULTILINE).group(1)


def move_tag(hub, repo: str, tag: str, commit: str) -> None:
    """What a repo's owner can do on the Hub, and our publish never does: point a tag elsewhere."""
    hub.server.git(hub.root / "datasets" / repo, "tag", "-f", tag, commit)


def test_a_text_run_with_no_option_asks_no_server_and_says_nothing(loopback_hub):
    """The write server logs every request it gets; it stands in for the Hub here."""
    asked = len(loopback_hub.server.requests)
    env = {**loopback_hub.env(token=False), "HF_ENDPOINT": loopback_hub.write_endpoint}
    completed = run_python(TEXT_DOCS, env)
    assert facts_of(completed) == {
        (TEXT_PIN.repo_id, TEXT_PIN.revision, None, TEXT_PIN.sha256, True)
    }
    assert loopback_hub.server.requests[asked:] == []
    assert completed.stderr == ""


def test_the_text_pin_by_name_then_a_moved_tag_and_an_explicit_commit(loopback_hub, tmp_path):
    good = symphony_bias_text.build(tmp_path / "text")
    commit = publish(
        loopback_hub, good, TEXT_PIN.repo_id, "--revision", TEXT_PIN.revision, cwd=tmp_path
    )
    named = f"text={TEXT_PIN.repo_id}"
    assert facts_of(run_python(TEXT_DOCS, loopback_hub.env(token=False), named)) == {
        (TEXT_PIN.repo_id, TEXT_PIN.revision, commit, TEXT_PIN.sha256, True)
    }

    bad = tampered_text_set(tmp_path / "tampered")
    other = publish(loopback_hub, bad, TEXT_PIN.repo_id, cwd=tmp_path)  # a new head, untagged
    move_tag(loopback_hub, TEXT_PIN.repo_id, TEXT_PIN.revision, other)
    refused = run_python(TEXT_DOCS, loopback_hub.env(token=False), named)
    assert refused.returncode != 0
    message = refused.stderr.strip().splitlines()[-1]
    for needed in (
        f"{TEXT_PIN.repo_id} at revision {TEXT_PIN.revision} (commit {other})",
        folder_sha256(bad),
        f"the pin expects {TEXT_PIN.sha256}",
        "symphony-bench build symphony-bias-text",
        f"{TEXT_PIN.repo_id}@{other}",
    ):
        assert needed in message, needed

    accepted = run_python(
        TEXT_DOCS, loopback_hub.env(token=False), f"text={TEXT_PIN.repo_id}@{other}"
    )
    assert facts_of(accepted) == {(TEXT_PIN.repo_id, other, other, folder_sha256(bad), False)}
    assert any("grandmother" in doc["scenario"] for doc in json.loads(accepted.stdout))


@pytest.mark.e2e  # ends with an lmms-eval run
def test_the_audio_pin_by_default_refuses_other_content_and_loads_the_pinned_build(
    loopback_hub, tmp_path
):
    env = {
        key: value
        for key, value in loopback_hub.env(token=False).items()
        if key != "SYMPHONY_AUDIO"
    }
    other = tmp_path / "other"
    symphony_bias_audio.build(other, seed=3, clips_per_instrument=1)
    publish(loopback_hub, other, AUDIO_PIN.repo_id, "--revision", AUDIO_PIN.revision, cwd=tmp_path)
    refused = run_python(AUDIO_DOCS, env)
    assert refused.returncode != 0
    assert f"dataset_sha256 {folder_sha256(other)}" in refused.stderr
    assert f"the pin expects {AUDIO_PIN.sha256}" in refused.stderr

    pinned = tmp_path / "default"
    symphony_bias_audio.build(pinned)  # the defaults the YAML's digest is of
    assert folder_sha256(pinned) == AUDIO_PIN.sha256
    commit = publish(loopback_hub, pinned, AUDIO_PIN.repo_id, cwd=tmp_path)
    move_tag(loopback_hub, AUDIO_PIN.repo_id, AUDIO_PIN.revision, commit)
    assert facts_of(run_python(AUDIO_DOCS, env)) == {
        (AUDIO_PIN.repo_id, AUDIO_PIN.revision, commit, AUDIO_PIN.sha256, True)
    }

    # lmms-eval with no option: the pin, through the Hub client; the results file records the pin,
    # every record the commit it resolved to and that its content is the pin
    task = "symphony_bias_audio_recognition"
    responses = tmp_path / "responses.jsonl"
    responses.write_text(
        "".join(
            json.dumps({"task": task, "doc_id": k, "response": "harp"}) + "\n" for k in range(110)
        )
    )
    output = tmp_path / "run"
    completed = run_lmms_eval("symphony_replay", f"responses={responses}", task, output, env)
    assert any(output.rglob("*_results.json")), completed.stderr[-4000:]
    metadata = json.loads(next(output.rglob("*_results.json")).read_text())["configs"][task][
        "metadata"
    ]
    assert (metadata["dataset_repo"], metadata["dataset_revision"], metadata["dataset_sha256"]) == (
        AUDIO_PIN.repo_id,
        AUDIO_PIN.revision,
        AUDIO_PIN.sha256,
    )
    records = [sample["recognition_accuracy"] for sample in read_lmms_samples(output, task)]
    assert len(records) == 110  # five clips per instrument
    assert {tuple(r[key] for key in FACT_KEYS) for r in records} == {
        (AUDIO_PIN.repo_id, AUDIO_PIN.revision, commit, AUDIO_PIN.sha256, True)
    }
