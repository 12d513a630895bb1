"""A Hub-layout folder is read from the files its digest covers, and the rows loaded are the rows
those files hold: a file the loaders skip is not hashed, and the datasets cache (which knows a
local file by path and modification time only) cannot hand back another build's rows."""

from __future__ import annotations

import os
import shutil

import datasets
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from symphony_bench.plugin.core.dataset_digest import folder_sha256, tables_sha256
from symphony_bench.plugin.core.errors import DataFileError
from symphony_bench.plugin.core.hub_folder import open_folder

SHARD = "test-00000-of-00001.parquet"


def write_rows(path, names: list[str]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.table({"name": names}), path)


@pytest.fixture
def private_datasets_cache(tmp_path, monkeypatch):
    monkeypatch.setattr(datasets.config, "HF_DATASETS_CACHE", str(tmp_path / "hf-datasets"))


@pytest.mark.parametrize("config", [None, "templates"])
def test_rows_in_a_file_the_loaders_skip_are_not_in_the_digest(tmp_path, config):
    data = tmp_path / "set" / "data" / (config or "")
    write_rows(data / SHARD, ["harp"])
    write_rows(data / "zz-hidden.parquet", ["drums"])
    whole = tmp_path / "whole" / "data" / (config or "")
    write_rows(whole / SHARD, ["harp", "drums"])

    expected = tables_sha256({config or "default": [{"name": "harp"}]})
    assert folder_sha256(tmp_path / "set") == expected
    assert folder_sha256(tmp_path / "set") != folder_sha256(tmp_path / "whole")


def test_the_loader_reads_exactly_the_rows_the_digest_covers(tmp_path, private_datasets_cache):
    data = tmp_path / "set" / "data"
    write_rows(data / SHARD, ["harp", "violin"])
    write_rows(data / "zz-hidden.parquet", ["drums"])
    assert open_folder(tmp_path / "set", "a set")["name"] == ["harp", "violin"]


def test_a_file_copied_in_with_the_old_mtime_is_read_not_the_stale_cache(
    tmp_path, private_datasets_cache
):
    """What `cp -p`, `rsync -a` or `tar -x` do: the pinned build's parquet replaces another build's
    under the same path and modification time."""
    folder = tmp_path / "set"
    write_rows(folder / "data" / SHARD, ["harp", "grandmother"])  # the other build
    assert open_folder(folder, "a set")["name"] == ["harp", "grandmother"]  # now in the cache
    stamp = os.stat(folder / "data" / SHARD)
    write_rows(tmp_path / "pinned" / SHARD, ["harp", "drums"])
    shutil.copyfile(tmp_path / "pinned" / SHARD, folder / "data" / SHARD)
    os.utime(folder / "data" / SHARD, ns=(stamp.st_atime_ns, stamp.st_mtime_ns))

    assert open_folder(folder, "a set")["name"] == ["harp", "drums"]
    assert folder_sha256(folder) == tables_sha256(
        {"default": [{"name": "harp"}, {"name": "drums"}]}
    )


def test_a_folder_without_the_split_is_one_error_naming_it(tmp_path, private_datasets_cache):
    write_rows(tmp_path / "set" / "data" / "train-00000-of-00001.parquet", ["harp"])
    with pytest.raises(DataFileError, match="not a set"):
        open_folder(tmp_path / "set", "a set")
    with pytest.raises(DataFileError, match=r"no data/test-\*\.parquet"):
        folder_sha256(tmp_path / "set")


def test_a_datasets_cache_that_cannot_be_written_is_one_error_naming_it(tmp_path, monkeypatch):
    (tmp_path / "a-file").write_text("")  # the cache's parent is a file: nothing can be made there
    cache = tmp_path / "a-file" / "hf-datasets"
    monkeypatch.setattr(datasets.config, "HF_DATASETS_CACHE", str(cache))
    write_rows(tmp_path / "set" / "data" / SHARD, ["harp"])
    with pytest.raises(DataFileError) as error:
        open_folder(tmp_path / "set", "a set")
    assert str(error.value) == (
        f"{tmp_path / 'set'}: the datasets library cannot write its cache {cache} (Not a "
        "directory); set HF_DATASETS_CACHE to a writable folder"
    )
