"""`symphony-bench tcav`: is an audio encoder's genre representation entangled with singer gender or
language? (TCAV probe after "Beyond Genre", Gebhardt et al., ISMIR 2025.)

    symphony-bench tcav embed   --metadata tracks.csv --encoder openai/whisper-large-v2 --cache emb/
    symphony-bench tcav analyse --metadata tracks.csv --cache emb/ --out runs/tcav-whisper

`embed` caches one mean-pooled last-hidden-state embedding per track (EMB/<name>.npy plus
EMB/index.json); `analyse` runs the CAV/TCAV analysis of `symphony_bench.metrics.tcav` on them (or on
precomputed `--embeddings X.npy --ids ids.txt`) and writes JSON and CSV tables and violin plots.

Modules:

- `defaults`: the defaults the library and the command line share (standard library only).
- `metadata`: the tracks CSV (ids, genres, concept columns, audio paths) and COLUMN=VALUE concepts.
- `encoders`: audio loading and the Whisper, other transformers and MuQ encoders.
- `cache`: the embedding cache (EMB/<name>.npy + EMB/index.json) and precomputed embeddings.
- `outputs`: the analysis run, its report, tables, plots and summary.
- `command`: the `tcav embed` / `tcav analyse` subcommands; imports only the standard library at
  module level, as the CLI imports it at start-up.
"""
