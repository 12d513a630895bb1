"""The OpenMIC-2018 builder on a tiny hand-made release (short tones, no FluidSynth): bad input it must
name or skip, outputs that overlap inputs, debris, empty configs, genre-prior ties, and skips that
leave unrelated rows alone."""

from __future__ import annotations

import csv
import gzip
import io
import json
import re
import tarfile
import tracemalloc
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest
import soundfile

from symphony_bench.hub_upload.commands import run_build_openmic
from symphony_bench.hub_upload.openmic import build, writing
from symphony_bench.hub_upload.openmic.planning import (
    PAPER_COUNTS,
    GenrePrior,
    plan_genre_hard,
    row_clips,
)
from symphony_bench.hub_upload.openmic.release import (
    CLASS_MAP,
    LABELS_CSV,
    METADATA_CSV,
    SPLITS,
    audio_path,
    load_metadata,
)
from symphony_bench.plugin.core.atomic import BUILD_MARKER
from symphony_bench.plugin.core.errors import DataFileError
from symphony_bench.plugin.core.vocabulary import OPENMIC_CLASSES

GENRES = ("Rock", "Jazz", "Folk")
METADATA_COLUMNS = (
    "sample_key",
    "track_genres",
    "artist_name",
    "track_title",
    "track_url",
    "license_title",
    "license_url",
)


def genre_literal(titles) -> str:
    return repr(
        [
            {"genre_id": str(n), "genre_title": title, "genre_url": ""}
            for n, title in enumerate(titles)
        ]
    )


def write_release(
    root: Path, clips: int = 36, present: float = 0.25, absent: float = 0.6, seed: int = 0
) -> Path:
    """A release in OpenMIC's layout: 1 s Vorbis tones, random labels (1.0 / 0.0 / unannotated)."""
    rng = np.random.default_rng(seed)
    keys = [f"{100000 + n:06d}_{960 * n}" for n in range(clips)]
    draws = rng.random((clips, len(OPENMIC_CLASSES)))
    (root / "partitions").mkdir(parents=True)
    (root / CLASS_MAP).write_text(
        json.dumps({name: index for index, name in enumerate(OPENMIC_CLASSES)})
    )
    with open(root / LABELS_CSV, "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(("sample_key", "instrument", "relevance", "num_responses"))
        for key, row in zip(keys, draws, strict=True):
            for instrument, draw in zip(OPENMIC_CLASSES, row, strict=True):
                if draw < present + absent:
                    writer.writerow((key, instrument, 1.0 if draw < present else 0.0, 3))
    with open(root / METADATA_CSV, "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(METADATA_COLUMNS)
        for n, key in enumerate(keys):
            writer.writerow(
                (
                    key,
                    genre_literal(GENRES[n % 3 : n % 3 + 1]),
                    "artist",
                    f"track {n}",
                    "url",
                    "CC BY 4.0",
                    "cc-url",
                )
            )
    for split, name in SPLITS.items():
        (root / name).write_text("\n".join(keys[split == "test" :: 2]) + "\n")
    time = np.arange(16_000) / 16_000
    for n, key in enumerate(keys):
        path = audio_path(root, key)
        path.parent.mkdir(parents=True, exist_ok=True)
        tone = 0.3 * np.sin(2 * np.pi * (220 + 10 * n) * time) + 0.05 * rng.standard_normal(
            time.size
        )
        soundfile.write(path, tone.astype(np.float32), 16_000, format="OGG", subtype="VORBIS")
    return root


@pytest.fixture(scope="module")
def release(tmp_path_factory) -> Path:
    return write_release(tmp_path_factory.mktemp("tiny") / "openmic-2018")


def read_configs(out: Path) -> dict[str, list[dict]]:
    """Rows per written config, audio reduced to its PCM hash."""
    tables = {}
    for folder in sorted((out / "data").iterdir()):
        rows = pq.read_table(folder / "test-00000-of-00001.parquet").to_pylist()
        tables[folder.name] = [{k: v for k, v in row.items() if k != "audio"} for row in rows]
    return tables


def copy_release(release: Path, tmp_path: Path) -> Path:
    import shutil

    return Path(shutil.copytree(release, tmp_path / "release"))


def debris(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith("."))


def damage_middle(path: Path) -> None:
    """Overwrite bytes in the middle of an Ogg file: libsndfile decodes up to the damage and stops."""
    data = bytearray(path.read_bytes())
    middle = len(data) // 2
    data[middle : middle + 200] = bytes(200)
    path.write_bytes(bytes(data))


@pytest.fixture(scope="module")
def full_build(release, tmp_path_factory) -> tuple[Path, dict]:
    out = tmp_path_factory.mktemp("full") / "out"
    return out, build(release, out, seed=0)


# --- partly corrupt audio and skips --------------------------------------------------------------


@pytest.mark.slow  # a whole benchmark build
def test_partly_corrupt_audio_is_an_error_naming_the_file(release, full_build, tmp_path):
    root = copy_release(release, tmp_path)
    key = read_configs(full_build[0])["binary"][0]["sample_key"]
    damage_middle(audio_path(root, key))
    with pytest.raises(DataFileError, match=re.escape(f"{audio_path(root, key)}: corrupt audio: ")):
        build(root, tmp_path / "out", seed=0)
    assert not (tmp_path / "out").exists() and debris(tmp_path) == []


@pytest.mark.slow  # a whole benchmark build
def test_a_skipped_clip_changes_only_the_rows_that_use_it(release, full_build, tmp_path):
    out, _ = full_build
    before = read_configs(out)
    key = before["binary"][3]["sample_key"]
    root = copy_release(release, tmp_path)
    damage_middle(audio_path(root, key))
    summary = build(root, tmp_path / "skipped", seed=0, skip_bad=True)
    after = read_configs(tmp_path / "skipped")
    with open(tmp_path / "skipped" / "skipped.csv", newline="") as handle:
        assert [(row["path"], row["where"]) for row in csv.DictReader(handle)] == [
            (str(audio_path(root, key)), f"sample_key {key}")
        ]
    assert summary["skipped"] == 1
    for config in ("binary", "confusable", "multilabel_30s", "temporal_30s"):
        kept = [row for row in before[config] if key not in row_clips(row)]
        assert after[config] == kept, config
        assert len(kept) < len(before[config]) or config.endswith("30s")  # the clip had 10 s rows
    assert all(key not in row_clips(row) for row in after["genre_hard"])


@pytest.mark.slow  # a whole benchmark build
def test_a_clip_shorter_than_a_loudness_gating_block_is_named_or_skipped(
    release, full_build, tmp_path
):
    """A clip under 0.4 s has no BS.1770 integrated loudness for its row to record: an error naming
    it, or with --skip-bad a skipped clip like a damaged one."""
    key = read_configs(full_build[0])["binary"][0]["sample_key"]
    root = copy_release(release, tmp_path)
    path = audio_path(root, key)
    short = 0.3 * np.sin(2 * np.pi * 440 * np.arange(4_800) / 16_000)
    soundfile.write(path, short.astype(np.float32), 16_000, format="OGG", subtype="VORBIS")
    reason = r"0\.\d{3} s of audio, shorter than the 0\.4 s gating block that ITU-R BS\.1770"
    with pytest.raises(DataFileError, match=re.escape(f"{path}: ") + reason):
        build(root, tmp_path / "out", seed=0)
    assert not (tmp_path / "out").exists()
    assert build(root, tmp_path / "skipped", seed=0, skip_bad=True)["skipped"] == 1
    with open(tmp_path / "skipped" / "skipped.csv", newline="") as handle:
        (row,) = csv.DictReader(handle)
    assert (row["path"], row["where"]) == (str(path), f"sample_key {key}")
    assert re.fullmatch(reason + ".*", row["reason"])


@pytest.mark.slow  # a whole benchmark build
def test_without_skip_bad_nothing_is_dropped(full_build):
    out, summary = full_build
    configs = read_configs(out)
    assert {config: len(rows) for config, rows in configs.items()} == {
        c: n for c, n in summary["counts"].items() if n
    }
    assert [row["item_id"] for row in configs["binary"]] == [
        f"binary-{n:05d}" for n in range(len(configs["binary"]))
    ]


# --- track_genres --------------------------------------------------------------------------------


def test_deeply_nested_track_genres_is_a_bad_row_not_a_recursion_error(tmp_path):
    path = tmp_path / METADATA_CSV
    with open(path, "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(METADATA_COLUMNS)
        writer.writerow(("000001_0", genre_literal(["Rock"]), "a", "t", "u", "l", "lu"))
        writer.writerow(("000002_0", "-" * 3000 + "1", "a", "t", "u", "l", "lu"))
    with pytest.raises(
        DataFileError,
        match=re.escape(f"{path}, row 2 (sample_key '000002_0'): track_genres is not"),
    ):
        load_metadata(path, None)
    skipped = []
    assert list(load_metadata(path, skipped)) == ["000001_0"]
    assert [(item.where, "track_genres" in item.reason) for item in skipped] == [
        ("row 2 (sample_key '000002_0')", True)
    ]


# --- outputs and inputs --------------------------------------------------------------------------


@pytest.mark.parametrize("out", ["release", "release/audio", "."])
def test_an_output_overlapping_the_source_is_refused_and_the_source_kept(release, tmp_path, out):
    root = copy_release(release, tmp_path)
    (root / BUILD_MARKER).write_text(
        "written by symphony-bench\nkind: openmic\n"
    )  # even a source that looks replaceable
    files = sorted(p for p in root.rglob("*"))
    with pytest.raises(
        DataFileError, match="refusing to write there: it (is|lies inside|contains) the input"
    ):
        build(root, tmp_path / out, seed=0)
    assert sorted(p for p in root.rglob("*")) == files


def test_the_cli_refuses_out_equal_to_a_tgz_source_before_any_download(tmp_path):
    archive = tmp_path / "openmic-2018-v1.0.0.tgz"
    archive.write_bytes(b"not read")
    args = type(
        "Args", (), {"max_clip_uses": 1, "out": archive, "source": archive, "download": True}
    )()
    with pytest.raises(DataFileError, match="it is the input"):
        run_build_openmic(args)
    assert archive.read_bytes() == b"not read"


def test_another_builders_output_is_not_replaced(release, tmp_path):
    image_set = tmp_path / "images"
    image_set.mkdir()
    (image_set / BUILD_MARKER).write_text("written by symphony-bench\nkind: symphony-bias-image\n")
    (image_set / "README.md").write_text("kept")
    with pytest.raises(DataFileError, match="holds a 'symphony-bias-image' output"):
        build(release, image_set, seed=0)
    assert (image_set / "README.md").read_text() == "kept"


@pytest.mark.slow  # a whole benchmark build
def test_a_tgz_source_is_extracted_inside_the_staging_folder_and_removed(
    release, tmp_path, monkeypatch
):
    archive = tmp_path / "openmic.tgz"
    with tarfile.open(archive, "w:gz") as bundle:
        bundle.add(release, arcname="openmic-2018")
    roots = []
    load_release = writing.load_release
    monkeypatch.setattr(
        writing,
        "load_release",
        lambda root, skip_bad: roots.append(root) or load_release(root, skip_bad),
    )
    build(archive, tmp_path / "out", seed=0)
    assert re.fullmatch(
        r"\.out\.staging-\d+-[0-9a-f]{8}-\w+", roots[0].relative_to(tmp_path).parts[0]
    )
    assert debris(tmp_path) == [] and (tmp_path / "out" / "README.md").is_file()


def test_errors_in_a_tgz_name_the_member_of_the_archive_not_the_deleted_extraction(
    release, tmp_path
):
    root = copy_release(release, tmp_path)
    labels = root / LABELS_CSV
    labels.write_bytes(labels.read_bytes()[:-9])
    archive = tmp_path / "openmic.tgz"
    with tarfile.open(archive, "w:gz") as bundle:
        bundle.add(root, arcname="openmic-2018")
    with pytest.raises(
        DataFileError, match=re.escape(f"{archive}:openmic-2018/{LABELS_CSV}, line ")
    ):
        build(archive, tmp_path / "out", seed=0)
    build(archive, tmp_path / "out", seed=0, skip_bad=True)
    with open(tmp_path / "out" / "skipped.csv", newline="") as handle:
        assert {row["path"] for row in csv.DictReader(handle)} == {
            f"{archive}:openmic-2018/{LABELS_CSV}"
        }


# --- archive limits, streaming and roots ---------------------------------------------------------


def tar_bytes(release: Path, arcname: str = "openmic-2018") -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as bundle:
        bundle.add(release, arcname=arcname)
        return buffer.getvalue()  # before close() writes the end-of-archive blocks


def test_a_member_over_the_size_limit_is_one_error_from_its_header_and_nothing_is_left(
    release, tmp_path
):
    # The release, then a metadata CSV whose header says 300 MiB and whose data never comes: the
    # builder must refuse it from the header, before reading (or writing) any of its data.
    header = tarfile.TarInfo(f"openmic-2018/{METADATA_CSV}")
    header.size = 300 * 2**20
    archive = tmp_path / "openmic.tgz"
    archive.write_bytes(gzip.compress(tar_bytes(release) + header.tobuf() + bytes(4096)))
    with pytest.raises(DataFileError) as error:
        build(archive, tmp_path / "out", seed=0)
    assert str(error.value) == (
        f"{archive}:openmic-2018/{METADATA_CSV}: the member is 300.0 MiB, over the 256.0 MiB "
        "limit for one release file"
    )
    assert not (tmp_path / "out").exists() and debris(tmp_path) == []


@pytest.mark.parametrize(
    ("limits", "expected"),
    [
        ({"audio_member_bytes": 1024}, r"audio/\d{3}/\d{6}_\d+\.ogg: the member is [\d,]+ bytes"),
        ({"member_bytes": 1024}, f"{re.escape(LABELS_CSV)}: the member is [\\d,]+ bytes, over"),
        (
            {"extracted_bytes": 50_000},
            r".+: this member brings the extracted files to [\d,]+ bytes",
        ),
        ({"extracted_members": 10}, r".+: this member would be extracted file 11, over the limit"),
        ({"archive_bytes": 50_000}, r".+: the archive's members hold more than 50,000 bytes"),
    ],
)
def test_archive_limits_give_one_error_naming_the_archive_and_the_member(
    release, tmp_path, monkeypatch, limits, expected
):
    from symphony_bench.hub_upload.openmic import release as release_module

    archive = tmp_path / "openmic.tgz"
    with tarfile.open(archive, "w:gz") as bundle:
        bundle.add(release, arcname="openmic-2018")
    monkeypatch.setattr(release_module, "ARCHIVE_LIMITS", release_module.ArchiveLimits(**limits))
    with pytest.raises(DataFileError, match=re.escape(f"{archive}:openmic-2018/") + expected):
        build(archive, tmp_path / "out", seed=0)
    assert not (tmp_path / "out").exists() and debris(tmp_path) == []


@pytest.mark.parametrize("compression", ["gz", "bz2", "xz"])
def test_a_large_member_is_streamed_through_a_bounded_buffer(tmp_path, compression):
    # Zeros compress to almost nothing: tarfile's own stream decompression ("r|*") turned them
    # into one buffer the size of the member (and took minutes for 300 MB of xz).
    from symphony_bench.hub_upload.openmic.release import release_root

    size = 32 * 2**20
    header = tarfile.TarInfo(f"openmic-2018/{METADATA_CSV}")
    header.size = size
    archive = tmp_path / f"openmic.tar.{compression}"
    with tarfile.open(archive, f"w:{compression}") as bundle:
        bundle.addfile(header, io.BytesIO(bytes(size)))
    scratch = tmp_path / "scratch"
    tracemalloc.start()
    try:
        with pytest.raises(DataFileError, match=f"no {CLASS_MAP}"):  # it holds no release
            release_root(archive, scratch)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    # xz's decompressor has an 8 MiB dictionary; the data themselves pass in small blocks
    assert peak < 12 * 2**20, f"{peak / 2**20:.1f} MiB for a {size / 2**20:.0f} MiB member"
    assert list(scratch.iterdir()) == []  # the partial extraction is gone


@pytest.mark.parametrize("mode", ["w", "w:bz2", "w:xz"])
def test_plain_bzip2_and_xz_tars_are_read_too(release, tmp_path, mode):
    from symphony_bench.hub_upload.openmic.release import release_root

    archive = tmp_path / "openmic.tar"
    with tarfile.open(archive, mode) as bundle:
        bundle.add(release, arcname="openmic-2018")
    root = release_root(archive, tmp_path / "scratch")
    assert root == tmp_path / "scratch" / "openmic-source" / "openmic-2018"
    assert (root / LABELS_CSV).read_bytes() == (release / LABELS_CSV).read_bytes()


def test_an_archive_with_two_releases_is_an_error_naming_the_archive(release, tmp_path):
    archive = tmp_path / "openmic.tgz"
    with tarfile.open(archive, "w:gz") as bundle:
        bundle.add(release, arcname="first")
        bundle.add(release, arcname="second")
    with pytest.raises(DataFileError) as error:
        build(archive, tmp_path / "out", seed=0)
    assert str(error.value) == (
        f"{archive}: the archive holds 2 releases (first/{CLASS_MAP}, second/{CLASS_MAP}); "
        "expected one OpenMIC-2018 release, at its top or in one top-level folder"
    )
    assert not (tmp_path / "out").exists() and debris(tmp_path) == []
    empty = tmp_path / "empty.tgz"
    with tarfile.open(empty, "w:gz") as bundle:
        bundle.add(release / LABELS_CSV, arcname=f"openmic-2018/{LABELS_CSV}")
    with pytest.raises(DataFileError) as error:
        build(empty, tmp_path / "out", seed=0)
    assert str(error.value).startswith(f"{empty}: no {CLASS_MAP} at the archive's top")
    assert "staging" not in str(error.value) and debris(tmp_path) == []


# --- empty configs, ties -------------------------------------------------------------------------


def test_an_empty_config_is_left_out_of_the_folder_and_card_with_a_warning(tmp_path, capsys):
    root = write_release(tmp_path / "sparse", clips=12, present=0.1, absent=0.15, seed=1)
    args = type(
        "Args",
        (),
        {
            "max_clip_uses": 1,
            "out": tmp_path / "out",
            "source": root,
            "download": False,
            "seed": 0,
            "skip_bad": False,
            "groups": None,
            "workers": 1,
        },
    )()
    run_build_openmic(args)
    summary_warning = capsys.readouterr().err
    assert "multilabel_30s" in summary_warning and "--max-clip-uses" in summary_warning
    card = (tmp_path / "out" / "README.md").read_text()
    front_matter = card.split("---\n")[1]
    assert (
        "config_name: multilabel_30s" not in front_matter and "config_name: binary" in front_matter
    )
    assert (
        not (tmp_path / "out" / "data" / "multilabel_30s").exists()
        and "Not written: no rows for multilabel_30s" in card
    )
    import datasets

    rows = datasets.load_dataset(
        str(tmp_path / "out"), "binary", split="test", cache_dir=str(tmp_path / "cache")
    )
    assert len(rows) > 0


def binary_item(item_id: str, answer: str, split: str, genre: str = "Rock") -> dict:
    return {
        "item_id": item_id,
        "sample_key": item_id,
        "instrument": "guitar",
        "answer": answer,
        "genres": [genre],
        "genre_split": split,
    }


def test_a_genre_prior_tie_predicts_nothing_and_no_tied_item_is_hard():
    train = [
        binary_item("a", "yes", "train"),
        binary_item("b", "no", "train"),
    ]  # Rock/guitar: rate exactly 0.5
    test = [binary_item("c", "yes", "test"), binary_item("d", "no", "test")]
    hard, baseline = plan_genre_hard(train + test)
    assert hard == [] and baseline.ties == 2 and baseline.decided == 0 and baseline.accuracy is None
    leaning = train + [binary_item("e", "yes", "train")]  # 2 of 3: predicts yes
    hard, baseline = plan_genre_hard(leaning + test)
    assert (
        [row["binary_item_id"] for row in hard] == ["d"]
        and baseline.accuracy == 0.5
        and baseline.ties == 0
    )
    assert GenrePrior.fit(leaning).counts(["Rock"], "guitar") == (2, 3, "genre")


@pytest.mark.slow  # a whole benchmark build
def test_the_card_gives_the_yes_no_split_and_the_tie_rule(full_build):
    out, summary = full_build
    card = (out / "README.md").read_text()
    binary = read_configs(out)["binary"]
    yes = sum(row["answer"] == "yes" for row in binary)
    assert (
        f"| `binary` | binary presence QA | {len(binary):,} | {yes:,} / {len(binary) - yes:,} | 9,332 |"
        in card
    )
    assert (
        "tied items (prior rate exactly 0.5) get no prediction" in card
        and "builder version 2" in card
    )
    assert set(summary["counts"]) == set(PAPER_COUNTS)


def test_python_versions_without_tarfile_extraction_filters_are_excluded():
    from packaging.specifiers import SpecifierSet

    pyproject = (Path(__file__).parents[2] / "pyproject.toml").read_text()
    supported = SpecifierSet(re.search(r'^requires-python = "([^"]+)"', pyproject, re.MULTILINE)[1])
    assert hasattr(tarfile, "data_filter")  # what release_root's extract(filter="data") needs
    assert [v in supported for v in ("3.10.11", "3.11.3", "3.10.12", "3.11.4", "3.12.0")] == [
        False,
        False,
        True,
        True,
        True,
    ]
