"""Writing the benchmarks: each planned clip's audio checked, decoded (downmixed, resampled to 16 kHz),
cut or padded to 10 s segments and encoded as FLAC with its integrated loudness (`loudness_lufs`;
the levels are OpenMIC's own, not normalised); the five configs streamed to parquet in small
batches (a config without rows is left out, with a warning); the dataset card; and build(), which
does it all atomically."""

from __future__ import annotations

import csv
import dataclasses
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np
import soundfile

from symphony_bench.hub_upload.openmic.planning import (
    CLIP_CONFIGS,
    MIX_CONFIGS,
    PAPER_COUNTS,
    Plan,
    check_max_clip_uses,
    display_name,
    plan_benchmarks,
    without_clips,
)
from symphony_bench.hub_upload.openmic.release import (
    GROUPS_FILE,
    SOURCE_COLUMNS,
    Group,
    Release,
    Skipped,
    audio_path,
    load_groups,
    load_release,
    member_names,
    release_root,
)
from symphony_bench.plugin.core.atomic import scratch_folder, staged_directory
from symphony_bench.plugin.core.audio import (
    LOUDNESS_METHOD,
    RESAMPLER,
    SAMPLE_RATE,
    encode_flac,
    loudness_summary,
    read_audio_file,
    require_gating_block,
    resample,
    stored_audio,
)
from symphony_bench.plugin.core.errors import DataFileError
from symphony_bench.plugin.core.vocabulary import TIME_RANGES
from symphony_bench.plugin.core.workers import WorkerPool

SEGMENT_FRAMES = 10 * SAMPLE_RATE
BATCH_ROWS = 8  # audio rows are large: a batch is 1-5 MB, and memory stays flat
# 2: random choices keyed by clip, skipped clips' rows dropped (not re-drawn), genre-prior ties excluded
BUILDER_VERSION = 2
KIND = "openmic"  # the kind of output folder (plugin.core.atomic)
# what a worker imports to encode a clip (a second each): done while the archive is read and planned
ENCODING_MODULES = (__name__, "pyloudnorm", "scipy.signal")


# --- audio ---------------------------------------------------------------------------------------


def clip_audio(root: Path, key: str):
    """16 kHz mono float32 samples of a clip. DataFileError naming the file if it does not decode
    whole, or is shorter than one loudness gating block (0.4 s: no integrated loudness; with
    --skip-bad such a clip is skipped like any bad one)."""
    path = audio_path(root, key)
    if not path.is_file():
        raise DataFileError(f"{path}: missing audio for sample_key {key}")
    samples, rate = read_audio_file(path)
    mono = resample(samples.mean(axis=1), rate)
    if mono.size == 0 or not np.isfinite(mono).all():
        raise DataFileError(f"{path}: empty or non-finite audio")
    require_gating_block(mono, str(path))
    return mono


def audio_problem(root: Path, key: str, decode: bool) -> str | None:
    """Why a clip's file is unusable, or None: missing or unreadable header, or (`decode`) not decodable."""
    path = audio_path(root, key)
    try:
        if decode:
            clip_audio(root, key)
        elif not path.is_file():
            return f"missing audio for sample_key {key}"
        else:
            soundfile.info(str(path))
    except DataFileError as error:
        return str(error).removeprefix(f"{path}: ")
    except (RuntimeError, OSError) as error:  # soundfile.LibsndfileError is a RuntimeError
        return f"cannot read ({error})"
    return None


def check_audio(release: Release, keys: set[str], skip_bad: bool) -> set[str]:
    """Without --skip-bad: each file exists with a readable header, else DataFileError. With it: each
    file decodes whole; the keys that do not are recorded as skipped and returned."""
    bad = set()
    for key in sorted(keys):
        problem = audio_problem(release.root, key, decode=skip_bad)
        if problem is None:
            continue
        path = audio_path(release.root, key)
        if not skip_bad:
            raise DataFileError(f"{path}: {problem}")
        release.skipped.append(Skipped(str(path), f"sample_key {key}", problem))
        bad.add(key)
    return bad


def checked_plan(
    release: Release, groups: list[Group], seed: int, skip_bad: bool, max_clip_uses: int = 1
) -> Plan:
    """Plan, check the audio the plan uses; with --skip-bad drop the rows of clips that fail (the
    other rows stay as planned: a bad clip changes only the rows that use it)."""
    plan = plan_benchmarks(release, groups, seed, max_clip_uses)
    bad = check_audio(release, plan.audio_keys(), skip_bad)
    return without_clips(plan, bad) if bad else plan


def encoded(samples, seed: int, name: str) -> dict:
    flac = encode_flac(np.clip(samples, -1.0, 1.0))
    stored = stored_audio(flac, name)
    return {
        "seed": seed,
        "pcm_sha256": stored.pcm_sha256,
        "duration_s": round(len(samples) / SAMPLE_RATE, 3),
        "loudness_lufs": stored.loudness_lufs,
        "audio": {"bytes": flac, "path": f"{name}.flac"},
    }


def encoded_job(job: tuple[Path, tuple[str, ...], int, str, bool]) -> dict:
    """One row's audio, encoded: a clip alone (its samples as they are), or a mix of clips cut or
    padded to 10 s each. A top-level function: the worker processes unpickle it."""
    root, keys, seed, name, mix = job
    if not mix:
        return encoded(clip_audio(root, keys[0]), seed, name)
    return encoded(np.concatenate([segment(clip_audio(root, key)) for key in keys]), seed, name)


def segment(samples):
    """Exactly 10 s: trimmed, or padded with silence."""
    return np.pad(samples[:SEGMENT_FRAMES], (0, max(0, SEGMENT_FRAMES - len(samples))))


# --- writing -------------------------------------------------------------------------------------


def config_features() -> dict:
    import datasets

    text, number, texts = (
        datasets.Value("string"),
        datasets.Value("float64"),
        datasets.List(datasets.Value("string")),
    )
    source = {
        "sample_key": text,
        "openmic_split": text,
        "genres": texts,
        **dict.fromkeys(SOURCE_COLUMNS, text),
    }
    sources = {
        "source_keys": texts,
        "source_openmic_splits": texts,
        **{f"source_{c}s": texts for c in SOURCE_COLUMNS},
    }
    audio = {
        "seed": datasets.Value("int64"),
        "pcm_sha256": text,
        "duration_s": number,
        "loudness_lufs": number,
        "audio": datasets.Audio(sampling_rate=SAMPLE_RATE, decode=False),
    }
    binary = {
        "item_id": text,
        "instrument": text,
        "instrument_name": text,
        "question": text,
        "answer": text,
        "relevance": number,
        "genre_split": text,
    }
    prior = {
        "binary_item_id": text,
        "prior_positive_rate": number,
        "prior_source": text,
        "prior_prediction": text,
    }
    confusable = {
        "item_id": text,
        "group": text,
        "present_instrument": text,
        "absent_instrument": text,
        "candidates": texts,
        "candidates_swapped": texts,
        "answer": text,
        "gold_position": datasets.Value("int32"),
        "answer_letter": text,
        "answer_letter_swapped": text,
        "prompt_name": text,
        "prompt_name_swapped": text,
        "prompt_ab": text,
        "prompt_ab_swapped": text,
    }
    multilabel = {
        "item_id": text,
        "group": text,
        "candidates": texts,
        "present": texts,
        "absent": texts,
        "answer": text,
        "candidate_relevance": datasets.List(datasets.List(number)),
        "question": text,
        "max_clip_uses": datasets.Value("int32"),
    }
    temporal = {
        "item_id": text,
        "instrument": text,
        "instrument_name": text,
        "gold_segment": datasets.Value("int32"),
        "answer": text,
        "time_ranges": texts,
        "segment_relevance": datasets.List(number),
        "question": text,
    }
    return {
        "binary": datasets.Features({**binary, **source, **audio}),
        "genre_hard": datasets.Features({**binary, **prior, **source, **audio}),
        "confusable": datasets.Features({**confusable, **source, **audio}),
        "multilabel_30s": datasets.Features({**multilabel, **sources, **audio}),
        "temporal_30s": datasets.Features({**temporal, **sources, **audio}),
    }


class ParquetStream:
    """Rows appended one by one, written in batches of BATCH_ROWS: memory stays flat. The file is
    created with the first batch: no rows, no file."""

    def __init__(self, path: Path, features):
        self.path = path
        self.schema = features.arrow_schema  # carries the datasets features (Audio, decode=False)
        self.writer = None
        self.rows: list[dict] = []

    def add(self, row: dict) -> None:
        self.rows.append(row)
        if len(self.rows) >= BATCH_ROWS:
            self.flush()

    def flush(self) -> None:
        import pyarrow as pa
        import pyarrow.parquet as pq

        if not self.rows:
            return
        if self.writer is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.writer = pq.ParquetWriter(str(self.path), self.schema)
        self.writer.write_table(pa.Table.from_pylist(self.rows, schema=self.schema))
        self.rows = []

    def close(self) -> None:
        self.flush()
        if self.writer is not None:
            self.writer.close()


def write_configs(
    folder: Path, plan: Plan, root: Path, seed: int, pool: WorkerPool
) -> tuple[int, int, list]:
    """Each clip is decoded once for all its 10 s rows; each 30 s row decodes its three clips; the
    encoding runs in the pool's processes, the rows are written in plan order whatever their number.
    Returns the bytes of audio written, in all and distinct (by decoded-sample hash), and the
    loudness of each distinct audio."""
    features = config_features()
    streams = {
        config: ParquetStream(
            folder / "data" / config / "test-00000-of-00001.parquet", features[config]
        )
        for config in PAPER_COUNTS
    }
    sizes: dict[str, int] = {}
    loudness: dict[str, float | None] = {}
    total = 0

    def add(config: str, row: dict, audio: dict) -> None:
        nonlocal total
        streams[config].add({**row, **audio})
        total += len(audio["audio"]["bytes"])
        sizes[audio["pcm_sha256"]] = len(audio["audio"]["bytes"])
        loudness[audio["pcm_sha256"]] = audio["loudness_lufs"]

    try:
        rows_of_clip = defaultdict(list)
        for config in CLIP_CONFIGS:
            for row in plan.rows[config]:
                rows_of_clip[row["sample_key"]].append((config, row))
        mixes = [(config, row) for config in MIX_CONFIGS for row in plan.rows[config]]
        clips = sorted(rows_of_clip)
        jobs = [(root, (key,), seed, key, False) for key in clips]
        jobs += [(root, tuple(row["source_keys"]), seed, row["item_id"], True) for _, row in mixes]
        audios = pool.map(encoded_job, jobs, "encoding clips")
        for key in clips:
            audio = next(audios)
            for config, row in rows_of_clip[key]:
                add(config, row, audio)
        for (config, row), audio in zip(mixes, audios, strict=True):
            add(config, row, audio)
    finally:
        for stream in streams.values():
            stream.close()
    return total, sum(sizes.values()), list(loudness.values())


def write_skipped(path: Path, skipped: list[Skipped]) -> None:
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(("path", "where", "reason"))
        writer.writerows((item.path, item.where, item.reason) for item in skipped)


def front_matter(written: list[str]) -> str:
    configs = "".join(
        f"- config_name: {config}\n  data_files:\n  - split: test\n    path: data/{config}/test-*.parquet\n"
        for config in written
    )
    return f"---\nlicense: other\npretty_name: OpenMIC-2018 instrument-grounding diagnostics\nconfigs:\n{configs}---\n"


CARD = """# OpenMIC-2018 instrument-grounding diagnostics

The diagnostic sequence of "Beyond Binary Instrument QA: Probing Instrument Grounding in Music
Audio-Language Models", rebuilt from `{source}` by
`symphony-bench build openmic --seed {seed}` (builder version {version}). Split `test` in every config.

| config | benchmark | rows | yes / no | paper |
| --- | --- | ---: | ---: | ---: |
{counts}
{not_written}
`multilabel_30s` was built with `--max-clip-uses {max_clip_uses}` (its `max_clip_uses` column): a clip
serves {clip_uses} of its rows, never the same three clips with the same candidates twice. OpenMIC's
labels are sparse (about two annotated instruments per clip), so few clip triples have two present
and two all-0.0 candidates of one group, and reuse brings the count closer to the paper's.

Genre-prior baseline on the 30% split: {baseline}.

## Construction

Gold labels are OpenMIC relevances of exactly 1.0 (present) and 0.0 (absent); intermediate
relevances and unannotated instruments are never gold (unannotated is not absent). Every random
choice derives from the seed in each row's `seed` column; the instruments of a `binary` or
`confusable` row and a binary item's place in the genre split are drawn from the seed and that
row's clip alone. A clip skipped for bad audio (`--skip-bad`) removes exactly the rows that use
it: the other rows, ids included, are those of a build without the skip (`genre_hard` is taken
again from the prior fitted on the binary rows left). Builder version 2 draws this way, so the same
seed gives other rows than version 1 did.

- `binary`: for each clip with both, one instrument at 1.0 ("yes") and one at 0.0 ("no"), asked as
  "Is there a/an {{instrument}} in this audio clip?" (plural/mass nouns: "Are there drums", "Is there
  mallet percussion").
- `genre_hard`: the binary items whose clip has FMA genres (`track_genres`) are split 70/30
  stratified by answer (`genre_split` in `binary`). A prior fitted on the 70% (positive rate per
  genre-instrument pair, a multi-genre clip pooling the counts of its genres; else the instrument's
  rate; else the overall rate) answers "yes" when the rate is above 0.5 and "no" below it. A rate
  of exactly 0.5 is a tie: no prediction, so the item is neither right nor wrong and never in
  `genre_hard` (breaking ties by a coin would put random, not genre-misleading, items there).
  Rows: the 30% items it gets wrong, with `prior_positive_rate`, `prior_source`, `prior_prediction`.
- `confusable`: per clip, one present (1.0) and one absent (0.0) instrument of the same confusable
  group; the gold position is balanced over the two slots. Four answer interfaces share the rows:
  `prompt_name` / `prompt_name_swapped` (answer: `answer`, a name) and `prompt_ab` /
  `prompt_ab_swapped` (answer: `answer_letter` / `answer_letter_swapped`). The A/B wording is ours;
  the paper does not print it.
- `multilabel_30s`: three 10 s clips concatenated; four candidates of one group, two at 1.0 in at
  least one clip (`present`, the gold set; `answer` joins them in candidate order) and two at 0.0 in
  all three clips (`absent`). `candidate_relevance[i][j]` is candidate i's label in segment j (null:
  unannotated). A clip serves at most `max_clip_uses` rows (`--max-clip-uses`, default 1); above 1,
  clips are reused least-used first, after every one-use row.
- `temporal_30s`: three clips concatenated; the target is 1.0 in exactly one (`gold_segment`) and
  0.0 in the two others; answer one of {time_ranges}. Gold segments are balanced before skipped
  clips' rows are dropped ({gold_counts}).

A clip serves at most one `temporal_30s` row and at most `max_clip_uses` `multilabel_30s` rows; in
both 30 s configs segments are trimmed or padded to exactly 10 s, and `source_keys` lists the clips
in playing order.

## Confusable groups

Defined by this project (not part of OpenMIC, not perceptually validated):

| group | instruments | rationale |
| --- | --- | --- |
{groups}

## Audio

Mono 16 kHz FLAC (16-bit) in `audio` ({{bytes, path}}, stored as `Audio(decode=False)`): decode the
bytes with soundfile, no torchcodec needed; a release not at 16 kHz is resampled with {resampler}.
`pcm_sha256` is the SHA-256 of the decoded int16 samples (same seed, same hash). Levels are
OpenMIC's own (not normalised); `loudness_lufs` is the integrated loudness of the stored samples:
{loudness_range}. Method: {loudness_method}. A clip shorter than one 0.4 s gating block has none
and is refused by name (skipped with `--skip-bad`). Every row carries its own audio so that
`load_dataset(DIR, config)` is enough to evaluate (an lmms-eval task sees one row at a time and has
no join step); bytes are still written once where the design allows: the four confusable interfaces
share one config, and each 30 s concatenation belongs to one row (with `--max-clip-uses` above 1,
`multilabel_30s` rows may share clips, and so audio). What repeats: a binary
clip appears in its "yes" and its "no" row, and `genre_hard` / `confusable` rows repeat clips of
`binary` ({audio_mb:.1f} MB of audio in all, {unique_mb:.1f} MB distinct).

## Columns

- all: `item_id`, `seed`, `pcm_sha256`, `duration_s`, `loudness_lufs`, `audio`.
- 10 s configs: `sample_key`, `openmic_split` (OpenMIC split01 partition), `genres`,
  {source_columns}.
- 30 s configs: `source_keys`, `source_openmic_splits`, {sources_columns}.
- `binary`: `instrument` (OpenMIC class), `instrument_name`, `question`, `answer` (yes/no),
  `relevance`, `genre_split` (train/test/empty); `genre_hard` adds `binary_item_id` and the prior's fields.
- `confusable`: `group`, `present_instrument`, `absent_instrument`, `candidates`,
  `candidates_swapped`, `answer`, `gold_position` (0/1 in `candidates`), `answer_letter`,
  `answer_letter_swapped`, `prompt_name`, `prompt_name_swapped`, `prompt_ab`, `prompt_ab_swapped`.
- `multilabel_30s`: `group`, `candidates`, `present`, `absent`, `answer`, `candidate_relevance`, `question`,
  `max_clip_uses`.
- `temporal_30s`: `instrument`, `instrument_name`, `gold_segment` (0-2), `answer`, `time_ranges`,
  `segment_relevance`, `question`.

## Licences

OpenMIC-2018 (Humphrey, Durand and McFee, ISMIR 2018; Zenodo 10.5281/zenodo.1432913) is released
under CC BY 4.0; each clip keeps the licence of its Free Music Archive track, carried in every row
(`license_title`, `license_url`, with `artist_name`, `track_title`, `track_url` for attribution).
Clips used here, by licence:

| licence | url | clips |
| --- | --- | ---: |
{licences}

Non-commercial (NC) and no-derivatives (ND) terms bind the rows that use such clips; resampling
and concatenating may count as adaptation under ND terms.
{skipped}"""


def yes_no(rows: list[dict]) -> str:
    """ "yes N / no M" for configs answered yes or no, else "-"."""
    if not rows or "relevance" not in rows[0]:
        return "-"
    answers = Counter(row["answer"] for row in rows)
    return f"{answers['yes']:,} / {answers['no']:,}"


def empty_configs(plan: Plan) -> list[str]:
    return [config for config in PAPER_COUNTS if not plan.rows[config]]


def empty_config_warning(empty: list[str]) -> str:
    """Why configs have no rows and what to try; "" when none is empty."""
    if not empty:
        return ""
    hint = (
        " OpenMIC's sparse labels give few multilabel_30s items: a larger --max-clip-uses lets a clip serve more of "
        "them."
        if "multilabel_30s" in empty
        else ""
    )
    return f"no rows for {', '.join(empty)}: left out of the folder and its card.{hint}"


def baseline_text(plan: Plan, rows: dict[str, list[dict]]) -> str:
    baseline = plan.genre_baseline
    if not any(row["genre_split"] == "test" for row in rows["binary"]):
        return "no binary item has genre metadata"
    ties = f"; {baseline.ties:,} tied items (prior rate exactly 0.5) get no prediction and are left out"
    if baseline.accuracy is None:
        return f"no prediction on any item{ties}"
    return (
        f"{baseline.accuracy:.1%} correct on the {baseline.decided:,} items it decides; its "
        f"{len(rows['genre_hard']):,} errors "
        f"form `genre_hard`{ties}"
    )


def card(
    release: Release,
    plan: Plan,
    groups: list[Group],
    seed: int,
    source: str,
    audio_bytes: int,
    unique_bytes: int,
    loudness: list,
    max_clip_uses: int = 1,
) -> str:
    rows = plan.rows
    counts = "\n".join(
        f"| `{config}` | {title} | {len(rows[config]):,} | {yes_no(rows[config])} | {PAPER_COUNTS[config]:,} |"
        for config, title in zip(
            PAPER_COUNTS,
            (
                "binary presence QA",
                "genre-prior-reduced QA",
                "confusable discrimination",
                "30 s multi-label",
                "temporal localisation",
            ),
            strict=True,
        )
    )
    empty = empty_configs(plan)
    used = [release.clips[key] for key in sorted(plan.audio_keys())]
    licences = Counter((clip.source["license_title"], clip.source["license_url"]) for clip in used)
    gold = Counter(row["gold_segment"] for row in rows["temporal_30s"])
    skipped = (
        f"\n## Skipped inputs\n\n{len(release.skipped)} inputs skipped (`--skip-bad`), listed in `skipped.csv`.\n"
        if release.skipped
        else ""
    )
    return front_matter([config for config in PAPER_COUNTS if config not in empty]) + CARD.format(
        source=source,
        seed=seed,
        version=BUILDER_VERSION,
        counts=counts,
        baseline=baseline_text(plan, rows),
        not_written=f"\nNot written: {empty_config_warning(empty)}\n" if empty else "",
        time_ranges=", ".join(f'"{r}"' for r in TIME_RANGES),
        max_clip_uses=max_clip_uses,
        clip_uses="at most one" if max_clip_uses == 1 else f"up to {max_clip_uses}",
        gold_counts=", ".join(f"{TIME_RANGES[p]}: {gold[p]}" for p in range(3)),
        groups="\n".join(
            f"| {g.name} | {', '.join(display_name(m) for m in g.members)} | {g.rationale} |"
            for g in groups
        ),
        audio_mb=audio_bytes / 1e6,
        unique_mb=unique_bytes / 1e6,
        resampler=RESAMPLER,
        loudness_method=LOUDNESS_METHOD,
        loudness_range=loudness_summary(loudness),
        source_columns=", ".join(f"`{c}`" for c in SOURCE_COLUMNS),
        sources_columns=", ".join(f"`source_{c}s`" for c in SOURCE_COLUMNS),
        licences="\n".join(
            f"| {title or '(none)'} | {url} | {n:,} |"
            for (title, url), n in sorted(licences.items())
        ),
        skipped=skipped,
    )


def build(
    source: Path,
    out: Path,
    seed: int = 0,
    skip_bad: bool = False,
    groups_file: Path = GROUPS_FILE,
    max_clip_uses: int = 1,
    workers: int = 1,
) -> dict:
    """Write the five configs at `out` (atomically: on any error nothing is left there; a .tgz source
    is extracted inside the staging folder); a clip serves at most `max_clip_uses` multilabel rows.
    A config without rows is left out; `workers` processes encode the audio (same bytes for any
    number). Returns {"counts", "paper", "baseline_accuracy", "skipped",
    "max_clip_uses", "empty"}."""
    check_max_clip_uses(max_clip_uses)
    with (
        staged_directory(out, KIND, inputs=(source, groups_file)) as staging,
        WorkerPool(workers, preload=ENCODING_MODULES) as pool,
    ):
        scratch = scratch_folder(staging)
        shown = member_names(source, scratch)
        try:
            release = load_release(release_root(source, scratch), skip_bad)
            groups = load_groups(groups_file, release.classes)
            plan = checked_plan(release, groups, seed, skip_bad, max_clip_uses)
            if len(empty_configs(plan)) == len(PAPER_COUNTS):
                raise DataFileError(f"{source}: no clip gives a row in any config")
            written = write_configs(staging, plan, release.root, seed, pool)
        except DataFileError as error:
            raise DataFileError(shown(str(error))) from error
        if skip_bad:
            write_skipped(
                staging / "skipped.csv",
                [dataclasses.replace(item, path=shown(item.path)) for item in release.skipped],
            )
        text = card(release, plan, groups, seed, Path(source).name, *written, max_clip_uses)
        (staging / "README.md").write_text(text, encoding="utf-8")
    return {
        "counts": {config: len(rows) for config, rows in plan.rows.items()},
        "paper": dict(PAPER_COUNTS),
        "baseline_accuracy": plan.baseline_accuracy,
        "skipped": len(release.skipped),
        "max_clip_uses": max_clip_uses,
        "empty": empty_configs(plan),
    }
