"""Where a task's data comes from: option folder / repo id, else the repo pinned in the task YAML,
else (text tasks) the embedded data; offline with an empty cache, one error saying how to build."""

from __future__ import annotations

import pytest

from symphony_bench.plugin.core import dataset_source
from symphony_bench.plugin.core.dataset_source import (
    EMBEDDED,
    PinnedDataset,
    is_repo_id,
    pinned_dataset,
    resolve,
    task_yaml,
)
from symphony_bench.plugin.core.errors import DataFileError

PINNED = PinnedDataset("symphony-bench/example", "v1.0")
HOW = "build it locally with `symphony-bench build example --out DIR`"


@pytest.fixture
def fetched(monkeypatch):
    """Records what would be fetched from the Hub instead of fetching it."""
    calls = []

    def fake_fetch(repo_id, revision):
        calls.append((repo_id, revision))
        return dataset_source.DatasetSource(None, repo_id, revision, "c0ffee")

    monkeypatch.setattr(dataset_source, "fetch", fake_fetch)
    return calls


def test_a_local_folder_wins_and_is_recorded_as_given(tmp_path, fetched):
    source = resolve(str(tmp_path), PINNED, HOW)
    assert source.folder == tmp_path and source.facts() == {
        "dataset_repo": str(tmp_path),
        "dataset_revision": None,
        "dataset_commit": None,
    }
    assert fetched == []


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (None, ("symphony-bench/example", "v1.0")),  # the pin
        (
            "symphony-bench/example",
            ("symphony-bench/example", "v1.0"),
        ),  # the pinned repo named: its pinned revision
        ("symphony-bench/example@v0.9", ("symphony-bench/example", "v0.9")),
        ("someone/fork", ("someone/fork", "main")),
        ("someone/fork@abc123", ("someone/fork", "abc123")),
    ],
)
def test_repo_ids_and_revisions(value, expected, fetched):
    assert resolve(value, PINNED, HOW).commit == "c0ffee"
    assert fetched == [expected]


@pytest.mark.parametrize(
    "value", ["./nowhere", "/abs/nowhere", "~/nowhere", "a/b/c", "nowhere", "/x", "a/", "a/b@"]
)
def test_what_is_neither_a_folder_nor_a_repo_id_is_one_error(value, fetched):
    assert not is_repo_id(value)
    with pytest.raises(DataFileError, match=f"no such folder, and not a Hub repo id.*{HOW}"):
        resolve(value, PINNED, HOW)
    assert fetched == []


@pytest.fixture
def offline_empty_cache(monkeypatch, tmp_path):
    """Offline mode with an empty cache; counts what reaches snapshot_download."""
    import huggingface_hub
    import huggingface_hub.constants

    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", True)
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_CACHE", str(tmp_path / "empty-cache"))
    calls = []
    real = huggingface_hub.snapshot_download

    def counted(*args, **kwargs):
        calls.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(huggingface_hub, "snapshot_download", counted)
    dataset_source.fetch.cache_clear()
    dataset_source.say_once.cache_clear()
    yield calls
    dataset_source.fetch.cache_clear()


def test_offline_with_an_empty_cache_is_one_error_saying_how_to_build(offline_empty_cache):
    with pytest.raises(DataFileError) as error:
        resolve(None, PINNED, HOW)
    message = str(error.value)
    assert message.startswith(
        "cannot load the dataset symphony-bench/example at revision v1.0 from the Hub or the local cache"
    )
    assert "offline" in message.lower() and message.endswith(HOW) and "\n" not in message


def test_a_missing_relative_folder_that_reads_as_a_repo_id_says_both(offline_empty_cache):
    with pytest.raises(
        DataFileError,
        match=r"^data/audio: no such folder, and cannot load the dataset data/audio at revision main",
    ):
        resolve("data/audio", PINNED, HOW)


def test_the_text_tasks_fall_back_to_the_embedded_data_asking_and_saying_so_once(
    offline_empty_cache, capsys
):
    for _ in range(3):  # three tasks of a group in one process
        source = resolve(None, PINNED, HOW, embedded_fallback=True)
    assert source.folder is None and source.facts() == {
        "dataset_repo": EMBEDDED,
        "dataset_revision": None,
        "dataset_commit": None,
    }
    assert len(offline_empty_cache) == 1
    assert capsys.readouterr().err.count("using the data embedded in the package") == 1


def test_every_task_of_a_dataset_pins_the_repo_and_revision_its_loader_reads():
    """The pins the loaders read (from one YAML per dataset) are the ones every task's own YAML carries,
    so the harness's results file records the pin the docs came from."""
    families = {
        "lm_eval/symphony_bias/_symphony_bias_common_yaml": (
            "lm_eval/symphony_bias",
            "symphony_bias_text",
        ),
        "lm_eval/symphony_bias/_symphony_bias_logprob_common_yaml": (
            "lm_eval/symphony_bias",
            "symphony_bias_logprob",
        ),
        "lmms_eval/symphony_bias_multimodal/_audio_likert_yaml": (
            "lmms_eval/symphony_bias_multimodal",
            "symphony_bias_audio",
        ),
        "lmms_eval/symphony_bias_multimodal/_image_likert_yaml": (
            "lmms_eval/symphony_bias_multimodal",
            "symphony_bias_image",
        ),
        "lmms_eval/instrument_grounding/_grounding_common_yaml": (
            "lmms_eval/instrument_grounding",
            "grounding_",
        ),
    }
    checked = 0
    for family, (folder, prefix) in families.items():
        pin = pinned_dataset(family)
        assert pin.revision and pin.repo_id.startswith("symphony-bench/")
        for path in (dataset_source.TASKS_DIR / folder).glob(f"{prefix}*.yaml"):
            config = task_yaml(path)
            if "task" in config and "process_docs" in config or "custom_dataset" in config:
                metadata = config["metadata"]
                assert (metadata["dataset_repo"], metadata["dataset_revision"]) == (
                    pin.repo_id,
                    pin.revision,
                ), path
                checked += 1
    assert checked >= 30
