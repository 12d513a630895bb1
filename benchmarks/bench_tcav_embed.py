"""`tcav embed` in batches vs one track at a time, on a tiny random Whisper encoder.

Writes --tracks tones of mixed lengths (0.5-3 s, 16 and 22.05 kHz), then embeds them with
`embed_tracks` twice in the same run, --batch-size 1 (the former route) and --batch-size N, each
into a fresh cache, and prints both wall times (model loading included: it is the same in both),
their ratio and the largest relative difference between the two embedding matrices. The tiny
encoder makes the model's share of the work small, so the ratio here is a floor on what a real
Whisper gains from batching.

    python benchmarks/bench_tcav_embed.py [--tracks 48] [--batch-size 8] [--threads 2] [--device cpu]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import soundfile

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from support.tcav import tiny_whisper, tone, write_tracks  # noqa: E402

from symphony_bench.plugin.tcav.cache import embed_tracks  # noqa: E402
from symphony_bench.plugin.tcav.metadata import read_metadata  # noqa: E402


def write_clips(folder: Path, n_tracks: int):
    (folder / "audio").mkdir()
    rows = []
    for k in range(n_tracks):
        seconds, rate = 0.5 + (k % 6) * 0.5, (16_000, 22_050)[k % 2]
        soundfile.write(folder / "audio" / f"{k}.wav", tone(seconds, rate, 200.0 + 10 * k), rate)
        rows.append((f"t{k}", f"audio/{k}.wav", "pop", "female", "en"))
    return read_metadata(write_tracks(folder, rows), audio_column="audio_path")


def timed_embedding(metadata, model: Path, cache: Path, batch_size: int, device: str):
    start = time.perf_counter()
    path = embed_tracks(
        metadata, str(model), cache, device=device, log=lambda m: None, batch_size=batch_size
    )
    return time.perf_counter() - start, np.load(path)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tracks", type=int, default=48)
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--device", default="cpu")
    args = parser.parse_args()
    import torch

    torch.set_num_threads(args.threads)
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        model = tiny_whisper(folder / "tiny-whisper")
        metadata = write_clips(folder, args.tracks)
        timed_embedding(metadata, model, folder / "warm-up", args.batch_size, args.device)
        one_time, one = timed_embedding(metadata, model, folder / "one", 1, args.device)
        batched_time, batched = timed_embedding(
            metadata, model, folder / "batched", args.batch_size, args.device
        )
    difference = np.max(np.abs(batched - one) / np.maximum(np.abs(one), 1e-6))
    print(f"{args.tracks} tracks, tiny Whisper on {args.device}, {args.threads} torch threads")
    print(f"one at a time:     {one_time:.2f} s ({args.tracks / one_time:.1f} tracks/s)")
    print(
        f"batches of {args.batch_size}:     {batched_time:.2f} s "
        f"({args.tracks / batched_time:.1f} tracks/s)"
    )
    print(f"batched / one-at-a-time time ratio: {batched_time / one_time:.2f}")
    print(f"largest relative difference between the embeddings: {difference:.1e}")


if __name__ == "__main__":
    main()
