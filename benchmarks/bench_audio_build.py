"""Symphony-Bias audio set build speed (multiple of realtime) and peak memory, in one run.

Times the whole build (render, FLAC round trip, separability check, parquet + card) and the
rendering alone, both as seconds of audio produced per second of wall time. librosa's one-off
start-up (numba compilation, paid by the first build in a process) is timed and printed apart.

    python benchmarks/bench_audio_build.py [--clips-per-instrument 5]
"""

from __future__ import annotations

import argparse
import resource
import tempfile
import time
from pathlib import Path

from symphony_bench.hub_upload.fluidsynth_render import default_soundfont, random_notes, render
from symphony_bench.hub_upload.symphony_bias_audio import VOICES, build
from symphony_bench.plugin.core.hub_folder import load_hub_dataset


def warm_up_librosa() -> None:
    import librosa
    import numpy as np

    noise = np.random.default_rng(0).standard_normal(16_000).astype(np.float32)
    magnitude = np.abs(librosa.stft(noise))
    librosa.feature.mfcc(
        S=librosa.power_to_db(librosa.feature.melspectrogram(S=magnitude**2, sr=16_000))
    )
    librosa.feature.spectral_bandwidth(S=magnitude, sr=16_000)
    librosa.feature.spectral_flatness(S=magnitude)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--clips-per-instrument", type=int, default=5)
    args = parser.parse_args()
    start = time.perf_counter()
    warm_up_librosa()
    print(f"librosa start-up (numba JIT, once per process): {time.perf_counter() - start:.1f} s")
    soundfont = default_soundfont()
    start = time.perf_counter()
    rendered = (
        sum(
            len(render(voice, random_notes(voice, f"bench:{name}:{k}"), soundfont))
            for name, voice in VOICES.items()
            for k in range(args.clips_per_instrument)
        )
        / 16_000
    )
    render_seconds = time.perf_counter() - start

    with tempfile.TemporaryDirectory() as folder:
        start = time.perf_counter()
        build(Path(folder) / "audio", seed=0, clips_per_instrument=args.clips_per_instrument)
        build_seconds = time.perf_counter() - start
        audio_seconds = sum(load_hub_dataset(Path(folder) / "audio")["duration_s"])
    peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"clips: {len(VOICES) * args.clips_per_instrument}, audio: {audio_seconds:.1f} s")
    print(f"render only: {rendered / render_seconds:.0f}x realtime ({render_seconds:.2f} s)")
    print(
        f"whole build: {audio_seconds / build_seconds:.0f}x realtime ({build_seconds:.2f} s; target >= 50x)"
    )
    print(f"peak resident memory of the process: {peak_mib:.0f} MiB")


if __name__ == "__main__":
    main()
