"""Where a task's data comes from, and whether it is the data the task is pinned to: the option's
folder or repo id, else (text tasks) the embedded data, else the pinned repo, verified by content."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from symphony_bench.plugin.core import dataset_source
from symphony_bench.plugin.core.dataset_digest import folder_sha256, tables_sha256
from symphony_bench.plugin.core.dataset_source import (
    DatasetSource,
    PinnedDataset,
    is_repo_id,
    pinned_dataset,
    resolve,
    task_yaml,
)
from symphony_bench.plugin.core.errors import DataFileError
from symphony_bench.plugin.core.hub_folder import card_front_matter, write_hub_folder
from symphony_bench.plugin.core.text_set import embedded_text_sha256

HOW = "build it locally with `symphony-bench build example --out DIR`"
COMMIT = "c0ffee" + "0" * 34


def hub_folder(path, names: list[str]):
    """A one-config folder in Hub layout whose rows are `names`."""
    (path / "data").mkdir(parents=True)
    pq.write_table(pa.table({"name": names}), path / "data" / "test-00000-of-00001.parquet")
    return path


@pytest.fixture
def folders(tmp_path):
    return {
        "pinned": hub_folder(tmp_path / "pinned", ["harp", "drums"]),
        "other": hub_folder(tmp_path / "other", ["harp", "grandmother"]),
    }


@pytest.fixture
def pin(folders):
    return PinnedDataset("symphony-bench/example", "v1.0", folder_sha256(folders["pinned"]))


@pytest.fixture
def hub(monkeypatch, folders):
    """A stand-in for the Hub: {(repo, revision): folder}; records what is fetched."""
    served, calls = {}, []

    def fake_fetch(repo_id, revision):
        calls.append((repo_id, revision))
        if (repo_id, revision) not in served:
            return f"cannot load the dataset {repo_id} at revision {revision}"
        return DatasetSource(served[repo_id, revision], repo_id, revision, commit=COMMIT)

    monkeypatch.setattr(dataset_source, "fetch", fake_fetch)
    return served, calls


def test_a_local_folder_wins_and_records_its_content_digest(folders, pin, hub):
    source = resolve(str(folders["other"]), pin, HOW)
    assert source.folder == folders["other"] and source.facts() == {
        "dataset_repo": str(folders["other"]),
        "dataset_revision": None,
        "dataset_commit": None,
        "dataset_sha256": folder_sha256(folders["other"]),
        "dataset_verified": False,  # the user's own data: not checked against the pin, said so
    }
    assert resolve(
        str(folders["pinned"]), pin, HOW
    ).verified  # the pinned content, wherever it lies
    assert hub[1] == []


def test_the_pin_loads_when_its_content_is_the_pinned_content(folders, pin, hub):
    served, calls = hub
    served[pin.repo_id, "v1.0"] = folders["pinned"]
    for value in (None, pin.repo_id, f"{pin.repo_id}@v1.0"):
        source = resolve(value, pin, HOW)
        assert (source.repo, source.revision, source.commit) == (pin.repo_id, "v1.0", COMMIT)
        assert source.verified and source.sha256 == pin.sha256
    assert calls == [(pin.repo_id, "v1.0")] * 3


@pytest.mark.parametrize("value", [None, "symphony-bench/example", "symphony-bench/example@v1.0"])
def test_other_content_at_the_pin_is_refused_by_default_and_by_name(value, folders, pin, hub):
    """A moved tag, or a name someone else registered: the same repo and tag, other rows."""
    hub[0][pin.repo_id, "v1.0"] = folders["other"]
    with pytest.raises(DataFileError) as error:
        resolve(value, pin, HOW)
    message = str(error.value)
    for needed in (
        "symphony-bench/example at revision v1.0",
        f"commit {COMMIT}",
        folder_sha256(folders["other"]),
        f"the pin expects {pin.sha256}",
        HOW,
        f"symphony-bench/example@{COMMIT}",
    ):
        assert needed in message, needed
    assert "\n" not in message


def test_other_content_of_the_pinned_repo_named_by_commit_is_accepted_and_recorded(
    folders, pin, hub
):
    hub[0][pin.repo_id, COMMIT] = folders["other"]
    source = resolve(f"{pin.repo_id}@{COMMIT}", pin, HOW)
    assert source.facts() == {
        "dataset_repo": pin.repo_id,
        "dataset_revision": COMMIT,
        "dataset_commit": COMMIT,
        "dataset_sha256": folder_sha256(folders["other"]),
        "dataset_verified": False,
    }


def test_another_repo_is_the_users_data_with_its_digest_recorded(folders, pin, hub):
    served, calls = hub
    served["someone/fork", "main"] = folders["other"]
    served["someone/fork", "v2"] = folders["pinned"]
    fork = resolve("someone/fork", pin, HOW)
    assert (fork.revision, fork.sha256, fork.verified) == (
        "main",
        folder_sha256(folders["other"]),
        False,
    )
    assert resolve("someone/fork@v2", pin, HOW).verified  # the pinned content under another name
    assert calls == [("someone/fork", "main"), ("someone/fork", "v2")]


def test_a_pin_without_a_digest_cannot_be_loaded_unchecked(folders, hub):
    unpinned = PinnedDataset("symphony-bench/example", "v1.0", None)
    hub[0][unpinned.repo_id, "v1.0"] = folders["pinned"]
    with pytest.raises(DataFileError, match=r"pins no content digest .*@c0ffee"):
        resolve(None, unpinned, HOW)


def test_embedded_data_asks_no_server_and_records_the_pin(pin, hub):
    source = resolve(None, pin, HOW, embedded=lambda: pin.sha256)
    assert source.folder is None and source.facts() == {
        "dataset_repo": pin.repo_id,
        "dataset_revision": "v1.0",
        "dataset_commit": None,
        "dataset_sha256": pin.sha256,
        "dataset_verified": True,
    }
    assert hub[1] == []


@pytest.mark.parametrize(
    "value", ["./nowhere", "/abs/nowhere", "~/nowhere", "a/b/c", "nowhere", "/x", "a/", "a/b@"]
)
def test_what_is_neither_a_folder_nor_a_repo_id_is_one_error(value, pin, hub):
    assert not is_repo_id(value)
    with pytest.raises(DataFileError, match=f"no such folder, and not a Hub repo id.*{HOW}"):
        resolve(value, pin, HOW)
    assert hub[1] == []


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
    yield calls
    dataset_source.fetch.cache_clear()


def test_offline_with_an_empty_cache_is_one_error_saying_how_to_build(offline_empty_cache, pin):
    with pytest.raises(DataFileError) as error:
        resolve(None, pin, HOW)
    message = str(error.value)
    assert message.startswith(
        "cannot load the dataset symphony-bench/example at revision v1.0 from the Hub or the local cache"
    )
    assert "offline" in message.lower() and message.endswith(HOW) and "\n" not in message


def test_a_missing_relative_folder_that_reads_as_a_repo_id_says_both(offline_empty_cache, pin):
    with pytest.raises(
        DataFileError,
        match=r"^data/audio: no such folder, and cannot load the dataset data/audio at revision main",
    ):
        resolve("data/audio", pin, HOW)


def test_the_digest_covers_rows_and_configs_not_parquet_bytes(tmp_path):
    one = hub_folder(tmp_path / "one", ["harp", "drums"])
    (tmp_path / "two" / "data").mkdir(parents=True)
    pq.write_table(  # the same rows, written another way (another row group size, compression)
        pa.table({"name": ["harp", "drums"]}),
        tmp_path / "two" / "data" / "test-00000-of-00001.parquet",
        row_group_size=1,
        compression="none",
    )
    assert folder_sha256(one) == folder_sha256(tmp_path / "two")
    assert folder_sha256(one) == tables_sha256({"default": [{"name": "harp"}, {"name": "drums"}]})
    reordered = hub_folder(tmp_path / "three", ["drums", "harp"])
    assert folder_sha256(reordered) != folder_sha256(one)
    media = tmp_path / "media" / "data"
    media.mkdir(parents=True)
    pq.write_table(
        pa.table({"name": ["harp", "drums"], "audio": [b"x", b"y"]}),
        media / "test-00000-of-00001.parquet",
    )
    assert folder_sha256(media.parent) == folder_sha256(one)  # media payloads are left out


TEXT_YAMLS = (
    "lm_eval/symphony_bias/_symphony_bias_common_yaml",
    "lm_eval/symphony_bias/_symphony_bias_logprob_common_yaml",
)


def test_the_text_tasks_pin_the_embedded_data():
    for path in TEXT_YAMLS:
        assert pinned_dataset(path).sha256 == embedded_text_sha256(), path


def test_every_task_of_a_dataset_pins_the_repo_revision_and_digest_its_loader_reads():
    """The pins the loaders read (from one YAML per dataset) are the ones every task's own YAML carries,
    so the harness's results file records the pin the docs came from."""
    families = {
        TEXT_YAMLS[0]: ("lm_eval/symphony_bias", "symphony_bias_text"),
        TEXT_YAMLS[1]: ("lm_eval/symphony_bias", "symphony_bias_logprob"),
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
                found = tuple(metadata.get(key) for key in ("dataset_repo", "dataset_revision"))
                assert found + (metadata.get("dataset_sha256"),) == (
                    pin.repo_id,
                    pin.revision,
                    pin.sha256,
                ), path
                checked += 1
    assert checked >= 30


def test_a_pin_names_its_digest_as_sha256_hex_or_none(tmp_path, monkeypatch):
    tasks = tmp_path / "tasks"
    (tasks / "x").mkdir(parents=True)
    (tasks / "x" / "t.yaml").write_text(
        json.dumps(
            {"metadata": {"dataset_repo": "a/b", "dataset_revision": "v1", "dataset_sha256": "abc"}}
        )
    )
    monkeypatch.setattr(dataset_source, "TASKS_DIR", tasks)
    pinned_dataset.cache_clear()
    try:
        with pytest.raises(DataFileError, match="dataset_sha256 must be a SHA-256"):
            pinned_dataset("x/t.yaml")
    finally:
        pinned_dataset.cache_clear()


@pytest.fixture
def cached_pin(offline_empty_cache, folders, pin):
    """The pinned repo as the local Hugging Face cache holds it offline: its parquet file a link
    into blobs/, the blob named by its SHA-256. Returns (the repo's cache folder, the blob)."""
    import huggingface_hub.constants

    repo = Path(huggingface_hub.constants.HF_HUB_CACHE) / "datasets--symphony-bench--example"
    data = (folders["pinned"] / "data" / "test-00000-of-00001.parquet").read_bytes()
    blob = repo / "blobs" / hashlib.sha256(data).hexdigest()
    blob.parent.mkdir(parents=True)
    blob.write_bytes(data)
    (repo / "refs").mkdir()
    (repo / "refs" / "v1.0").write_text(COMMIT)
    linked = repo / "snapshots" / COMMIT / "data" / "test-00000-of-00001.parquet"
    linked.parent.mkdir(parents=True)
    linked.symlink_to(Path("../../../blobs") / blob.name)
    return repo, blob


def test_the_pin_is_read_offline_from_a_whole_cached_snapshot(cached_pin, pin):
    source = resolve(None, pin, HOW)
    assert source.verified and source.commit == COMMIT


@pytest.mark.parametrize(
    ("harm", "found"),
    [
        (lambda blob: blob.write_bytes(blob.read_bytes()[:-9]), "changed after it was downloaded"),
        (lambda blob: blob.unlink(), "is missing from the cache"),
    ],
)
def test_a_damaged_cached_snapshot_that_cannot_be_downloaded_again_says_what_to_delete(
    cached_pin, pin, harm, found
):
    repo, blob = cached_pin
    harm(blob)
    with pytest.raises(DataFileError) as error:
        resolve(None, pin, HOW)
    message = str(error.value)
    assert f"data/test-00000-of-00001.parquet {found}" in message
    assert "is damaged (" in message and f"delete {repo} and run again" in message
    assert message.endswith(HOW) and "\n" not in message


@pytest.mark.parametrize(
    ("harm", "found"),
    [
        (lambda parquet: parquet.unlink(), "1 of its files are missing"),
        (lambda parquet: parquet.write_bytes(b"PAR1 cut short"), "it cannot be read"),
    ],
)
def test_a_damaged_built_set_says_what_to_delete_and_how_to_build_it_again(
    tmp_path, pin, hub, harm, found
):
    out = write_hub_folder(
        tmp_path / "built", [{"name": "harp"}], card_front_matter("Example", "cc0-1.0")
    )
    harm(out / "data" / "test-00000-of-00001.parquet")
    with pytest.raises(DataFileError) as error:
        resolve(str(out), pin, HOW)
    message = str(error.value)
    assert message.startswith(f"{out}: the set built there is damaged ({found}")
    assert message.endswith(
        f"delete {out} and build it again with `symphony-bench build KIND --out {out}`"
    )
