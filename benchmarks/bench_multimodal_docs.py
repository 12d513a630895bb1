"""Per-doc cost of the Symphony-Bias audio task in lmms-eval, in one run.

Builds a small audio set, then times: building the full task's docs (258 scenarios × every clip),
and per doc `doc_to_visual` (stimulus lookup + FLAC decode) against decoding the same FLAC bytes
alone — the ratio shows what the lookup through the doc costs on top of the decode any model needs.

    python benchmarks/bench_multimodal_docs.py [--clips-per-instrument 5] [--docs 2000]
"""

from __future__ import annotations

import argparse
import io
import os
import tempfile
import time
from pathlib import Path

import soundfile

from symphony_bench.hub_upload.symphony_bias_audio import build
from symphony_bench.plugin.symphony_bias import multimodal
from symphony_bench.plugin.symphony_bias.docs import Design


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--clips-per-instrument", type=int, default=5)
    parser.add_argument("--docs", type=int, default=2000, help="docs to time doc_to_visual on")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        audio_set = Path(tmp) / "audio"
        build(audio_set, seed=0, clips_per_instrument=args.clips_per_instrument)
        os.environ["SYMPHONY_AUDIO"] = str(audio_set)

        start = time.perf_counter()
        docs = multimodal.condition_docs(Design(modality="audio", condition="stimulus"))
        build_seconds = time.perf_counter() - start
        print(
            f"full audio task: {len(docs):,} docs built in {build_seconds:.2f} s "
            f"({build_seconds / len(docs) * 1e6:.0f} µs/doc)"
        )

        sample = [docs[k] for k in range(0, len(docs), max(1, len(docs) // args.docs))][: args.docs]
        table = multimodal.stimulus_table(str(audio_set), "audio")
        encoded = [table[doc["stimulus_index"]]["audio"]["bytes"] for doc in sample]

        start = time.perf_counter()
        for doc in sample:
            multimodal.audio_visual(doc)
        visual_seconds = time.perf_counter() - start
        start = time.perf_counter()
        for data in encoded:
            soundfile.read(io.BytesIO(data), dtype="float32")
        decode_seconds = time.perf_counter() - start
        print(
            f"doc_to_visual: {visual_seconds / len(sample) * 1e6:.0f} µs/doc; FLAC decode alone "
            f"{decode_seconds / len(sample) * 1e6:.0f} µs; ratio {visual_seconds / decode_seconds:.2f}x"
        )


if __name__ == "__main__":
    main()
