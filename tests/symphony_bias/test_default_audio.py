"""The default audio set built on first use (plugin.symphony_bias.default_audio): a build that is not
the pin is used and said to be the user's own data; a failed build is one error with its reason.
(The build itself, through lmms-eval, is in test_lmms_eval_cli.py.)"""

from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from symphony_bench.plugin.core.dataset_source import PinnedDataset
from symphony_bench.plugin.core.errors import DataFileError
from symphony_bench.plugin.symphony_bias import default_audio

PINNED = PinnedDataset("symphony-bench/symphony-bias-audio", "v1.0", "ab" * 32)


@pytest.fixture(autouse=True)
def own_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SYMPHONY_BENCH_CACHE", str(tmp_path / "cache"))
    default_audio.build_default_audio.cache_clear()
    yield
    default_audio.build_default_audio.cache_clear()


def test_a_build_that_is_not_the_pin_is_used_unverified_with_one_warning(capsys):
    folder = default_audio.default_audio_folder(PINNED)
    (folder / "data").mkdir(parents=True)
    pq.write_table(
        pa.table({"clip_id": ["harp_00"]}), folder / "data" / "test-00000-of-00001.parquet"
    )
    (folder / default_audio.BUILD_MARKER).write_text("symphony-bias-audio\n")
    for _ in range(2):  # every task of a run asks
        source = default_audio.build_default_audio(PINNED, "not on the Hub")
    assert source.folder == folder and not source.verified and source.sha256 != PINNED.sha256
    assert source.facts()["dataset_verified"] is False
    error = capsys.readouterr().err
    assert error.count("warning: the audio set built into") == 1 and "building" not in error


@pytest.mark.e2e
def test_a_failed_build_is_one_error_with_the_builders_reason(capsys):
    folder = default_audio.default_audio_folder(PINNED)
    folder.mkdir(parents=True)
    (folder / "notes.txt").write_text("someone else's folder")  # a builder never replaces it
    with pytest.raises(
        DataFileError, match=r"building the default audio set into .* failed \(.+\)"
    ):
        default_audio.build_default_audio(PINNED, "not on the Hub")
    assert (folder / "notes.txt").read_text() == "someone else's folder"
    assert "not on the Hub; building the pinned default audio set" in capsys.readouterr().err


def built_set(folder, clips=("harp_00",)) -> None:
    """What a finished build leaves: the rows, its marker listing the files it wrote."""
    (folder / "data").mkdir(parents=True, exist_ok=True)
    table = folder / "data" / "test-00000-of-00001.parquet"
    pq.write_table(pa.table({"clip_id": list(clips)}), table)
    (folder / default_audio.BUILD_MARKER).write_text(
        'kind: symphony-bias-audio\nfile: "data/test-00000-of-00001.parquet"\n'
    )


def read_only(folder, monkeypatch) -> None:
    """chmod 555 stops a writer; root writes anywhere, so there taking the lock fails instead."""
    import filelock

    folder.chmod(0o555)

    def refused(self, *args, **kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(filelock.FileLock, "acquire", refused)


def test_a_read_only_cache_reads_a_whole_set_and_is_one_clear_error_otherwise(
    tmp_path, monkeypatch, capsys
):
    folder = default_audio.default_audio_folder(PINNED)
    built_set(folder)
    cache = folder.parent
    read_only(cache, monkeypatch)
    try:
        source = default_audio.build_default_audio(PINNED, "not on the Hub")
        assert source.folder == folder and not list(cache.glob("*.lock"))
        default_audio.build_default_audio.cache_clear()
        (folder / "data" / "test-00000-of-00001.parquet").unlink()  # damaged, and not writable
        with pytest.raises(DataFileError) as raised:
            default_audio.build_default_audio(PINNED, "not on the Hub")
    finally:
        cache.chmod(0o755)
    message = str(raised.value)
    assert f"{cache}: cannot write the symphony-bench cache (Permission denied)" in message
    assert f"the set in {folder} is damaged" in message and "SYMPHONY_BENCH_CACHE" in message
    assert "\n" not in message


@pytest.mark.parametrize("harm", ["a file removed", "content changed"])
def test_a_damaged_cached_set_is_built_again(harm, monkeypatch, capsys):
    folder = default_audio.default_audio_folder(PINNED)
    builds = []

    def build(kind, out, why_not_the_hub):
        builds.append(why_not_the_hub)
        built_set(out)

    monkeypatch.setattr(default_audio, "_build", build)
    first = default_audio.build_default_audio(PINNED, "not on the Hub")
    table = folder / "data" / "test-00000-of-00001.parquet"
    if harm == "a file removed":
        table.unlink()
    else:
        pq.write_table(pa.table({"clip_id": ["drums_00"]}), table)
    default_audio.build_default_audio.cache_clear()
    again = default_audio.build_default_audio(PINNED, "not on the Hub")
    assert len(builds) == 2 and "is damaged" in builds[1] and again.sha256 == first.sha256
    default_audio.build_default_audio.cache_clear()
    default_audio.build_default_audio(PINNED, "not on the Hub")
    assert len(builds) == 2  # whole again: used as it is
