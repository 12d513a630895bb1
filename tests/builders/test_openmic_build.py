"""The OpenMIC-2018 diagnostics builder, run on a SynthMIC archive: OpenMIC's layout, the paper's
construction rules, Hub loading, reproducibility, and bad input."""

from __future__ import annotations

import argparse
import ast
import csv
import hashlib
import io
import json
import re
import shutil
import sys
import tarfile
import types
from collections import Counter
from pathlib import Path

import datasets
import numpy as np
import pytest
import soundfile
from support.harness import run_cli

from symphony_bench.hub_upload import openmic, synthmic
from symphony_bench.hub_upload.commands import add_commands
from symphony_bench.hub_upload.openmic.planning import PAPER_COUNTS, display_name, plan_multilabel
from symphony_bench.hub_upload.openmic.release import (
    GROUPS_FILE,
    LABELS_CSV,
    METADATA_CSV,
    SOURCE_COLUMNS,
    Clip,
    Group,
    audio_path,
    download_release,
    load_groups,
    load_release,
)
from symphony_bench.hub_upload.openmic.writing import clip_audio
from symphony_bench.plugin.core.errors import DataFileError
from symphony_bench.plugin.core.vocabulary import TIME_RANGES

CONFIGS = tuple(PAPER_COUNTS)
# The header of openmic-2018-metadata.csv in the real release (41 columns).
REAL_METADATA_HEADER = (
    "track_id,album_id,album_title,album_url,artist_id,artist_name,artist_url,artist_website,license_image_file,"
    "license_image_file_large,license_parent_id,license_title,license_url,tags,track_bit_rate,track_comments,"
    "track_composer,track_copyright_c,track_copyright_p,track_date_created,track_date_recorded,track_disc_number,"
    "track_duration,track_explicit,track_explicit_notes,track_favorites,track_file,track_genres,track_image_file,"
    "track_information,track_instrumental,track_interest,track_language_code,track_listens,track_lyricist,"
    "track_number,track_publisher,track_title,track_url,sample_key,start_time"
)
REAL_CLASS_MAP = {
    "accordion": 0,
    "banjo": 1,
    "bass": 2,
    "cello": 3,
    "clarinet": 4,
    "cymbals": 5,
    "drums": 6,
    "flute": 7,
    "guitar": 8,
    "mallet_percussion": 9,
    "mandolin": 10,
    "organ": 11,
    "piano": 12,
    "saxophone": 13,
    "synthesizer": 14,
    "trombone": 15,
    "trumpet": 16,
    "ukulele": 17,
    "violin": 18,
    "voice": 19,
}


def hub_rows(folder: Path, config: str, cache: Path) -> list[dict]:
    dataset = datasets.load_dataset(str(folder), config, split="test", cache_dir=str(cache))
    assert dataset.features["audio"] == datasets.Audio(sampling_rate=16_000, decode=False)
    return list(dataset)


def all_rows(folder: Path, cache: Path) -> dict[str, list[dict]]:
    return {config: hub_rows(folder, config, cache) for config in CONFIGS}


def decoded_hash(row: dict) -> str:
    samples, rate = soundfile.read(io.BytesIO(row["audio"]["bytes"]), dtype="int16")
    assert rate == 16_000 and samples.ndim == 1
    return hashlib.sha256(samples.astype("<i2").tobytes()).hexdigest()


def command_parser() -> argparse.ArgumentParser:
    """`symphony-bench`'s parser with the builders' commands (`build ...`, `import-upstream`), in process."""
    root = argparse.ArgumentParser()
    add_commands(root.add_subparsers(required=True))
    return root


def without_audio(rows: dict[str, list[dict]]) -> dict[str, list[dict]]:
    return {
        config: [{k: v for k, v in row.items() if k != "audio"} for row in table]
        for config, table in rows.items()
    }


@pytest.fixture(scope="module")
def archive(tmp_path_factory) -> Path:
    return synthmic.build(tmp_path_factory.mktemp("synthmic") / "openmic-2018", clips=60, seed=7)


@pytest.fixture(scope="module")
def truth(archive) -> dict[tuple[str, str], float]:
    with open(archive / LABELS_CSV, newline="") as handle:
        return {
            (row["sample_key"], row["instrument"]): float(row["relevance"])
            for row in csv.DictReader(handle)
        }


@pytest.fixture(scope="module")
def built(archive, tmp_path_factory):
    out = tmp_path_factory.mktemp("built") / "openmic-diagnostics"
    summary = openmic.build(archive, out, seed=0)
    return out, summary, all_rows(out, tmp_path_factory.mktemp("hf-cache"))


@pytest.fixture(scope="module")
def groups():
    return {group.name: group for group in load_groups(GROUPS_FILE, tuple(REAL_CLASS_MAP))}


def copy_archive(archive: Path, tmp_path: Path) -> Path:
    return Path(shutil.copytree(archive, tmp_path / "release"))


@pytest.mark.slow
def test_synthmic_archive_has_openmic_layout(archive, truth):
    assert json.loads((archive / "class-map.json").read_text()) == REAL_CLASS_MAP
    assert (archive / LABELS_CSV).read_text().splitlines()[
        0
    ] == "sample_key,instrument,relevance,num_responses"
    with open(archive / METADATA_CSV, newline="") as handle:
        metadata = list(csv.reader(handle))
    assert ",".join(metadata[0]) == REAL_METADATA_HEADER and len(metadata[0]) == 41
    keys = [row[metadata[0].index("sample_key")] for row in metadata[1:]]
    assert len(keys) == 60 and all(re.fullmatch(r"\d{6}_\d+", key) for key in keys)
    split_keys = [
        line
        for split in ("train", "test")
        for line in (archive / f"partitions/split01_{split}.csv").read_text().splitlines()
    ]
    assert sorted(split_keys) == sorted(keys)  # headerless: every line is a key
    for key in keys:
        samples, rate = soundfile.read(archive / "audio" / key[:3] / f"{key}.ogg", dtype="float32")
        assert (
            rate == 16_000 and samples.shape == (160_000,) and np.sqrt(np.mean(samples**2)) > 0.01
        )
    genre_lists = [ast.literal_eval(row[metadata[0].index("track_genres")]) for row in metadata[1:]]
    assert all(
        isinstance(item, dict) and item["genre_title"] for genres in genre_lists for item in genres
    )
    assert any(genres == [] for genres in genre_lists)
    assert any(0.0 < value < 1.0 for value in truth.values())  # intermediate relevances on purpose
    assert len(truth) < 60 * 20  # and unannotated instruments


@pytest.mark.slow
def test_synthmic_genres_favour_their_instruments(archive, truth):
    genre_of = {}
    with open(archive / METADATA_CSV, newline="") as handle:
        for row in csv.DictReader(handle):
            genres = ast.literal_eval(row["track_genres"])
            if genres:
                genre_of[row["sample_key"]] = (genres[0]["genre_id"], genres[0]["genre_title"])
    present = [
        (key, instrument)
        for (key, instrument), value in truth.items()
        if value >= 0.5 and key in genre_of
    ]
    typical = sum(instrument in synthmic.GENRES[genre_of[key]] for key, instrument in present)
    assert typical / len(present) > 0.7


@pytest.mark.slow
def test_synthmic_renders_the_same_pcm_in_parallel(tmp_path):
    def pcm(folder: Path) -> dict[str, str]:
        return {
            path.name: hashlib.sha256(soundfile.read(path, dtype="int16")[0].tobytes()).hexdigest()
            for path in sorted(folder.rglob("*.ogg"))
        }

    serial = pcm(synthmic.build(tmp_path / "serial", clips=4, seed=5))
    assert (
        serial == pcm(synthmic.build(tmp_path / "parallel", clips=4, seed=5, workers=2))
        and len(serial) == 4
    )


@pytest.mark.slow
def test_binary_asks_one_yes_and_one_no_per_clip(built, truth):
    _, _, rows = built
    binary = rows["binary"]
    per_clip = Counter((row["sample_key"], row["answer"]) for row in binary)
    keys = {row["sample_key"] for row in binary}
    assert all(per_clip[key, "yes"] == 1 and per_clip[key, "no"] == 1 for key in keys)
    for row in binary:
        assert (
            truth[row["sample_key"], row["instrument"]]
            == row["relevance"]
            == {"yes": 1.0, "no": 0.0}[row["answer"]]
        )
        assert row["instrument_name"] in row["question"] and row["seed"] == 0
    eligible = {
        key for key, _ in truth if {1.0, 0.0} <= {v for (k, _), v in truth.items() if k == key}
    }
    assert keys == eligible


@pytest.mark.slow
def test_genre_hard_is_exactly_what_the_genre_prior_gets_wrong(built):
    _, summary, rows = built
    binary = rows["binary"]
    for answer in ("yes", "no"):
        with_genres = [row for row in binary if row["genres"] and row["answer"] == answer]
        assert sum(row["genre_split"] == "train" for row in with_genres) == round(
            0.7 * len(with_genres)
        )
        assert all(row["genre_split"] in ("train", "test") for row in with_genres)
    assert all(row["genre_split"] == "" for row in binary if not row["genres"])
    train = [row for row in binary if row["genre_split"] == "train"]
    test = [row for row in binary if row["genre_split"] == "test"]

    def rate(genres, instrument):
        pairs = [
            row
            for row in train
            if row["instrument"] == instrument
            for genre in row["genres"]
            if genre in genres
        ]
        same = [row for row in train if row["instrument"] == instrument]
        pool = pairs or same or train
        return sum(row["answer"] == "yes" for row in pool) / len(pool)

    decided = [
        row for row in test if rate(row["genres"], row["instrument"]) != 0.5
    ]  # a tie predicts nothing
    wrong = {
        row["item_id"]
        for row in decided
        if ("yes" if rate(row["genres"], row["instrument"]) > 0.5 else "no") != row["answer"]
    }
    hard = rows["genre_hard"]
    assert wrong and {row["binary_item_id"] for row in hard} == wrong
    assert all(
        row["prior_prediction"] != row["answer"] and row["genre_split"] == "test" for row in hard
    )
    assert summary["baseline_accuracy"] == pytest.approx(1 - len(wrong) / len(decided))


@pytest.mark.slow
def test_confusable_pairs_share_a_group_and_gold_positions_balance(built, truth, groups):
    _, _, rows = built
    confusable = rows["confusable"]
    assert len({row["sample_key"] for row in confusable}) == len(confusable)
    for row in confusable:
        members = {display_name(m) for m in groups[row["group"]].members}
        present, absent = row["present_instrument"], row["absent_instrument"]
        assert {present, absent} <= members and present != absent
        assert truth[row["sample_key"], present.replace(" ", "_")] == 1.0
        assert truth[row["sample_key"], absent.replace(" ", "_")] == 0.0
        assert (
            sorted(row["candidates"]) == sorted([present, absent])
            and row["candidates_swapped"] == row["candidates"][::-1]
        )
        assert row["answer"] == present == row["candidates"][row["gold_position"]]
        assert (
            row["answer_letter"] == "AB"[row["gold_position"]]
            and row["answer_letter_swapped"] == "BA"[row["gold_position"]]
        )
        assert row["prompt_name"].index(row["candidates"][0]) < row["prompt_name"].index(
            row["candidates"][1]
        )
        assert row["prompt_ab_swapped"].index(f"A. {row['candidates'][1]}") < row[
            "prompt_ab_swapped"
        ].index(f"B. {row['candidates'][0]}")
    positions = Counter(row["gold_position"] for row in confusable)
    assert abs(positions[0] - positions[1]) <= 1


def check_multilabel_rows(multilabel: list[dict], truth, groups, max_clip_uses: int) -> None:
    """The paper's rules on every row; no clip in more than `max_clip_uses` rows; no repeated item."""
    assert multilabel
    uses = Counter(key for row in multilabel for key in row["source_keys"])
    assert max(uses.values()) <= max_clip_uses
    items = [(frozenset(row["source_keys"]), frozenset(row["candidates"])) for row in multilabel]
    assert len(set(items)) == len(items)
    assert [row["item_id"] for row in multilabel] == [
        f"multilabel_30s-{n:05d}" for n in range(len(multilabel))
    ]
    for row in multilabel:
        keys = row["source_keys"]
        assert len(keys) == len(set(keys)) == 3 and row["max_clip_uses"] == max_clip_uses
        # four candidates of one group
        assert len(row["candidates"]) == 4 and set(row["candidates"]) <= {
            display_name(m) for m in groups[row["group"]].members
        }
        assert (
            sorted(row["present"] + row["absent"]) == sorted(row["candidates"])
            and len(row["present"]) == 2
        )
        for name in row["absent"]:  # annotated 0.0 in all three clips: unannotated is not absent
            assert [truth.get((key, name.replace(" ", "_"))) for key in keys] == [0.0, 0.0, 0.0]
        for name in row["present"]:
            assert any(truth.get((key, name.replace(" ", "_"))) == 1.0 for key in keys)
        assert row["answer"] == ", ".join(c for c in row["candidates"] if c in row["present"])
        assert row["candidate_relevance"] == [
            [truth.get((key, c.replace(" ", "_"))) for key in keys] for c in row["candidates"]
        ]


@pytest.mark.slow
def test_multilabel_sets_two_present_and_two_absent_everywhere(built, truth, groups):
    folder, summary, rows = built
    multilabel = rows["multilabel_30s"]
    check_multilabel_rows(multilabel, truth, groups, max_clip_uses=1)  # the default: each clip once
    used = [key for row in multilabel for key in row["source_keys"]]
    assert len(used) == len(set(used)) and summary["max_clip_uses"] == 1
    for row in multilabel:
        assert set(row["candidates"]) == {display_name(m) for m in groups[row["group"]].members}
        assert row["duration_s"] == 30.0
    assert "built with `--max-clip-uses 1`" in (folder / "README.md").read_text()


@pytest.fixture(scope="module")
def release_plan(archive):
    """plan_multilabel on the archive's labels (no audio), by max_clip_uses."""
    release = load_release(archive, skip_bad=False)
    shipped = load_groups(GROUPS_FILE, release.classes)
    return lambda uses, seed=0: plan_multilabel(release.clips, shipped, seed, uses)


@pytest.mark.slow
def test_max_clip_uses_adds_multilabel_rows_without_repeats(release_plan, built, truth, groups):
    once, thrice = release_plan(1), release_plan(3)
    assert [
        {k: row[k] for k in once[0]} for row in built[2]["multilabel_30s"]
    ] == once  # the default plan
    check_multilabel_rows(thrice, truth, groups, max_clip_uses=3)
    assert len(thrice) > len(once)  # sparse labels: reuse finds more items
    assert max(Counter(key for row in thrice for key in row["source_keys"]).values()) > 1
    # one-use rows come first, unchanged; reuse only adds rows after them, for the same groups at least
    assert [{**row, "max_clip_uses": 1} for row in thrice[: len(once)]] == once
    assert {row["group"] for row in once} <= {row["group"] for row in thrice}
    assert release_plan(3) == thrice and release_plan(3, seed=1) != thrice  # from the seed alone
    twice = release_plan(2)
    assert (
        len(once) <= len(twice) <= len(thrice)
        and [{**row, "max_clip_uses": 2} for row in thrice[: len(twice)]] == twice
    )


def test_a_clip_reused_by_one_pool_never_gives_the_same_item_twice():
    src = dict.fromkeys(SOURCE_COLUMNS, "")
    group = Group("plucked", ("banjo", "guitar", "mandolin", "ukulele", "bass"), "")
    absent = {"banjo": 0.0, "guitar": 0.0}
    clips = {
        key: Clip(key, {**absent, **labels}, (), "", src)
        for key, labels in (
            ("000001_0", {"mandolin": 1.0, "ukulele": 1.0, "bass": 1.0}),
            ("000002_0", {}),
            ("000003_0", {}),
        )
    }
    counts = {uses: plan_multilabel(clips, [group], 0, uses) for uses in (1, 2, 3, 9)}
    assert [len(rows) for rows in counts.values()] == [
        1,
        2,
        3,
        3,
    ]  # one clip triple, three present pairs
    assert len({frozenset(row["present"]) for row in counts[9]}) == 3


@pytest.mark.slow
def test_max_clip_uses_reaches_the_rows_schema_and_card_from_the_cli(
    archive, release_plan, tmp_path
):
    root = command_parser()
    args = root.parse_args(
        [
            "build",
            "openmic",
            "--source",
            str(archive),
            "--out",
            str(tmp_path / "out"),
            "--max-clip-uses",
            "3",
        ]
    )
    assert root.parse_args(["build", "openmic", "--source", "x", "--out", "y"]).max_clip_uses == 1
    args.run(args)
    table = datasets.load_dataset(
        str(tmp_path / "out"), "multilabel_30s", split="test", cache_dir=str(tmp_path / "cache")
    )
    assert table.features["max_clip_uses"] == datasets.Value("int32")
    planned = release_plan(3)
    assert [{k: v for k, v in row.items() if k in planned[0]} for row in table] == planned
    card = (tmp_path / "out" / "README.md").read_text()
    assert f"| `multilabel_30s` | 30 s multi-label | {len(planned):,} | - | 1,028 |" in card
    assert (
        "built with `--max-clip-uses 3`" in card
        and "up to 3 of its rows" in card
        and "sparse" in card
    )


@pytest.mark.slow
@pytest.mark.parametrize("uses", [0, -2])
def test_max_clip_uses_below_one_is_a_clear_error(
    archive, release_plan, tmp_path, monkeypatch, uses
):
    with pytest.raises(
        ValueError, match=rf"max_clip_uses \(--max-clip-uses\) must be an integer >= 1, got {uses}"
    ):
        openmic.build(archive, tmp_path / "out", seed=0, max_clip_uses=uses)
    assert not (tmp_path / "out").exists()
    with pytest.raises(ValueError, match="--max-clip-uses"):
        release_plan(uses)
    args = command_parser().parse_args(
        [
            "build",
            "openmic",
            "--download",
            "--source",
            str(tmp_path),
            "--out",
            str(tmp_path / "out"),
            "--max-clip-uses",
            str(uses),
        ]
    )
    monkeypatch.setitem(
        sys.modules, "mirdata", None
    )  # a download would fail with "pip install mirdata"
    with pytest.raises(ValueError, match="--max-clip-uses"):  # checked before any download
        args.run(args)


@pytest.mark.slow
def test_temporal_target_is_present_in_exactly_one_segment(built, truth, archive):
    _, _, rows = built
    temporal = rows["temporal_30s"]
    for row in temporal:
        relevances = [truth.get((key, row["instrument"])) for key in row["source_keys"]]
        assert sorted(relevances) == [0.0, 0.0, 1.0] and relevances == row["segment_relevance"]
        assert (
            relevances.index(1.0) == row["gold_segment"]
            and row["answer"] == TIME_RANGES[row["gold_segment"]]
        )
    gold = Counter(row["gold_segment"] for row in temporal)
    assert len(temporal) >= 12 and max(gold.values()) - min(gold.values()) <= 1 and len(gold) == 3
    row = temporal[0]  # the segments play the source clips in the recorded order
    samples, _ = soundfile.read(io.BytesIO(row["audio"]["bytes"]), dtype="float32")
    for index, key in enumerate(row["source_keys"]):
        np.testing.assert_allclose(
            samples[index * 160_000 : (index + 1) * 160_000], clip_audio(archive, key), atol=1e-4
        )


@pytest.mark.slow
def test_intermediate_relevance_is_never_gold(built, truth):
    _, _, rows = built
    intermediate = {pair for pair, value in truth.items() if 0.0 < value < 1.0}
    gold = {(row["sample_key"], row["instrument"]) for row in rows["binary"]}
    gold |= {
        (row["sample_key"], row[f"{side}_instrument"].replace(" ", "_"))
        for row in rows["confusable"]
        for side in ("present", "absent")
    }
    gold |= {(key, row["instrument"]) for row in rows["temporal_30s"] for key in row["source_keys"]}
    gold |= {
        (key, c.replace(" ", "_"))
        for row in rows["multilabel_30s"]
        for c in row["absent"]
        for key in row["source_keys"]
    }
    assert intermediate and not gold & intermediate


@pytest.mark.slow
def test_every_config_loads_with_decodable_audio_and_the_card_reports_counts(built):
    folder, summary, rows = built
    for config in CONFIGS:
        assert len(rows[config]) == summary["counts"][config] > 0
        for row in rows[config]:
            assert decoded_hash(row) == row["pcm_sha256"]
            assert row["duration_s"] == (30.0 if config.endswith("_30s") else 10.0)
    card = (folder / "README.md").read_text()
    assert card.startswith("---\nlicense: other\n")
    assert all(f"- config_name: {config}\n" in card for config in CONFIGS)
    table = {
        line.split(" | ")[0].strip("| `"): line.split(" | ")
        for line in card.splitlines()
        if line.startswith("| `")
    }
    for config, count in summary["counts"].items():
        yes = sum(row["answer"] == "yes" for row in rows[config])
        split = f"{yes:,} / {count - yes:,}" if config in ("binary", "genre_hard") else "-"
        assert table[config][2:] == [f"{count:,}", split, f"{PAPER_COUNTS[config]:,} |"]
    assert f"| {synthmic.LICENCE_TITLE} | {synthmic.LICENCE_URL} | 60 |" in card
    assert all(row["license_title"] == synthmic.LICENCE_TITLE for row in rows["binary"])


@pytest.mark.slow
def test_every_row_records_the_loudness_of_its_stored_audio(built):
    """`loudness_lufs` is pyloudnorm's BS.1770 reading of the row's decoded FLAC; the card names the
    method, the resampler and the range."""
    import pyloudnorm

    out, _, rows = built
    meter = pyloudnorm.Meter(16_000)
    for config in CONFIGS:
        for row in rows[config]:
            samples, _ = soundfile.read(io.BytesIO(row["audio"]["bytes"]), dtype="float64")
            measured = meter.integrated_loudness(samples)
            assert row["loudness_lufs"] == pytest.approx(measured, abs=0.006), row["item_id"]
    card = (out / "README.md").read_text()
    assert "ITU-R BS.1770-4 integrated loudness, measured with pyloudnorm" in card
    recorded = [row["loudness_lufs"] for config in CONFIGS for row in rows[config]]
    assert f"{min(recorded):.1f} to {max(recorded):.1f} LUFS" in card
    assert "scipy.signal.resample_poly" in card and "`loudness_lufs`, `audio`" in card


@pytest.mark.slow
def test_the_synthmic_card_gives_the_loudness_range_of_its_decoded_clips(archive):
    import pyloudnorm

    meter = pyloudnorm.Meter(16_000)
    measured = [
        meter.integrated_loudness(soundfile.read(path, dtype="float64")[0])
        for path in sorted((archive / "audio").rglob("*.ogg"))
    ]
    card = (archive / "README.md").read_text()
    assert f"{min(measured):.1f} to {max(measured):.1f} LUFS" in card and "pyloudnorm" in card


@pytest.mark.e2e
def test_same_seed_same_output_from_the_tgz_and_another_seed_differs(archive, built, tmp_path):
    _, _, rows = built
    tgz = tmp_path / "openmic-2018-v1.0.0.tgz"
    with tarfile.open(tgz, "w:gz") as bundle:
        bundle.add(archive, arcname="openmic-2018")
    # rebuilt in a fresh process with another hash seed, to catch set-order or process-state leaks
    script = "import sys; from symphony_bench.hub_upload.openmic import build; build(sys.argv[1], sys.argv[2], seed=0)"
    completed = run_cli(
        [sys.executable, "-c", script, str(tgz), str(tmp_path / "again")], cwd=tmp_path
    )
    assert completed.returncode == 0, completed.stderr
    again = all_rows(tmp_path / "again", tmp_path / "cache")
    assert without_audio(again) == without_audio(rows)
    assert [decoded_hash(r) for c in CONFIGS for r in again[c]] == [
        decoded_hash(r) for c in CONFIGS for r in rows[c]
    ]
    assert not [
        p.name for p in tmp_path.iterdir() if p.name.startswith(".")
    ]  # extracted copy removed

    openmic.build(archive, tmp_path / "other", seed=1)
    other = all_rows(tmp_path / "other", tmp_path / "cache")
    assert all(row["seed"] == 1 for table in other.values() for row in table)
    for config in ("binary", "confusable", "temporal_30s"):
        assert without_audio(other)[config] != [
            {**r, "seed": 1} for r in without_audio(rows)[config]
        ]


def truncate_labels(root: Path) -> Path:
    path = root / LABELS_CSV
    path.write_bytes(path.read_bytes()[:-9])
    return path


def unknown_instrument(root: Path, avoid: str) -> Path:
    """Renames the instrument of one label row of a clip other than `avoid`."""
    path = root / LABELS_CSV
    lines = path.read_text().splitlines()
    index = next(i for i, line in enumerate(lines[1:], start=1) if not line.startswith(avoid))
    lines[index] = re.sub(r",[a-z_]+,", ",kazoo,", lines[index])
    path.write_text("\n".join(lines) + "\n")
    return path


def used_clip(built) -> str:
    return built[2]["binary"][0]["sample_key"]


@pytest.mark.slow
@pytest.mark.parametrize(
    "damage, expected",
    [
        ("missing_ogg", "missing audio"),
        ("corrupt_ogg", "cannot read"),
        ("truncated_csv", "incomplete row"),
        ("unknown_instrument", "'kazoo'"),
    ],
)
def test_bad_input_is_one_error_naming_the_file_and_writes_nothing(
    archive, built, tmp_path, damage, expected
):
    root = copy_archive(archive, tmp_path)
    ogg = audio_path(root, used_clip(built))
    if damage == "missing_ogg":
        ogg.unlink()
        named = ogg
    elif damage == "corrupt_ogg":
        ogg.write_bytes(b"OggS but not really" * 50)
        named = ogg
    else:
        named = (
            truncate_labels(root)
            if damage == "truncated_csv"
            else unknown_instrument(root, used_clip(built))
        )
    with pytest.raises(DataFileError, match=re.escape(str(named))) as error:
        openmic.build(root, tmp_path / "out", seed=0)
    assert expected in str(error.value)
    assert not (tmp_path / "out").exists() and not [
        p.name for p in tmp_path.iterdir() if p.name.startswith(".")
    ]


@pytest.mark.slow
def test_skip_bad_leaves_out_and_lists_what_was_skipped(archive, built, tmp_path):
    root = copy_archive(archive, tmp_path)
    corrupt = audio_path(root, used_clip(built))
    corrupt.write_bytes(b"garbage" * 100)
    truncate_labels(root)
    unknown_instrument(root, used_clip(built))
    summary = openmic.build(root, tmp_path / "out", seed=0, skip_bad=True)
    with open(tmp_path / "out" / "skipped.csv", newline="") as handle:
        skipped = list(csv.DictReader(handle))
    assert summary["skipped"] == len(skipped) == 3
    assert {row["path"] for row in skipped} == {str(corrupt), str(root / LABELS_CSV)}
    assert any("kazoo" in row["reason"] for row in skipped) and any(
        "incomplete" in row["reason"] for row in skipped
    )
    rows = all_rows(tmp_path / "out", tmp_path / "cache")
    used = {row.get("sample_key") for table in rows.values() for row in table}
    used |= {
        key
        for config in ("multilabel_30s", "temporal_30s")
        for row in rows[config]
        for key in row["source_keys"]
    }
    assert used_clip(built) not in used
    assert "skipped.csv" in (tmp_path / "out" / "README.md").read_text()


@pytest.mark.slow
def test_cli_commands_build_and_report_counts_next_to_the_paper(archive, tmp_path, capsys):
    root = command_parser()
    args = root.parse_args(
        ["build", "synthmic", "--out", str(tmp_path / "tiny"), "--clips", "2", "--seed", "3"]
    )
    args.run(args)
    assert len(list((tmp_path / "tiny" / "audio").rglob("*.ogg"))) == 2
    args = root.parse_args(
        [
            "build",
            "openmic",
            "--source",
            str(archive),
            "--out",
            str(tmp_path / "out"),
            "--seed",
            "0",
        ]
    )
    args.run(args)
    printed, log = capsys.readouterr()
    assert "encoding clips" not in log  # no progress bar outside a terminal
    assert re.search(r"binary\s+\d+\s+9,332", printed) and re.search(
        r"temporal_30s\s+\d+\s+3,579", printed
    )


@pytest.mark.slow
def test_download_goes_through_mirdata(archive, tmp_path, monkeypatch):
    def initialize(name, data_home):
        assert name == "openmic2018"
        return types.SimpleNamespace(
            download=lambda: shutil.copytree(archive, Path(data_home) / "openmic-2018")
        )

    monkeypatch.setitem(sys.modules, "mirdata", types.SimpleNamespace(initialize=initialize))
    home = tmp_path / "home"
    home.mkdir()
    args = command_parser().parse_args(
        ["build", "openmic", "--download", "--source", str(home), "--out", str(tmp_path / "out")]
    )
    args.run(args)
    assert (tmp_path / "out" / "data" / "binary").is_dir()
    monkeypatch.setitem(sys.modules, "mirdata", None)
    with pytest.raises(ValueError, match="pip install mirdata"):
        download_release(home)


def test_44k_stereo_clips_are_downmixed_and_resampled(tmp_path):
    path = audio_path(tmp_path, "000123_960")
    path.parent.mkdir(parents=True)
    time = np.arange(441_000) / 44_100
    stereo = (
        np.stack([np.sin(2 * np.pi * 440 * time), 0.5 * np.sin(2 * np.pi * 440 * time)], axis=1)
        * 0.5
    )
    soundfile.write(path, stereo, 44_100, format="OGG", subtype="VORBIS")
    samples = clip_audio(tmp_path, "000123_960")
    assert samples.shape == (160_000,) and samples.dtype == np.float32
    spectrum = np.abs(np.fft.rfft(samples))
    assert np.argmax(spectrum) * 16_000 / len(samples) == pytest.approx(440, abs=2)


@pytest.mark.parametrize(
    "line, message",
    [
        ("small,guitar;banjo;mandolin,three only", "at least 4"),
        ("odd,guitar;banjo;kazoo;ukulele,unknown", "kazoo"),
    ],
)
def test_a_bad_groups_file_is_named(tmp_path, line, message):
    path = tmp_path / "groups.csv"
    path.write_text(f"group_name,instruments,rationale\n{line}\n")
    with pytest.raises(DataFileError, match=f"{re.escape(str(path))}, line 2: .*{message}"):
        load_groups(path, tuple(REAL_CLASS_MAP))


def test_the_shipped_groups_cover_every_class_once_with_a_rationale(groups):
    members = [member for group in groups.values() for member in group.members]
    assert sorted(members) == sorted(REAL_CLASS_MAP) and all(
        len(g.members) >= 4 and g.rationale for g in groups.values()
    )


@pytest.mark.e2e
def test_two_workers_write_the_same_bytes_as_one(archive, built, tmp_path):
    serial, _, _ = built
    parallel = openmic.build(archive, tmp_path / "parallel", seed=0, workers=2)
    assert parallel["counts"] == built[1]["counts"]
    files = sorted(path.relative_to(serial) for path in serial.rglob("*") if path.is_file())
    assert files == sorted(
        path.relative_to(tmp_path / "parallel")
        for path in (tmp_path / "parallel").rglob("*")
        if path.is_file()
    )
    assert any(path.suffix == ".parquet" for path in files)
    for name in files:
        assert (serial / name).read_bytes() == (tmp_path / "parallel" / name).read_bytes(), name
