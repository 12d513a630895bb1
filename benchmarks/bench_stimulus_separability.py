"""How recognisable each audio stimulus set is by timbre alone: the separability check of the set
cards (MFCC + spectral descriptors; mean cosine distance between vs within instruments, and the
leave-one-out 1-nearest-neighbour instrument accuracy, chance about 1/22) side by side for random
notes, phrases, and, when a copy is given, the upstream release's mp3s (through `import-upstream`),
an OpenMIC-derived set and a recordings folder. Everything from one run.

    python benchmarks/bench_stimulus_separability.py [--clips 3] [--upstream RELEASE]
        [--openmic ARCHIVE] [--recordings DIR]
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

import datasets

from symphony_bench.hub_upload import symphony_bias_audio
from symphony_bench.hub_upload.recorded_sets import build_from_openmic, build_recordings
from symphony_bench.hub_upload.upstream_release import import_audio
from symphony_bench.plugin.core.audio import decode_audio
from symphony_bench.plugin.core.hub_folder import load_hub_dataset


def set_separability(folder: Path) -> dict[str, float]:
    table = load_hub_dataset(folder).cast_column("audio", datasets.Audio(decode=False))
    rows = [
        {"instrument": row["instrument"], "_samples": decode_audio(row["audio"]["bytes"])}
        for row in table
    ]
    return {**symphony_bias_audio.separability(rows), "clips": len(rows)}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--clips", type=int, default=3, help="clips per instrument (synthesized)")
    parser.add_argument("--upstream", type=Path, help="the Symphony-Bias release folder")
    parser.add_argument("--openmic", type=Path, help="an OpenMIC-2018 folder or .tgz")
    parser.add_argument("--recordings", type=Path, help="a recordings folder with manifest.csv")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        scratch = Path(scratch)
        sets = {}
        for style in ("random", "phrase"):
            symphony_bias_audio.build(
                scratch / style, seed=0, clips_per_instrument=args.clips, style=style
            )
            sets[f"synth-{style}"] = scratch / style
        if args.upstream:
            sets["upstream mp3s"] = import_audio(args.upstream, scratch / "upstream")
        if args.openmic:
            build_from_openmic(args.openmic, scratch / "openmic", per_instrument=args.clips)
            sets["openmic"] = scratch / "openmic"
        if args.recordings:
            build_recordings(args.recordings, scratch / "recordings")
            sets["recordings"] = scratch / "recordings"
        print(f"{'set':<16}{'clips':>7}{'within':>9}{'between':>9}{'ratio':>8}{'1-NN':>8}")
        for name, folder in sets.items():
            check = set_separability(folder)
            print(
                f"{name:<16}{check['clips']:>7}{check['within_instrument']:>9.3f}"
                f"{check['between_instruments']:>9.3f}{check['ratio_between_to_within']:>8.2f}"
                f"{check['nearest_neighbour_accuracy']:>8.3f}"
            )


if __name__ == "__main__":
    main()
