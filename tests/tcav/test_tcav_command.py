"""`tcav` command in-process: `analyse` writes tables, plots and the debiasing curve; bad input gives
errors naming the file, column or cell; the module the CLI imports at start-up stays light and its
defaults are the analysis's own."""

from __future__ import annotations

import argparse
import csv
import json
import subprocess
import sys

import numpy as np
import pytest
import soundfile
from support.tcav import cli, tone, write_embedding_inputs, write_tracks

from symphony_bench.metrics import cav, tcav, tcav_significance
from symphony_bench.plugin.core.errors import DataFileError
from symphony_bench.plugin.tcav import command


def test_analyse_writes_tables_plots_and_the_debiasing_curve(tmp_path, capsys):
    metadata = write_embedding_inputs(tmp_path)
    out = tmp_path / "out"
    cli(
        [
            "tcav",
            "analyse",
            "--metadata",
            str(metadata),
            "--embeddings",
            str(tmp_path / "emb.npy"),
            "--ids",
            str(tmp_path / "ids.txt"),
            "--out",
            str(out),
            "--runs",
            "60",
            "--concept",
            "gender=female",
            "--concept",
            "language=es",
            "--debias-genre",
            "hiphop",
            "--debias-steps",
            "11",
        ]
    )
    assert "gender=female (CAV accuracy" in capsys.readouterr().out
    report = json.loads((out / "tcav.json").read_text())
    assert report["n_tests"] == 8 and report["bonferroni_level"] == pytest.approx(0.05 / 8)
    hiphop = next(
        t for t in report["tests"] if t["concept"] == "gender=female" and t["genre"] == "hiphop"
    )
    assert hiphop["significant"] and hiphop["direction"] == "negative" and hiphop["ci_high"] < 0.5
    with open(out / "tcav_scores.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == 8 and {
        "p_value",
        "p_paper_ttest",
        "ci_low",
        "ci_high",
        "reliable_cav",
    } <= set(rows[0])
    with open(out / "debias.csv", newline="") as handle:
        assert len(list(csv.DictReader(handle))) == 2 * 11
    assert np.load(out / "run_scores.npz")["scores"].shape == (60, 8)
    for name in ("tcav_gender_female.png", "tcav_language_es.png", "debias.png"):
        assert (out / "plots" / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert (out / ".symphony-bench-build").is_file()


def test_bad_input_gives_errors_naming_the_file_column_or_cell(tmp_path):
    metadata = write_tracks(tmp_path, [("a", "missing.wav", "pop", "female", "en")])
    with pytest.raises(DataFileError, match=r"missing\.wav does not exist"):
        cli(
            [
                "tcav",
                "embed",
                "--metadata",
                str(metadata),
                "--encoder",
                "unused",
                "--cache",
                str(tmp_path / "c"),
            ]
        )
    with pytest.raises(DataFileError, match=r"tracks\.csv: no column 'style'"):
        cli(
            [
                "tcav",
                "embed",
                "--metadata",
                str(metadata),
                "--genre-column",
                "style",
                "--encoder",
                "unused",
                "--cache",
                str(tmp_path / "c"),
            ]
        )
    (tmp_path / "missing.wav").write_bytes(b"not audio")
    with pytest.raises(DataFileError, match=r"missing\.wav: cannot read audio"):
        cli(
            [
                "tcav",
                "embed",
                "--metadata",
                str(metadata),
                "--encoder",
                "unused",
                "--cache",
                str(tmp_path / "c"),
            ]
        )
    assert not (tmp_path / "c").exists()

    metadata = write_embedding_inputs(tmp_path)
    common = [
        "tcav",
        "analyse",
        "--metadata",
        str(metadata),
        "--embeddings",
        str(tmp_path / "emb.npy"),
        "--ids",
        str(tmp_path / "ids.txt"),
        "--out",
        str(tmp_path / "out"),
        "--runs",
        "5",
    ]
    with pytest.raises(
        ValueError,
        match=r"concept 'gender=female', cell 'hiphop': \d+ positive and \d+ other tracks",
    ):
        cli(
            common
            + ["--concept", "gender=female", "--min-per-cell", "200", "--cap-per-cell", "200"]
        )
    with pytest.raises(DataFileError, match="no track has language='xx'"):
        cli(common + ["--concept", "language=xx"])
    (tmp_path / "ids.txt").write_text("t00000\n")
    with pytest.raises(DataFileError, match=r"ids\.txt: 1 track ids for 2400 embedding rows"):
        cli(common)
    assert not (tmp_path / "out").exists()


def parse(argv: list[str]) -> argparse.Namespace:
    root = argparse.ArgumentParser(prog="symphony-bench")
    command.add_commands(root.add_subparsers(dest="command", required=True))
    return root.parse_args(argv)


def test_command_defaults_are_the_analysis_settings():
    analyse = ["tcav", "analyse", "--metadata", "m.csv", "--cache", "c", "--out", "o"]
    analysis_settings = command.analysis_settings
    assert analysis_settings(parse(analyse)) == tcav.Settings()
    for method in tcav_significance.SIGNIFICANCE_METHODS:
        settings = analysis_settings(parse(analyse + ["--significance", method]))
        assert settings == tcav.Settings(method=method)
    changed = analysis_settings(parse(analyse + ["--runs", "7", "--skip-sparse-cells"]))
    assert (changed.runs, changed.skip_sparse) == (7, True)


IMPORTS = """
import json, sys
import symphony_bench.plugin.tcav.command
at_start_up = sorted(sys.modules)
import symphony_bench.plugin.tcav.cache, symphony_bench.plugin.tcav.outputs
print(json.dumps([at_start_up, sorted(sys.modules)]))
"""


def test_command_module_imports_only_the_standard_library_and_the_package_only_core():
    completed = subprocess.run(
        [sys.executable, "-c", IMPORTS], capture_output=True, text=True, check=True
    )
    at_start_up, everything = json.loads(completed.stdout)
    assert not [
        m
        for m in at_start_up
        if m.split(".")[0] in {"numpy", "torch", "scipy", "matplotlib", "transformers"}
    ]
    assert [m for m in at_start_up if m.startswith("symphony_bench.")] == [
        "symphony_bench.metrics",
        "symphony_bench.metrics.constants",  # the analysis defaults, standard library only
        "symphony_bench.plugin",
        "symphony_bench.plugin.tcav",
        "symphony_bench.plugin.tcav.command",
        "symphony_bench.plugin.tcav.defaults",
    ]
    assert {m.split(".")[2] for m in everything if m.startswith("symphony_bench.plugin.")} == {
        "core",
        "tcav",
    }
    harnesses = [m for m in everything if m.split(".")[0] in {"lm_eval", "lmms_eval"}]
    assert not harnesses and not [
        m for m in everything if m.startswith("symphony_bench.hub_upload")
    ]


def analyse_args(folder, out, *extra) -> list[str]:
    return [
        "tcav",
        "analyse",
        "--metadata",
        str(folder / "tracks.csv"),
        "--embeddings",
        str(folder / "emb.npy"),
        "--ids",
        str(folder / "ids.txt"),
        "--out",
        str(out),
        "--runs",
        "5",
        "--concept",
        "gender=female",
        *extra,
    ]


@pytest.mark.parametrize("out", ["emb.npy", "tracks.csv", "ids.txt", "emb.npy/deeper", ".", ".."])
def test_analyse_refuses_an_output_that_overlaps_its_inputs_and_keeps_them(tmp_path, out):
    inputs = tmp_path / "inputs"
    inputs.mkdir()
    write_embedding_inputs(inputs)
    before = {path: path.read_bytes() for path in inputs.iterdir()}
    with pytest.raises(DataFileError, match="refusing to write there"):
        cli(analyse_args(inputs, inputs / out))
    assert {path: path.read_bytes() for path in inputs.iterdir()} == before


def test_analyse_refuses_to_replace_an_embedding_cache(tmp_path):
    write_embedding_inputs(tmp_path)
    cache = tmp_path / "cache"
    cache.mkdir()
    (cache / ".symphony-bench-build").write_text("written by symphony-bench\nkind: tcav-cache\n")
    (cache / "whisper.npy").write_bytes(b"embeddings")
    with pytest.raises(DataFileError, match="holds a 'tcav-cache' output"):
        cli(analyse_args(tmp_path, cache))
    assert (cache / "whisper.npy").read_bytes() == b"embeddings"


def test_embed_refuses_a_cache_folder_that_holds_its_audio(tmp_path):
    (tmp_path / "audio").mkdir()
    soundfile.write(tmp_path / "audio" / "a.wav", tone(0.5, 16000, 440.0), 16000)
    metadata = write_tracks(tmp_path, [("a", "audio/a.wav", "pop", "female", "en")])
    for cache in (tmp_path, tmp_path / "audio"):
        with pytest.raises(DataFileError, match="refusing to write there"):
            cli(
                [
                    "tcav",
                    "embed",
                    "--metadata",
                    str(metadata),
                    "--encoder",
                    "unused",
                    "--cache",
                    str(cache),
                ]
            )


@pytest.mark.parametrize("option", ["--threads", "--runs", "--min-per-cell", "--cap-per-cell"])
@pytest.mark.parametrize("value", ["-1", "0", "two", "1.5"])
def test_counts_below_one_are_usage_errors(tmp_path, capsys, option, value):
    with pytest.raises(SystemExit) as exit_:
        cli(analyse_args(tmp_path, tmp_path / "out", option, value))
    assert exit_.value.code == 2
    assert (
        f"argument {option}: expected a whole number >= 1, got '{value}'" in capsys.readouterr().err
    )


def usage_error(capsys, argv: list[str]) -> str:
    with pytest.raises(SystemExit) as exit_:
        cli(argv)
    assert exit_.value.code == 2
    return capsys.readouterr().err


# Each numeric option of `tcav analyse`, with what it must be and values outside it (nan and inf
# parse as floats but are no setting).
ANALYSE_RANGES = [
    ("--min-accuracy", "a share in [0, 1]", ["2", "1.0001", "-0.1", "nan", "inf", "x"]),
    ("--subset-fraction", "a fraction in (0, 1]", ["0", "-0.5", "1.5", "nan", "x"]),
    ("--alpha", "a significance level in (0, 1)", ["0", "1", "-0.05", "2", "nan", "x"]),
    ("--c", "a number > 0", ["0", "-1", "inf", "nan", "x"]),
    ("--seed", "a whole number >= 0", ["-1", "0.5", "x"]),
    ("--debias-steps", "a whole number >= 2", ["-1", "0", "1", "x"]),
]


@pytest.mark.parametrize(
    ("option", "expected", "value"),
    [(o, e, v) for o, e, values in ANALYSE_RANGES for v in values],
)
def test_analyse_numbers_outside_their_range_are_usage_errors(
    tmp_path, capsys, option, expected, value
):
    err = usage_error(capsys, analyse_args(tmp_path, tmp_path / "out", option, value))
    assert f"argument {option}: expected {expected}, got '{value}'" in err
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    ("option", "value", "attribute", "parsed"),
    [
        ("--min-accuracy", "0", "min_accuracy", 0.0),
        ("--min-accuracy", "1", "min_accuracy", 1.0),
        ("--subset-fraction", "1", "subset_fraction", 1.0),
        ("--alpha", "0.01", "alpha", 0.01),
        ("--c", "1e-3", "c", 1e-3),
        ("--seed", "0", "seed", 0),
        ("--debias-steps", "2", "debias_steps", 2),
    ],
)
def test_analyse_numbers_at_the_ends_of_their_range_are_accepted(option, value, attribute, parsed):
    analyse = ["tcav", "analyse", "--metadata", "m.csv", "--cache", "c", "--out", "o"]
    assert getattr(parse(analyse + [option, value]), attribute) == parsed


@pytest.mark.parametrize("value", ["-1", "nan", "inf", "x"])
def test_embed_max_seconds_outside_its_range_is_a_usage_error(tmp_path, capsys, value):
    argv = ["tcav", "embed", "--metadata", "m.csv", "--encoder", "e", "--cache", "c"]
    err = usage_error(capsys, argv + ["--max-seconds", value])
    assert f"argument --max-seconds: expected a number of seconds >= 0 (0: all), got '{value}'" in (
        err
    )
    assert parse(argv + ["--max-seconds", "0"]).max_seconds == 0.0


def test_a_minimum_per_cell_above_the_cap_is_refused_before_reading_anything(tmp_path):
    with pytest.raises(ValueError, match="--min-per-cell 6 is above --cap-per-cell 5"):
        cli(analyse_args(tmp_path, tmp_path / "out", "--min-per-cell", "6", "--cap-per-cell", "5"))
    assert not (tmp_path / "out").exists()


def test_complex_embeddings_are_refused(tmp_path):
    write_embedding_inputs(tmp_path)
    np.save(tmp_path / "emb.npy", np.load(tmp_path / "emb.npy") * (1 + 1j))
    with pytest.raises(
        DataFileError,
        match=r"emb\.npy: embeddings must be a 2-D array of real numbers, got complex",
    ):
        cli(analyse_args(tmp_path, tmp_path / "out"))


def test_embeddings_on_an_extreme_scale_stop_with_a_non_convergence_error(tmp_path):
    write_embedding_inputs(tmp_path, entangle=0.0)
    np.save(tmp_path / "emb.npy", np.load(tmp_path / "emb.npy").astype(np.float64) * 1e10)
    with pytest.raises(
        cav.NotConverged,
        match=r"concept gender=female: .*no convergence.*standardise the embeddings",
    ):
        cli(analyse_args(tmp_path, tmp_path / "out"))
    assert not (tmp_path / "out").exists()
