"""Embedding cache: reused until the audio changes, one .npy per encoder, read back in metadata order."""

from __future__ import annotations

import json
import subprocess

import numpy as np
import pytest
import soundfile
from support.harness import executable
from support.tcav import cli, tiny_whisper, tone, write_tracks
from support.terminal import stderr_on_a_terminal

from symphony_bench.plugin.tcav import cache
from symphony_bench.plugin.tcav.encoders import Encoder
from symphony_bench.plugin.tcav.metadata import read_metadata


@pytest.mark.e2e
def test_embedding_cache_is_reused_until_audio_changes(tmp_path, capsys):
    model_dir = tiny_whisper(tmp_path / "tiny-whisper")
    soundfile.write(tmp_path / "x.wav", tone(0.5, 16_000, 300.0), 16_000)
    metadata = write_tracks(tmp_path, [("x", "x.wav", "pop", "female", "en")])
    args = [
        "tcav",
        "embed",
        "--metadata",
        str(metadata),
        "--encoder",
        str(model_dir),
        "--cache",
        str(tmp_path / "c"),
        "--device",
        "cpu",
        "--name",
        "tw",
    ]
    cli(args)
    first = np.load(tmp_path / "c" / "tw.npy")
    cli(args)
    assert "cached, not recomputed" in capsys.readouterr().err
    soundfile.write(tmp_path / "x.wav", tone(0.5, 16_000, 900.0), 16_000)
    cli(args)
    assert not np.allclose(np.load(tmp_path / "c" / "tw.npy"), first)


@pytest.mark.e2e
def test_embedding_shows_progress_on_a_terminal_and_nothing_in_a_log(tmp_path):
    model_dir = tiny_whisper(tmp_path / "tiny-whisper")
    soundfile.write(tmp_path / "x.wav", tone(0.5, 16_000, 300.0), 16_000)
    soundfile.write(tmp_path / "y.wav", tone(0.5, 16_000, 500.0), 16_000)
    metadata = write_tracks(
        tmp_path, [("x", "x.wav", "pop", "female", "en"), ("y", "y.wav", "rock", "male", "es")]
    )
    embed = [executable("symphony-bench"), "tcav", "embed"]
    embed += ["--metadata", str(metadata), "--encoder", str(model_dir), "--device", "cpu"]
    shown = stderr_on_a_terminal([*embed, "--cache", str(tmp_path / "tty")])
    assert "embedding tracks" in shown and "2/2" in shown
    logged = subprocess.run(
        [*embed, "--cache", str(tmp_path / "log")], capture_output=True, text=True, check=True
    )
    assert "embedding tracks" not in logged.stderr


def test_cache_keeps_each_encoder_and_recomputes_only_changed_audio(tmp_path, monkeypatch):
    """A stand-in encoder (the wave's peak and length) in place of a model."""
    embedded = []

    def stand_in(source, device, trust_remote_code):
        def embed_batch(waves):
            embedded.extend([source] * len(waves))
            return np.array([[np.abs(wave).max(), wave.size] for wave in waves])

        return Encoder(source, 16_000, "peak and length", embed_batch)

    monkeypatch.setattr(cache, "load_encoder", stand_in)
    soundfile.write(tmp_path / "x.wav", tone(0.5, 16_000, 300.0), 16_000)
    soundfile.write(tmp_path / "y.wav", tone(0.25, 8_000, 300.0), 8_000)
    metadata = read_metadata(
        write_tracks(
            tmp_path, [("x", "x.wav", "pop", "female", "en"), ("y", "y.wav", "rock", "male", "es")]
        ),
        audio_column="audio_path",
    )
    folder = tmp_path / "c"
    assert (
        cache.embed_tracks(metadata, "org/first", folder, log=lambda m: None)
        == folder / "first.npy"
    )
    cache.embed_tracks(metadata, "org/second", folder, log=lambda m: None)
    cache.embed_tracks(metadata, "org/first", folder, log=lambda m: None)
    assert embedded == ["org/first"] * 2 + ["org/second"] * 2
    index = json.loads((folder / cache.INDEX_FILE).read_text())
    assert index["track_ids"] == ["x", "y"] and sorted(index["encoders"]) == ["first", "second"]
    with pytest.raises(ValueError, match="choose one with --encoder"):
        cache.cached_embeddings(metadata, folder)
    embeddings, name = cache.cached_embeddings(metadata, folder, "second")
    assert name == "second" and embeddings.dtype == np.float32
    np.testing.assert_allclose(embeddings[:, 1], [8_000, 4_000])

    soundfile.write(tmp_path / "y.wav", tone(0.5, 8_000, 300.0), 8_000)
    cache.embed_tracks(metadata, "org/first", folder, log=lambda m: None)
    assert embedded[4:] == ["org/first"] * 2
    np.testing.assert_allclose(
        cache.cached_embeddings(metadata, folder, "first")[0][:, 1], [8_000, 8_000]
    )
    assert cache.cached_embeddings(metadata, folder, "second")[0].shape == (2, 2)
