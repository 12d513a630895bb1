"""`symphony-bench publish` against the loopback Hub, and the published data read back through olah by
the real `datasets.load_dataset(repo_id, revision=tag)` and by a task's own loader, in fresh processes."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest
from support.harness import executable, run_cli
from support.terminal import stderr_on_a_terminal

from symphony_bench.hub_upload import symphony_bias_audio, symphony_bias_text
from symphony_bench.hub_upload.publish import files_to_publish
from symphony_bench.plugin.core.atomic import BUILD_MARKER, recorded_files
from symphony_bench.plugin.core.dataset_source import pinned_dataset

pytestmark = pytest.mark.e2e
# A limit for each step of the interrupted publish on a loaded machine (a 2-core box running other
# suites): far above what the step takes there (seconds), since only a hang should ever reach it.
STOP_LIMIT_S = 300
SYMPHONY_BENCH = executable("symphony-bench")

# Rows of one config at a revision, with each audio decoded and hashed (the Ogg/FLAC bytes may differ
# in ways that do not matter; the samples may not).
READ_BACK = textwrap.dedent("""
    import hashlib, io, json, pathlib, sys
    import datasets, soundfile
    source, revision = sys.argv[1], sys.argv[2]
    if pathlib.Path(source).is_dir():
        files = sorted(str(path) for path in pathlib.Path(source).glob("data/test-*.parquet"))
        rows = datasets.load_dataset("parquet", data_files=files, split="train")
    else:
        rows = datasets.load_dataset(source, revision=revision, split="test")
    rows = rows.cast_column("audio", datasets.Audio(decode=False))
    out = []
    for row in rows:
        samples, rate = soundfile.read(io.BytesIO(row.pop("audio")["bytes"]), dtype="int16")
        out.append({**row, "audio_sha256": hashlib.sha256(samples.tobytes()).hexdigest(), "rate": rate})
    print(json.dumps(out, default=str))
""")


def local_rows(folder: Path) -> list[dict]:
    completed = subprocess.run(
        [sys.executable, "-c", READ_BACK, str(folder), "-"],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(completed.stdout)


def hub_rows(hub, repo: str, revision: str) -> list[dict]:
    completed = subprocess.run(
        [sys.executable, "-c", READ_BACK, repo, revision],
        capture_output=True,
        text=True,
        env=hub.env(token=False),
        timeout=300,
    )
    assert completed.returncode == 0, completed.stderr[-3000:]
    return json.loads(completed.stdout)


def publish(
    hub, folder: Path, repo: str, *extra: str, token: str | bool = True, cwd: Path
) -> subprocess.CompletedProcess:
    return run_cli(
        [SYMPHONY_BENCH, "publish", str(folder), "--repo-id", repo, *extra],
        cwd=cwd,
        env=hub.env(write=True, token=token),
    )


def published_commit(completed: subprocess.CompletedProcess) -> str:
    assert completed.returncode == 0, completed.stderr[-3000:]
    return re.search(r"^commit ([0-9a-f]{40}) ", completed.stdout, flags=re.MULTILINE).group(1)


def head(hub, repo: str) -> str:
    return hub.api().repo_info(repo, repo_type="dataset", revision="main").sha


@pytest.fixture(scope="module")
def audio_sets(tmp_path_factory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("audio-sets")
    first, second = root / "seed3", root / "seed4"
    symphony_bias_audio.build(first, seed=3, clips_per_instrument=1)
    symphony_bias_audio.build(second, seed=4, clips_per_instrument=1)
    return first, second


def without_data_origin(rows: list[dict]) -> list[dict]:
    """Docs without where their data came from (the data facts and the option that named it)."""
    return [
        {k: v for k, v in row.items() if not k.startswith("dataset_") and k != "task_options"}
        for row in rows
    ]


def test_publish_load_at_the_tag_republish_and_a_new_revision(loopback_hub, audio_sets, tmp_path):
    first, second = audio_sets
    repo = "symphony-bench-test/audio"
    v1 = published_commit(
        published := publish(loopback_hub, first, repo, "--revision", "v1", cwd=tmp_path)
    )
    assert (
        f"repo {repo}" in published.stdout
        and "(new commit)" in published.stdout
        and "tag v1" in published.stdout
    )
    expected_v1 = local_rows(first)
    assert hub_rows(loopback_hub, repo, "v1") == expected_v1

    # the same content again: no new commit, the tag already marks it
    again = publish(loopback_hub, first, repo, "--revision", "v1", cwd=tmp_path)
    assert published_commit(again) == v1 == head(loopback_hub, repo)
    assert "unchanged, no new commit" in again.stdout

    # changed data under a new tag: a new commit; the old tag still returns the old rows
    v2 = published_commit(publish(loopback_hub, second, repo, "--revision", "v2", cwd=tmp_path))
    assert v2 != v1 and head(loopback_hub, repo) == v2
    assert hub_rows(loopback_hub, repo, "v2") == local_rows(second) != expected_v1
    assert hub_rows(loopback_hub, repo, "v1") == expected_v1

    # changed data under an existing tag: refused before committing
    refused = publish(loopback_hub, first, repo, "--revision", "v2", cwd=tmp_path)
    assert (
        refused.returncode == 2
        and "tag 'v2' already exists" in refused.stderr
        and "Nothing was committed" in refused.stderr
    )
    assert head(loopback_hub, repo) == v2


def test_publish_shows_its_progress_on_a_terminal_and_nothing_in_a_log(
    loopback_hub, audio_sets, tmp_path
):
    folder, repo = audio_sets[0], "symphony-bench-test/audio-progress"
    argv = [SYMPHONY_BENCH, "publish", str(folder), "--repo-id", repo]
    env = loopback_hub.env(write=True, token=True)
    shown = stderr_on_a_terminal(argv, env=env, cwd=tmp_path)
    files = len(files_to_publish(folder))
    assert "comparing files with the Hub" in shown and f"{files}/{files}" in shown
    logged = publish(loopback_hub, folder, repo, cwd=tmp_path)
    assert logged.returncode == 0 and "comparing files" not in logged.stderr


def test_a_task_loads_the_pinned_revision_through_the_hub_client_and_records_the_commit(
    loopback_hub, audio_sets, tmp_path
):
    """The audio task's own loader, with SYMPHONY_AUDIO = repo@tag, in a fresh process: same docs as from the
    local folder, and the repo, revision and resolved commit recorded; then offline from the warm cache."""
    first, _ = audio_sets
    repo = "symphony-bench-test/audio-for-task"
    commit = published_commit(
        publish(loopback_hub, first, repo, "--revision", "v1.0", cwd=tmp_path)
    )
    script = textwrap.dedent("""
        import json, os, sys
        from symphony_bench.plugin.symphony_bias import multimodal
        from symphony_bench.plugin.symphony_bias.docs import Design
        docs = multimodal.condition_docs(
            Design(modality="audio", condition="stimulus", subset="mini")
        )
        keep = ("instrument", "stimulus_id", "scenario_id", "prompt",
                "dataset_repo", "dataset_revision", "dataset_commit")
        print(json.dumps([{key: doc[key] for key in keep} for doc in docs]))
    """)
    env = loopback_hub.env(token=False)
    online = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=300,
        env={**env, "SYMPHONY_AUDIO": f"{repo}@v1.0"},
    )
    assert online.returncode == 0, online.stderr[-3000:]
    docs = json.loads(online.stdout)
    assert {
        (doc["dataset_repo"], doc["dataset_revision"], doc["dataset_commit"]) for doc in docs
    } == {(repo, "v1.0", commit)}
    local = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=300,
        env={**env, "SYMPHONY_AUDIO": str(first), "HF_HUB_OFFLINE": "1"},
    )
    assert local.returncode == 0, local.stderr[-3000:]

    assert without_data_origin(json.loads(local.stdout)) == without_data_origin(docs)

    # offline, same HF_HOME: the warm cache answers and nothing is asked of the endpoint (the write
    # server, which logs every request, stands in for it)
    asked = len(loopback_hub.server.requests)
    offline = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=300,
        env={
            **env,
            "SYMPHONY_AUDIO": f"{repo}@v1.0",
            "HF_HUB_OFFLINE": "1",
            "HF_ENDPOINT": loopback_hub.write_endpoint,
        },
    )
    assert offline.returncode == 0, offline.stderr[-3000:]
    assert json.loads(offline.stdout) == docs
    assert loopback_hub.server.requests[asked:] == []


def test_the_text_set_round_trips_and_the_text_task_makes_the_same_docs(loopback_hub, tmp_path):
    folder = symphony_bias_text.build(tmp_path / "text")
    repo = "symphony-bench-test/text"
    commit = published_commit(
        publish(loopback_hub, folder, repo, "--revision", "v1.0", cwd=tmp_path)
    )
    script = textwrap.dedent("""
        import json, sys
        from symphony_bench.plugin.symphony_bias import text
        docs = text.load_dataset(subset="mini", **dict(arg.split("=", 1) for arg in sys.argv[1:]))["test"]
        print(json.dumps(docs.to_list()))
    """)
    from_hub = subprocess.run(
        [sys.executable, "-c", script, f"text={repo}@v1.0"],
        capture_output=True,
        text=True,
        timeout=300,
        env=loopback_hub.env(token=False),
    )
    assert from_hub.returncode == 0, from_hub.stderr[-3000:]
    embedded = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=300,
        env={**loopback_hub.env(token=False), "HF_HUB_OFFLINE": "1"},
    )
    assert embedded.stderr == ""  # the embedded data is the pin: no server asked, nothing said
    hub_docs, embedded_docs = json.loads(from_hub.stdout), json.loads(embedded.stdout)
    pin = pinned_dataset("lm_eval/symphony_bias/_symphony_bias_common_yaml")
    # another repo holding the pinned content: the user's own data, whose content is the pin
    assert {(d["dataset_repo"], d["dataset_commit"], d["dataset_verified"]) for d in hub_docs} == {
        (repo, commit, True)
    }
    assert {(d["dataset_repo"], d["dataset_sha256"]) for d in embedded_docs} == {
        (pin.repo_id, pin.sha256)
    }

    assert (
        without_data_origin(hub_docs) == without_data_origin(embedded_docs)
        and len(hub_docs) == 5 * 23
    )


def test_a_bad_token_is_a_clear_error_that_never_shows_the_token(loopback_hub, tmp_path):
    folder = symphony_bias_text.build(tmp_path / "text")
    bad = "hf_not_the_right_token_1234567890"
    completed = publish(
        loopback_hub,
        folder,
        "symphony-bench-test/bad-token",
        "--token",
        bad,
        token=False,
        cwd=tmp_path,
    )
    assert completed.returncode == 2
    assert "the Hub answered 401" in completed.stderr and "check the token" in completed.stderr
    assert (
        bad not in completed.stdout + completed.stderr
        and loopback_hub.token not in completed.stdout + completed.stderr
    )
    assert "Traceback" not in completed.stderr


def test_a_malformed_card_or_foreign_folder_is_refused_before_anything_is_sent(
    loopback_hub, tmp_path
):
    folder = symphony_bias_text.build(tmp_path / "text")
    card = folder / "README.md"
    card.write_text(card.read_text().replace("configs:\n", "configs: [\n", 1))
    sent = len(loopback_hub.server.requests)
    completed = publish(loopback_hub, folder, "symphony-bench-test/malformed", cwd=tmp_path)
    assert (
        completed.returncode == 2
        and "README.md: the card's YAML does not parse" in completed.stderr
    )
    foreign = tmp_path / "foreign"
    shutil.copytree(folder, foreign)
    (foreign / ".symphony-bench-build").unlink()
    completed = publish(loopback_hub, foreign, "symphony-bench-test/malformed", cwd=tmp_path)
    assert (
        completed.returncode == 2
        and "not a folder written by `symphony-bench build`" in completed.stderr
    )
    assert len(loopback_hub.server.requests) == sent


def test_a_link_leaving_the_build_is_refused_and_nothing_of_it_reaches_the_hub(
    loopback_hub, tmp_path
):
    folder = symphony_bias_text.build(tmp_path / "text")
    secret = tmp_path / "secret.txt"
    secret.write_text("outside the build: never uploaded\n")
    (folder / "notes.txt").symlink_to(secret)
    repo = "symphony-bench-test/linked"
    sent = len(loopback_hub.server.requests)
    refused = publish(loopback_hub, folder, repo, cwd=tmp_path)
    assert refused.returncode == 2, refused.stdout + refused.stderr[-2000:]
    assert f"notes.txt -> {secret} (leaves the folder)" in refused.stderr
    assert len(loopback_hub.server.requests) == sent  # refused before the Hub was asked anything
    assert not loopback_hub.root.joinpath("datasets", repo).exists()
    (folder / "notes.txt").unlink()
    published_commit(publish(loopback_hub, folder, repo, cwd=tmp_path))
    siblings = loopback_hub.api().repo_info(repo, repo_type="dataset").siblings
    files = {sibling.rfilename for sibling in siblings}
    assert "notes.txt" not in files and "README.md" in files


def test_hidden_files_never_reach_the_hub_and_a_hard_link_is_refused_before_anything_is_sent(
    loopback_hub, tmp_path
):
    folder = symphony_bias_text.build(tmp_path / "text")
    secret = "HF_TOKEN=hf_never_uploaded\n"
    (folder / ".env").write_text(secret)
    (folder / "data" / ".cache").mkdir()
    (folder / "data" / ".cache" / "token").write_text(secret)
    repo = "symphony-bench-test/hidden"
    published = publish(loopback_hub, folder, repo, cwd=tmp_path)
    published_commit(published)
    assert "not sent (hidden files and folders are never published): .env, data/.cache/" in (
        published.stderr
    )
    files = {s.rfilename for s in loopback_hub.api().repo_info(repo, repo_type="dataset").siblings}
    assert files == {".gitattributes", "README.md", *recorded_files(folder)} - {BUILD_MARKER}
    assert not any(name.startswith(".env") or ".cache" in name for name in files)

    outside = tmp_path / "outside.md"  # a second name outside the folder for the card
    os.link(folder / "README.md", outside)
    outside.write_text(outside.read_text() + "\nchanged through the other name\n")
    sent = len(loopback_hub.server.requests)
    refused = publish(loopback_hub, folder, repo, cwd=tmp_path)
    assert refused.returncode == 2, refused.stdout + refused.stderr[-2000:]
    assert "refusing to publish files with more than one name (hard links): README.md" in (
        refused.stderr
    )
    assert len(loopback_hub.server.requests) == sent  # refused before the Hub was asked anything


def test_an_interrupted_publish_leaves_no_partial_commit(loopback_hub, audio_sets, tmp_path):
    first, second = audio_sets
    repo = "symphony-bench-test/interrupted"
    before = published_commit(publish(loopback_hub, first, repo, cwd=tmp_path))
    # 24 MB more than the socket buffers hold, trickling in at about 6 MB/s: the client is mid-upload when stopped
    large = shutil.copytree(second, tmp_path / "large")
    (large / "data" / "padding.bin").write_bytes(np.random.default_rng(0).bytes(24_000_000))
    with open(large / BUILD_MARKER, "a") as marker:  # as if the build had written it
        marker.write('file: "data/padding.bin"\n')
    loopback_hub.server.body_delay_s = 0.0025
    logged = len(loopback_hub.server.requests)
    loopback_hub.server.large_body_started.clear()
    process = None
    try:
        process = subprocess.Popen(
            [SYMPHONY_BENCH, "publish", str(large), "--repo-id", repo],
            cwd=tmp_path,
            env=loopback_hub.env(write=True),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert loopback_hub.server.large_body_started.wait(timeout=STOP_LIMIT_S), (
            f"the upload did not start in {STOP_LIMIT_S} s"
        )
        time.sleep(0.5)  # the commit body is on its way (it trickles in for seconds at least)
        process.send_signal(signal.SIGTERM)
        _, stderr = process.communicate(timeout=STOP_LIMIT_S)
        assert process.returncode == 143 and "no partial Hub commit" in stderr, stderr[-2000:]
        # the server drains what the socket buffered, then finds the body short
        deadline = time.monotonic() + STOP_LIMIT_S
        while not (
            commits := [
                status
                for _, path, status in loopback_hub.server.requests[logged:]
                if path.endswith("/commit/main")
            ]
        ):
            assert time.monotonic() < deadline
            time.sleep(0.2)
    finally:
        loopback_hub.server.body_delay_s = 0.0
        if process is not None and process.poll() is None:
            process.kill()
            process.communicate()
    assert commits == [400]
    assert head(loopback_hub, repo) == before
    after = published_commit(
        publish(loopback_hub, second, repo, cwd=tmp_path)
    )  # and the next publish goes through
    assert after != before


def test_synthmic_and_the_grounding_set_publish_and_the_grounding_task_reads_them_by_commit(
    loopback_hub, tmp_path
):
    """The archive (CSV configs, audio files) and the five grounding configs. The grounding pin records
    no content digest (OpenMIC cannot be rebuilt here), so with no option the loader refuses the
    pinned repo; named with the commit, it reads it (recorded as not the pin): the same rows as the
    local build."""
    from symphony_bench.hub_upload import openmic, synthmic

    archive = synthmic.build(tmp_path / "synthmic", clips=60, seed=7)
    benchmark = tmp_path / "benchmark"
    openmic.build(archive, benchmark, seed=0)
    published_commit(
        publish(
            loopback_hub, archive, "symphony-bench-test/synthmic", "--revision", "v1", cwd=tmp_path
        )
    )
    pin = pinned_dataset("lmms_eval/instrument_grounding/_grounding_common_yaml")
    commit = published_commit(
        publish(loopback_hub, benchmark, pin.repo_id, "--revision", pin.revision, cwd=tmp_path)
    )
    script = textwrap.dedent("""
        import json, sys
        import datasets
        from symphony_bench.plugin.grounding import tasks
        if sys.argv[1] == "labels":
            rows = datasets.load_dataset("symphony-bench-test/synthmic", "labels", revision="v1", split="train")
            print(json.dumps(rows.to_list()))
        else:
            docs = tasks.interface_docs("binary").remove_columns("audio")
            print(json.dumps(docs.to_list()))
    """)

    def run(what: str, **env) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-c", script, what],
            capture_output=True,
            text=True,
            timeout=300,
            env={**loopback_hub.env(token=False), **env},
        )

    def rows_of(completed: subprocess.CompletedProcess) -> list[dict]:
        assert completed.returncode == 0, completed.stderr[-3000:]
        return json.loads(completed.stdout)

    with open(archive / "openmic-2018-aggregated-labels.csv", newline="") as handle:
        assert len(rows_of(run("labels"))) == sum(1 for _ in handle) - 1
    refused = run("binary")
    assert refused.returncode != 0 and "pins no content digest" in refused.stderr
    assert f"{pin.repo_id}@{commit}" in refused.stderr
    from_hub = rows_of(run("binary", SYMPHONY_GROUNDING=f"{pin.repo_id}@{commit}"))
    local = rows_of(run("binary", SYMPHONY_GROUNDING=str(benchmark), HF_HUB_OFFLINE="1"))
    assert {
        (d["dataset_repo"], d["dataset_revision"], d["dataset_commit"], d["dataset_verified"])
        for d in from_hub
    } == {(pin.repo_id, commit, commit, False)}

    assert without_data_origin(from_hub) == without_data_origin(local) and len(local) > 0

    # a set published without a config: `tasks-path --grounding repo@tag` trims the group as for a folder
    sparse = shutil.copytree(benchmark, tmp_path / "sparse")
    shutil.rmtree(sparse / "data" / "multilabel_30s")
    card = (sparse / "README.md").read_text()
    (sparse / "README.md").write_text(
        card.replace(
            "- config_name: multilabel_30s\n  data_files:\n  - split: test\n"
            "    path: data/multilabel_30s/test-*.parquet\n",
            "",
        )
    )
    published_commit(
        publish(
            loopback_hub,
            sparse,
            "symphony-bench-test/grounding-sparse",
            "--revision",
            "v1",
            cwd=tmp_path,
        )
    )
    trimmed = run_cli(
        [
            SYMPHONY_BENCH,
            "tasks-path",
            "--harness",
            "lmms-eval",
            "--grounding",
            "symphony-bench-test/grounding-sparse@v1",
        ],
        cwd=tmp_path,
        env={**loopback_hub.env(token=False), "SYMPHONY_BENCH_CACHE": str(tmp_path / "cache")},
    )
    assert (
        trimmed.returncode == 0 and "has no data for grounding_multilabel_30s" in trimmed.stderr
    ), trimmed.stderr
    assert (
        "grounding_multilabel_30s"
        not in (
            Path(trimmed.stdout.strip()) / "instrument_grounding" / "instrument_grounding.yaml"
        ).read_text()
    )


def test_private_is_refused_for_an_existing_public_repo(loopback_hub, tmp_path):
    folder = symphony_bias_text.build(tmp_path / "text")
    repo = "symphony-bench-test/public"
    before = published_commit(publish(loopback_hub, folder, repo, cwd=tmp_path))
    (folder / "README.md").write_text((folder / "README.md").read_text() + "\nchanged\n")
    refused = publish(loopback_hub, folder, repo, "--private", cwd=tmp_path)
    assert (
        refused.returncode == 2
        and "--private, but the repo exists and is public; nothing was sent" in refused.stderr
    )
    assert head(loopback_hub, repo) == before
