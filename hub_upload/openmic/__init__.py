"""The instrument-grounding diagnostic sequence of "Beyond Binary Instrument QA", built from an
OpenMIC-2018 release: five benchmarks, one config each, in Hugging Face Hub layout.

    symphony-bench build openmic --source PATH --out DIR [--seed N] [--skip-bad] [--groups CSV] [--download]
                                 [--max-clip-uses N]

PATH is an extracted release (class-map.json, openmic-2018-aggregated-labels.csv,
openmic-2018-metadata.csv, partitions/, audio/{key[:3]}/{key}.ogg), a folder holding one, or the
release .tgz (or a plain, bzip2 or xz tar). An archive is read as a stream and extracted, without the
VGGish features and the .npz, inside the build's staging folder, within `release.ARCHIVE_LIMITS`:
at most 16 MiB per audio clip, 256 MiB per other file, 8 GiB and 100,000 files extracted in all,
32 GiB of members read (skipped ones too); a member beyond a limit is one error naming
ARCHIVE:MEMBER, and nothing is left behind.

Only relevance 1.0 (present) and 0.0 (absent) are ever gold; other relevances and unannotated
instruments are unknown. Every random choice comes from `--seed` and is recorded in the
rows; the same seed gives the same rows and the same decoded audio. `--max-clip-uses N` (default 1)
lets one clip serve up to N `multilabel_30s` rows: OpenMIC's labels are sparse, so one use per clip
can give far fewer multilabel items than the paper's. With `--skip-bad`, a clip whose audio does
not decode whole removes exactly the rows that use it; the other rows stay as planned. A config
without rows is left out of the folder and its card, with a warning.

Audio: decoded once per use, downmixed, resampled to 16 kHz and stored as FLAC bytes in an
`audio` column (Audio(decode=False): decode the bytes with soundfile, no torchcodec). Rows are
written in small parquet batches, so memory does not grow with the release.

Modules:
- `release`: reading a release (a folder or the .tgz; the mirdata download): file names, clips with
  their labels, genres, split and attribution, bad rows raised or skipped; the confusable groups file.
- `planning`: the five benchmarks' rows from the labels alone (no audio), seeded.
- `writing`: the audio of the planned rows (checked, decoded, 10 s segments, FLAC), the parquet
  configs, the dataset card, and `build`.
"""

from symphony_bench.hub_upload.openmic.writing import build

__all__ = ["build"]
