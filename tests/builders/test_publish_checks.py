"""What `symphony-bench publish` checks before anything is sent (the Hub round trips are in tests/hub)."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from types import SimpleNamespace

import datasets
import pyarrow.parquet as pq
import pytest
from support.harness import executable, run_cli
from support.pictograms import pictogram_photos
from support.registry import put_first_on_path, write_dist_info

from symphony_bench.hub_upload import symphony_bias_image, symphony_bias_text
from symphony_bench.hub_upload.publish import (
    check_folder,
    describe,
    files_to_publish,
    same_content,
)
from symphony_bench.plugin.core import registry
from symphony_bench.plugin.core.atomic import BUILD_MARKER, recorded_files
from symphony_bench.plugin.core.errors import DataFileError


@pytest.fixture
def text_set(tmp_path) -> Path:
    return symphony_bias_text.build(tmp_path / "text")


@pytest.fixture
def image_set(tmp_path) -> Path:
    source = pictogram_photos(tmp_path / "photos", symphony_bias_image.MIN_IMAGES)
    return symphony_bias_image.build(source, tmp_path / "images")


def set_kind(folder: Path, kind: str) -> None:
    """The marker says another kind; the rest of it (the files the build wrote) is kept."""
    marker = folder / BUILD_MARKER
    lines = marker.read_text().splitlines(keepends=True)
    marker.write_text(
        "".join(f"kind: {kind}\n" if line.startswith("kind: ") else line for line in lines)
    )


def edit_card(folder: Path, old: str, new: str) -> None:
    card = folder / "README.md"
    text = card.read_text()
    assert old in text
    card.write_text(text.replace(old, new, 1))


def test_built_sets_pass_and_the_dry_run_lists_files_and_card(text_set, image_set):
    assert check_folder(text_set) == "symphony-bias-text"
    assert check_folder(image_set) == "symphony-bias-image"
    plan = describe(text_set, "org/text", "v1.0", private=False)
    assert plan.startswith(
        f"would publish {text_set} (symphony-bias-text) to the public dataset repo org/text, "
        "in one commit, tagged v1.0: 5 files"
    )
    assert re.search(
        r"^  data/templates/test-00000-of-00001.parquet \([\d,]+ bytes\)$", plan, flags=re.MULTILINE
    )
    assert BUILD_MARKER not in plan
    assert plan.endswith((text_set / "README.md").read_text())


@pytest.mark.parametrize(
    ("old", "new", "error"),
    [
        ("---\nlicense", "license", "no YAML front matter"),
        ("configs:\n", "configs: [\n", "the card's YAML does not parse"),
        ("license: mit\n", "", "names no licence"),
        (
            "path: data/fillers/test-*.parquet",
            "path: data/filler/test-*.parquet",
            "config 'fillers' matches no file",
        ),
        (
            "- config_name: fillers\n  data_files:\n  - split: test\n    path: data/fillers/test-*.parquet\n",
            "",
            "data files in no config: ['data/fillers/test-00000-of-00001.parquet']",
        ),
        (
            "- config_name: fillers\n  data_files:\n",
            "- config_name: fillers\n  files:\n",
            "needs config_name and data_files",
        ),
    ],
)
def test_card_problems_are_named(text_set, old, new, error):
    edit_card(text_set, old, new)
    with pytest.raises(DataFileError, match=f"README.md: .*{re.escape(error)}"):
        check_folder(text_set)


def test_only_builder_outputs_of_published_kinds(text_set, tmp_path):
    (text_set / BUILD_MARKER).unlink()
    with pytest.raises(
        DataFileError,
        match=f"not a folder written by `symphony-bench build` \\(no {BUILD_MARKER}\\)",
    ):
        check_folder(text_set)
    (text_set / BUILD_MARKER).write_text("written by symphony-bench\nkind: tcav-cache\n")
    with pytest.raises(DataFileError, match="a 'tcav-cache' output is not published"):
        check_folder(text_set)


def test_the_openmic_card_must_credit_its_licence_and_hold_audio(text_set):
    set_kind(text_set, "openmic")
    with pytest.raises(DataFileError, match=r"must credit the source's licence \(CC BY 4.0\)"):
        check_folder(text_set)
    edit_card(
        text_set, "Licence: MIT.", "OpenMIC-2018 is released under CC BY 4.0 (Humphrey et al.)."
    )
    # credited now; but these configs hold no audio, which a grounding set must
    with pytest.raises(
        DataFileError, match="column 'audio' is missing, expected a datasets Audio feature"
    ):
        check_folder(text_set)


def test_only_licensed_images_and_real_image_features(image_set):
    path = next((image_set / "data").glob("test-*.parquet"))
    table = pq.read_table(path)
    licences = table.column("licence").to_pylist()
    licences[3] = " "
    pq.write_table(
        table.set_column(table.schema.get_field_index("licence"), "licence", [licences]), path
    )
    with pytest.raises(
        DataFileError, match=r"rows \[3\] have no licence; only licensed images are published"
    ):
        check_folder(image_set)
    rows = (
        datasets.Dataset.from_parquet(str(path))
        .cast_column("image", datasets.Image(decode=False))
        .to_list()
    )
    datasets.Dataset.from_list(rows).to_parquet(
        str(path)
    )  # image bytes as a plain struct: no Image feature
    with pytest.raises(
        DataFileError, match="column 'image' is dict, expected a datasets Image feature"
    ):
        check_folder(image_set)


def cli_dry_run(build: Path, cwd: Path):
    """`symphony-bench publish BUILD --repo-id org/text --dry-run`, the Hub endpoint unreachable."""
    return run_cli(
        [
            executable("symphony-bench"),
            "publish",
            str(build),
            "--repo-id",
            "org/text",
            "--dry-run",
        ],
        cwd=cwd,
        env={"HF_ENDPOINT": "http://127.0.0.1:9"},
    )


def test_cli_dry_run_sends_nothing_and_needs_no_network(text_set, tmp_path):
    completed = cli_dry_run(text_set, tmp_path)
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.startswith("would publish") and "license: mit" in completed.stdout


def test_the_text_set_gives_the_embedded_docs_and_refuses_other_instruments(text_set):
    from symphony_bench.plugin.core.text_set import embedded_text_set, read_text_set
    from symphony_bench.plugin.symphony_bias import text
    from symphony_bench.plugin.symphony_bias.docs import Design, build_docs

    assert read_text_set(text_set) == embedded_text_set()
    from_set = text.load_dataset(subset="full", text=str(text_set))["test"].to_list()
    embedded = build_docs(Design(subset="full"))
    assert [
        {k: v for k, v in doc.items() if not k.startswith("dataset_") and k != "task_options"}
        for doc in from_set
    ] == embedded
    assert {json.loads(doc["task_options"])["text"] for doc in from_set} == {str(text_set)}
    assert {doc["dataset_repo"] for doc in from_set} == {str(text_set)}
    changed = shutil.copytree(text_set, text_set.parent / "changed")
    path = next((changed / "data" / "instruments").glob("*.parquet"))
    rows = pq.read_table(path).to_pylist()
    rows[0]["noun"] = "guitar"
    datasets.Dataset.from_list(rows).to_parquet(str(path))
    with pytest.raises(DataFileError, match="its instruments differ from the benchmark's 22"):
        read_text_set(changed)


def test_files_compare_by_git_blob_id_or_by_sha256_when_the_hub_keeps_them_in_lfs(tmp_path):
    path = tmp_path / "file.parquet"
    path.write_bytes(b"some bytes" * 1000)
    blob = subprocess.run(
        ["git", "hash-object", str(path)], capture_output=True, text=True, check=True
    ).stdout.strip()
    sha256 = hashlib.sha256(path.read_bytes()).hexdigest()
    assert same_content(path, SimpleNamespace(lfs=None, blob_id=blob))
    assert not same_content(path, SimpleNamespace(lfs=None, blob_id="0" * 40))
    assert same_content(
        path, SimpleNamespace(lfs=SimpleNamespace(sha256=sha256), blob_id="pointer-blob")
    )
    assert not same_content(
        path, SimpleNamespace(lfs=SimpleNamespace(sha256="0" * 64), blob_id=blob)
    )


def test_data_files_in_every_form_the_hub_accepts_and_its_glob_rules(text_set):
    edit_card(
        text_set,
        "  data_files:\n  - split: test\n    path: data/templates/test-*.parquet\n",
        "  data_files: data/templates/test-*.parquet\n",
    )
    edit_card(
        text_set,
        "  data_files:\n  - split: test\n    path: data/fillers/test-*.parquet\n",
        "  data_files:\n    test: [data/fillers/test-*.parquet]\n",
    )
    assert check_folder(text_set) == "symphony-bias-text"
    # `*` stays within one folder, as on the Hub: data/*.parquet does not reach data/instruments/
    edit_card(text_set, "path: data/instruments/test-*.parquet", "path: data/*.parquet")
    with pytest.raises(
        DataFileError, match=r"config 'instruments' matches no file \(\['data/\*.parquet'\]\)"
    ):
        check_folder(text_set)
    edit_card(text_set, "path: data/*.parquet", "path: data/**/test-*.parquet")
    assert check_folder(text_set) == "symphony-bias-text"


# --- links and other non-files: what is sent is the build and nothing else ----------------------


def test_a_link_to_a_file_outside_the_folder_is_refused_by_check_and_dry_run(text_set, tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("not part of the build")
    (text_set / "notes.txt").symlink_to(secret)
    message = (
        f"{text_set}: refusing to publish a folder with symbolic links: "
        f"notes.txt -> {secret} (leaves the folder)."
    )
    for check in (check_folder, lambda f: describe(f, "org/text", None, private=False)):
        with pytest.raises(DataFileError) as error:
            check(text_set)
        assert str(error.value).startswith(message) and "Nothing was sent" in str(error.value)


def test_the_cli_dry_run_refuses_a_link_leaving_the_folder_and_lists_nothing(text_set, tmp_path):
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "secret.parquet").write_bytes(b"not part of the build")
    (text_set / "data" / "extra").symlink_to(tmp_path / "outside")  # a linked folder
    completed = cli_dry_run(text_set, tmp_path)
    assert completed.returncode != 0 and completed.stdout == ""
    assert f"data/extra -> {tmp_path / 'outside'} (leaves the folder)" in completed.stderr
    assert "secret.parquet" not in completed.stderr


def test_links_inside_the_folder_are_refused_too_and_all_are_named(text_set):
    # A link that stays inside would upload a second copy of its target under its own name (the
    # Hub has no links), and no builder writes one: refused like the others, each one named.
    (text_set / "card-copy.md").symlink_to("README.md")
    (text_set / "data" / "dangling").symlink_to("missing.parquet")
    (text_set / "data" / "loop").symlink_to("loop")
    with pytest.raises(DataFileError) as error:
        check_folder(text_set)
    assert (
        "card-copy.md -> README.md (inside the folder), "
        "data/dangling -> missing.parquet (inside the folder, to nothing), "
        "data/loop -> loop (inside the folder, to nothing)."
    ) in str(error.value)


def test_a_fifo_in_the_folder_is_refused_before_anything_reads_it(text_set):
    os.mkfifo(text_set / "data" / "pipe")
    with pytest.raises(DataFileError, match=r"neither a file nor a folder: data/pipe\. Nothing"):
        check_folder(text_set)


def test_files_to_publish_still_leaves_out_the_build_bookkeeping(text_set):
    (text_set / "skipped.csv").write_text("path,where,reason\n")
    assert files_to_publish(text_set) == [
        "README.md",
        *(
            f"data/{c}/test-00000-of-00001.parquet"
            for c in ("fillers", "instruments", "stereotypes", "templates")
        ),
    ]


# --- only what the build wrote: its list of files, never hidden files, never hard links ----------
TEXT_FILES = [
    "README.md",
    *(
        f"data/{c}/test-00000-of-00001.parquet"
        for c in ("fillers", "instruments", "stereotypes", "templates")
    ),
]


def test_the_build_records_the_files_it_wrote_in_its_marker(text_set):
    assert recorded_files(text_set) == TEXT_FILES
    assert files_to_publish(text_set) == TEXT_FILES


def test_hidden_files_are_never_sent_and_the_dry_run_says_they_are_left_out(text_set):
    (text_set / ".env").write_text("HF_TOKEN=hf_secret_never_sent\n")
    (text_set / "data" / ".notes.parquet").write_text("hidden")
    (text_set / ".cache").mkdir()
    (text_set / ".cache" / "token").write_text("hf_secret_never_sent")
    (text_set / ".cache" / "link").symlink_to(
        "/etc/passwd"
    )  # inside a hidden folder: not looked at
    assert check_folder(text_set) == "symphony-bias-text"
    assert files_to_publish(text_set) == TEXT_FILES
    plan = describe(text_set, "org/text", None, private=False)
    assert "hf_secret_never_sent" not in plan
    listing = plan.split("\n\n--- README.md ---")[0]
    assert "would publish" in listing and f": {len(TEXT_FILES)} files," in listing
    assert (
        "not sent (hidden files and folders are never published): .cache/, .env, "
        "data/.notes.parquet"
    ) in listing
    assert not re.search(r"^  \.env", listing, flags=re.MULTILINE)


def test_a_file_the_build_did_not_write_is_refused_naming_it(text_set):
    (text_set / "notes.txt").write_text("added after the build")
    (text_set / "data" / "fillers" / "extra.parquet").write_bytes(b"not from the build")
    with pytest.raises(DataFileError) as error:
        check_folder(text_set)
    assert str(error.value).startswith(
        f"{text_set}: files the build did not write (its {BUILD_MARKER} lists what it wrote): "
        "data/fillers/extra.parquet, notes.txt."
    )
    assert "Nothing was sent" in str(error.value)


@pytest.mark.parametrize("outside_name_first", [True, False])
def test_a_hard_link_is_refused_whichever_name_came_first(text_set, tmp_path, outside_name_first):
    card = text_set / "README.md"
    outside = tmp_path / "elsewhere.md"
    if outside_name_first:  # a file from elsewhere linked in under a name the build wrote
        outside.write_text(card.read_text() + "\nHF_TOKEN=hf_secret\n")
        card.unlink()
        os.link(outside, card)
    else:  # the build's file with a second name elsewhere: the two cannot be told apart
        os.link(card, outside)
    for check in (check_folder, files_to_publish):
        with pytest.raises(DataFileError) as error:
            check(text_set)
        assert str(error.value).startswith(
            f"{text_set}: refusing to publish files with more than one name (hard links): "
            "README.md (2 names)."
        )
        assert "Nothing was sent" in str(error.value)


def test_a_marker_without_a_list_of_files_is_refused_until_rebuilt(text_set):
    (text_set / BUILD_MARKER).write_text("written by symphony-bench\nkind: symphony-bias-text\n")
    with pytest.raises(
        DataFileError,
        match=re.escape(
            f"{text_set}: its {BUILD_MARKER} lists no files (written by an older symphony-bench): "
            "rebuild the folder"
        ),
    ):
        check_folder(text_set)


@pytest.fixture
def registry_reread():
    """The registry's cached reading of the entry points dropped before and after the test."""
    registry.build_kinds.cache_clear()
    yield
    registry.build_kinds.cache_clear()


def test_a_build_kind_registered_by_its_entry_point_is_published_with_its_checks(
    text_set, tmp_path, monkeypatch, registry_reread
):
    set_kind(text_set, "toy-set")
    with pytest.raises(DataFileError, match="a 'toy-set' output is not published"):
        check_folder(text_set)
    site = tmp_path / "site"
    site.mkdir()
    (site / "toy_builds.py").write_text(
        "from symphony_bench.plugin.core.registry import BuildKind\n"
        'TOY = BuildKind("toy-set", card_text="Toy Licence 1.0")\n'
    )
    points = {registry.BUILDER_GROUP: {"toy-set": "toy_builds:TOY"}}
    put_first_on_path(monkeypatch, write_dist_info(site, "toy-builds", points))
    registry.build_kinds.cache_clear()
    with pytest.raises(
        DataFileError, match=r"must credit the source's licence \(Toy Licence 1.0\)"
    ):
        check_folder(text_set)
    edit_card(text_set, "license: mit\n", "license: mit\n# Toy Licence 1.0\n")
    assert check_folder(text_set) == "toy-set"
