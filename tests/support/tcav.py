"""Shared by the TCAV tests: synthetic embeddings with a known entanglement, tracks CSVs, tones, a
tiny Whisper, and the `tcav` command driven in-process. (Their fixture, one torch thread, is in
tests/tcav/conftest.py.)"""

from __future__ import annotations

import argparse
import csv

import numpy as np

from symphony_bench.plugin.tcav import command

GENRES = ("hiphop", "jazz", "pop", "rock")
MALE_SHARE = (0.8, 0.5, 0.3, 0.65)  # unequal on purpose: balancing must keep it out of the CAVs


def synthetic(seed: int, entangle: float = 0.0, per_genre: int = 600, dim: int = 24):
    """Gender moves embeddings along e0 (male +1, female -1), language along e1 (es +1, en -1),
    genres have their own means in the other dimensions, and all share an offset (encoder outputs
    are not centred, which is why the CAV's bias matters). `entangle` shifts every hip-hop track
    along the male direction: hip-hop is then entangled with gender and with nothing else."""
    rng = np.random.default_rng(seed)
    means = np.zeros((len(GENRES), dim))
    means[:, 2:] = rng.normal(size=(len(GENRES), dim - 2)) * 0.5
    means += 1.0 + rng.random(dim)
    genre = np.repeat(np.arange(len(GENRES)), per_genre)
    male = rng.random(genre.size) < np.array(MALE_SHARE)[genre]
    spanish = rng.random(genre.size) < 0.4
    x = means[genre] + rng.normal(size=(genre.size, dim))
    x[:, 0] += np.where(male, 1.0, -1.0) + entangle * (genre == 0)
    x[:, 1] += np.where(spanish, 1.0, -1.0)
    attributes = {
        "gender": np.where(male, "male", "female"),
        "language": np.where(spanish, "es", "en"),
    }
    return x, np.array(GENRES)[genre], attributes


def cli(argv: list[str]) -> None:
    root = argparse.ArgumentParser(prog="symphony-bench")
    command.add_commands(root.add_subparsers(dest="command", required=True))
    args = root.parse_args(argv)
    args.run(args)


def tiny_whisper(folder):
    from transformers import WhisperConfig, WhisperFeatureExtractor, WhisperModel

    config = WhisperConfig(
        d_model=16,
        encoder_layers=1,
        decoder_layers=1,
        encoder_attention_heads=2,
        decoder_attention_heads=2,
        encoder_ffn_dim=32,
        decoder_ffn_dim=32,
        num_mel_bins=80,
        max_source_positions=1500,
        max_target_positions=32,
        vocab_size=64,
        pad_token_id=0,
        bos_token_id=1,
        eos_token_id=2,
        decoder_start_token_id=1,
    )
    WhisperModel(config).save_pretrained(folder)
    WhisperFeatureExtractor(feature_size=80).save_pretrained(folder)
    return folder


def write_tracks(folder, rows):
    """rows: (track_id, relative audio path or None, genre, gender, language)."""
    with open(folder / "tracks.csv", "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["track_id", "audio_path", "genre", "gender", "language"])
        writer.writerows(rows)
    return folder / "tracks.csv"


def tone(seconds: float, rate: int, frequency: float, channels: int = 1) -> np.ndarray:
    t = np.arange(int(seconds * rate)) / rate
    wave = (0.3 * np.sin(2 * np.pi * frequency * t)).astype(np.float32)
    return np.stack([wave] * channels, axis=1) if channels > 1 else wave


def write_embedding_inputs(folder, seed=11, entangle=2.5):
    x, genres, attributes = synthetic(seed, entangle=entangle)
    ids = [f"t{k:05d}" for k in range(len(genres))]
    rows = [
        (i, "", g, ge, la)
        for i, g, ge, la in zip(
            ids, genres, attributes["gender"], attributes["language"], strict=True
        )
    ]
    metadata = write_tracks(folder, rows)
    order = np.random.default_rng(0).permutation(len(ids))  # rows of the .npy in another order
    np.save(folder / "emb.npy", x[order].astype(np.float32))
    (folder / "ids.txt").write_text("\n".join(ids[k] for k in order) + "\n")
    return metadata
