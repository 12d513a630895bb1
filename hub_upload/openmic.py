"""The instrument-grounding diagnostic sequence of "Beyond Binary Instrument QA", built from an
OpenMIC-2018 release: five benchmarks, one config each, in Hugging Face Hub layout.

    symphony-bench build openmic --source PATH --out DIR [--seed N] [--skip-bad] [--groups CSV] [--download]
                                 [--max-clip-uses N]

PATH is an extracted release (class-map.json, openmic-2018-aggregated-labels.csv,
openmic-2018-metadata.csv, partitions/, audio/{key[:3]}/{key}.ogg), a folder holding one, or the
release .tgz. Only relevance 1.0 (present) and 0.0 (absent) are ever gold; other relevances and
unannotated instruments are unknown. Every random choice comes from `--seed` and is recorded in the
rows; the same seed gives the same rows and the same decoded audio. `--max-clip-uses N` (default 1)
lets one clip serve up to N `multilabel_30s` rows: OpenMIC's labels are sparse, so one use per clip
can give far fewer multilabel items than the paper's.

Audio: decoded once per use, downmixed, resampled to 16 kHz and stored as FLAC bytes in an
`audio` column (Audio(decode=False): decode the bytes with soundfile, no torchcodec). Rows are
written in small parquet batches, so memory does not grow with the release.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import csv
import itertools
import json
import random
import re
import tarfile
import tempfile
import zlib
from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from math import gcd
from pathlib import Path

from symphony_bench.hub_upload.fluidsynth_render import SAMPLE_RATE
from symphony_bench.plugin.atomic import staged_directory
from symphony_bench.plugin.grounding_answers import TIME_RANGES
from symphony_bench.plugin.scenarios import DATA_DIR, DataFileError, read_csv

SEGMENT_FRAMES = 10 * SAMPLE_RATE
PAPER_COUNTS = {"binary": 9_332, "genre_hard": 590, "confusable": 1_051, "multilabel_30s": 1_028, "temporal_30s": 3_579}
CLIP_CONFIGS = ("binary", "genre_hard", "confusable")  # one 10 s clip per row
MIX_CONFIGS = ("multilabel_30s", "temporal_30s")  # three clips concatenated per row
GROUPS_FILE = DATA_DIR / "confusable_groups.csv"
TRAIN_FRACTION = 0.7
BATCH_ROWS = 8  # audio rows are large: a batch is 1-5 MB, and memory stays flat

CLASS_MAP = "class-map.json"
LABELS_CSV = "openmic-2018-aggregated-labels.csv"
METADATA_CSV = "openmic-2018-metadata.csv"
SPLITS = {"train": "partitions/split01_train.csv", "test": "partitions/split01_test.csv"}
LABEL_COLUMNS = ("sample_key", "instrument", "relevance", "num_responses")
SOURCE_COLUMNS = ("artist_name", "track_title", "track_url", "license_title", "license_url")
KEY_PATTERN = r"\d{6}_\d+"
ARCHIVE_MEMBER = re.compile(
    r"(^|/)(class-map\.json|openmic-2018-aggregated-labels\.csv|openmic-2018-metadata\.csv|partitions/[^/]+\.csv|audio/[^/]+/[^/]+\.ogg)$"
)
PLURAL_OR_MASS = {"drums": "Are there drums", "cymbals": "Are there cymbals", "mallet_percussion": "Is there mallet percussion"}

NAME_PROMPT = ("Which instrument is present in this audio clip? Candidate instruments: {0}, {1}. "
               "Answer with only one instrument name from the candidates.")
LETTER_PROMPT = ("Which instrument is present in this audio clip? A. {0} B. {1} "
                 "Answer with only the letter A or B.")
MULTILABEL_PROMPT = ("Listen carefully to the 30-second audio clip. Which instruments are present in this audio clip? "
                     "Candidate instruments: {}. Answer with all instrument names from the candidates that are present, "
                     "separated by commas.")
TEMPORAL_PROMPT = ("Listen to the full audio carefully and identify the time range where the target instrument is heard. "
                   "Target instrument: {}. Choose exactly one time range: {}. Answer with only the selected time range.")


@dataclass(frozen=True)
class Skipped:
    path: str
    where: str
    reason: str


@dataclass(frozen=True)
class Clip:
    key: str
    labels: dict[str, float]  # annotated instruments only
    genres: tuple[str, ...]  # FMA genre titles; empty: no usable genre metadata
    split: str  # OpenMIC split01 partition: "train", "test" or ""
    source: dict[str, str]  # attribution and licence (SOURCE_COLUMNS)

    def with_relevance(self, relevance: float) -> list[str]:
        return sorted(instrument for instrument, value in self.labels.items() if value == relevance)


@dataclass(frozen=True)
class Group:
    name: str
    members: tuple[str, ...]
    rationale: str


@dataclass
class Release:
    root: Path
    classes: tuple[str, ...]
    clips: dict[str, Clip]  # sorted by sample key
    skipped: list[Skipped] = field(default_factory=list)


def display_name(instrument: str) -> str:
    return instrument.replace("_", " ")


def presence_question(instrument: str) -> str:
    """The paper's "Is there a [instrument] in this audio clip?", with a/an, plural and mass nouns."""
    name = display_name(instrument)
    opening = PLURAL_OR_MASS.get(instrument) or f"Is there {'an' if name[0] in 'aeiou' else 'a'} {name}"
    return f"{opening} in this audio clip?"


def audio_path(root: Path, key: str) -> Path:
    return Path(root) / "audio" / key[:3] / f"{key}.ogg"


# --- reading a release --------------------------------------------------------------------------


def find_release_root(folder: Path) -> Path:
    """`folder` itself, or its one subfolder, holding class-map.json."""
    if (folder / CLASS_MAP).is_file():
        return folder
    candidates = [child for child in sorted(folder.iterdir()) if (child / CLASS_MAP).is_file()] if folder.is_dir() else []
    if len(candidates) != 1:
        raise DataFileError(f"{folder}: no {CLASS_MAP} here or in exactly one subfolder; expected an extracted OpenMIC-2018 release")
    return candidates[0]


@contextlib.contextmanager
def release_root(source: Path, scratch: Path) -> Iterator[Path]:
    """The release folder of `source` (a folder or a .tgz; a .tgz is extracted, without the
    VGGish features and the .npz, into a temporary folder under `scratch`)."""
    source = Path(source)
    if source.is_dir():
        yield find_release_root(source)
        return
    if not source.is_file():
        raise DataFileError(f"{source}: no such folder or archive")
    with tempfile.TemporaryDirectory(dir=scratch, prefix=".openmic-source-") as folder:
        try:
            with tarfile.open(source, "r|*") as archive:
                for member in archive:
                    if member.isfile() and ARCHIVE_MEMBER.search(member.name):
                        archive.extract(member, folder, filter="data")
        except (tarfile.TarError, EOFError, zlib.error, OSError) as error:
            raise DataFileError(f"{source}: cannot read the archive ({error})") from error
        yield find_release_root(Path(folder))


def download_release(data_home: Path) -> None:
    """Fetch (and checksum) the release into `data_home` with mirdata's openmic2018 loader."""
    try:
        import mirdata
    except ImportError as error:
        raise ValueError("--download needs the mirdata package: pip install mirdata") from error
    mirdata.initialize("openmic2018", data_home=str(data_home)).download()


def read_frame(path: Path, columns: tuple[str, ...]):
    """The named columns as strings ("" where a field is empty or missing)."""
    import pandas as pd

    try:
        return pd.read_csv(path, usecols=list(columns), dtype=str, keep_default_na=False)
    except FileNotFoundError as error:
        raise DataFileError(f"{path}: missing from the release") from error
    except ValueError as error:  # missing columns, and pandas' ParserError (unclosed quote...)
        raise DataFileError(f"{path}: cannot read ({error})") from error


def report_problems(path: Path, problems: list[tuple[str, str]], skipped: list[Skipped] | None) -> None:
    """Raise on the first problem, or with --skip-bad (`skipped` not None) record them all."""
    if problems and skipped is None:
        where, reason = problems[0]
        more = f" (and {len(problems) - 1} more; --skip-bad skips and lists them)" if len(problems) > 1 else ""
        raise DataFileError(f"{path}, {where}: {reason}{more}")
    if skipped is not None:
        skipped.extend(Skipped(str(path), where, reason) for where, reason in problems)


def load_class_map(root: Path) -> tuple[str, ...]:
    path = root / CLASS_MAP
    try:
        classes = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise DataFileError(f"{path}: cannot read ({error})") from error
    if not isinstance(classes, dict) or not classes:
        raise DataFileError(f"{path}: expected a JSON object of instrument -> index")
    return tuple(sorted(classes, key=classes.get))


def load_labels(path: Path, classes: tuple[str, ...], skipped: list[Skipped] | None) -> dict[str, dict[str, float]]:
    import pandas as pd

    frame = read_frame(path, LABEL_COLUMNS)
    relevance = pd.to_numeric(frame["relevance"], errors="coerce")
    responses = pd.to_numeric(frame["num_responses"], errors="coerce")
    checks = [
        ((frame == "").any(axis=1), "incomplete row (truncated file?)", "sample_key"),
        (~frame["sample_key"].str.fullmatch(KEY_PATTERN), "malformed sample_key", "sample_key"),
        (~frame["instrument"].isin(classes), f"unknown instrument (not in {CLASS_MAP})", "instrument"),
        (~relevance.between(0.0, 1.0), "relevance is not a number in [0, 1]", "relevance"),
        (~(responses >= 0), "num_responses is not a count", "num_responses"),
        (frame.duplicated(["sample_key", "instrument"]), "second label for this sample_key and instrument", "instrument"),
    ]
    bad = pd.Series(False, index=frame.index)
    problems = []
    for mask, reason, column in checks:
        for index in frame.index[mask & ~bad]:
            problems.append((int(index), f"{reason}: {frame.at[index, column]!r}"))
        bad |= mask
    report_problems(path, [(f"line {index + 2}", reason) for index, reason in sorted(problems)], skipped)
    labels: dict[str, dict[str, float]] = {}
    good = ~bad
    for key, instrument, value in zip(frame["sample_key"][good], frame["instrument"][good], relevance[good], strict=True):
        labels.setdefault(key, {})[instrument] = float(value)
    return labels


def parse_genres(text: str) -> tuple[str, ...]:
    """Genre titles from FMA's `track_genres` (a Python-literal list of dicts; "" or "[]": none)."""
    if not text.strip():
        return ()
    value = ast.literal_eval(text)
    if not isinstance(value, list) or not all(isinstance(item, dict) and "genre_title" in item for item in value):
        raise ValueError("not a list of {genre_id, genre_title, genre_url} dicts")
    return tuple(sorted({str(item["genre_title"]).strip() for item in value} - {""}))


def load_metadata(path: Path, skipped: list[Skipped] | None) -> dict[str, tuple[tuple[str, ...], dict[str, str]]]:
    """sample_key -> (genre titles, attribution and licence fields)."""
    frame = read_frame(path, ("sample_key", "track_genres", *SOURCE_COLUMNS))
    metadata, problems = {}, []
    for index, row in zip(frame.index, frame.itertuples(index=False), strict=True):
        where = f"row {index + 1} (sample_key {row.sample_key!r})"
        if not re.fullmatch(KEY_PATTERN, row.sample_key):
            problems.append((where, "missing or malformed sample_key (truncated file?)"))
        elif row.sample_key in metadata:
            problems.append((where, "second row for this sample_key"))
        else:
            try:
                genres = parse_genres(row.track_genres)
            except (ValueError, SyntaxError, TypeError) as error:
                problems.append((where, f"track_genres is not a Python-literal genre list ({error})"))
                continue
            metadata[row.sample_key] = (genres, {column: getattr(row, column) for column in SOURCE_COLUMNS})
    report_problems(path, problems, skipped)
    return metadata


def load_splits(root: Path) -> dict[str, str]:
    splits = {}
    for split, name in SPLITS.items():
        path = root / name
        try:
            keys = path.read_text(encoding="utf-8").split()
        except OSError as error:
            raise DataFileError(f"{path}: cannot read ({error})") from error
        splits.update(dict.fromkeys(keys, split))
    return splits


def load_release(root: Path, skip_bad: bool) -> Release:
    skipped: list[Skipped] | None = [] if skip_bad else None
    classes = load_class_map(root)
    labels = load_labels(root / LABELS_CSV, classes, skipped)
    metadata = load_metadata(root / METADATA_CSV, skipped)
    unlisted = sorted(labels.keys() - metadata.keys())
    report_problems(root / METADATA_CSV, [(f"sample_key {key}", "no metadata row for this labelled clip") for key in unlisted], skipped)
    splits = load_splits(root)
    clips = {
        key: Clip(key, labels[key], metadata[key][0], splits.get(key, ""), metadata[key][1])
        for key in sorted(labels.keys() & metadata.keys())
    }
    if not clips:
        raise DataFileError(f"{root / LABELS_CSV}: no usable labelled clip")
    return Release(root, classes, clips, skipped or [])


def load_groups(path: Path, classes: tuple[str, ...]) -> list[Group]:
    groups = []
    for line, row in enumerate(read_csv(Path(path), ("group_name", "instruments", "rationale")), start=2):
        members = tuple(member.strip() for member in row["instruments"].split(";"))
        unknown = sorted(set(members) - set(classes))
        if unknown:
            raise DataFileError(f"{path}, line {line}: unknown instrument {unknown} (not in the release's {CLASS_MAP})")
        if len(set(members)) < 4 or len(set(members)) != len(members):
            raise DataFileError(f"{path}, line {line}: a group needs at least 4 distinct instruments, got {list(members)}")
        groups.append(Group(row["group_name"], members, row["rationale"]))
    if not groups:
        raise DataFileError(f"{path}: no groups")
    return groups


# --- construction (labels only; no audio) -------------------------------------------------------


def balanced_positions(count: int, choices: int, rng: random.Random) -> list[int]:
    """`count` positions in range(choices), each used count // choices or one more times, shuffled."""
    positions = [p for p in range(choices) for _ in range(count // choices)] + rng.sample(range(choices), count % choices)
    rng.shuffle(positions)
    return positions


def source_fields(clip: Clip) -> dict:
    return {"sample_key": clip.key, "openmic_split": clip.split, "genres": list(clip.genres), **clip.source}


def sources_fields(clips: list[Clip]) -> dict:
    return {
        "source_keys": [clip.key for clip in clips],
        "source_openmic_splits": [clip.split for clip in clips],
        **{f"source_{column}s": [clip.source[column] for clip in clips] for column in SOURCE_COLUMNS},
    }


def plan_binary(clips: dict[str, Clip], seed: int) -> list[dict]:
    """One positive (1.0) and one negative (0.0) question per clip that has both."""
    rng = random.Random(f"{seed}:binary")
    rows = []
    for clip in clips.values():
        positives, negatives = clip.with_relevance(1.0), clip.with_relevance(0.0)
        if not (positives and negatives):
            continue
        for instrument, answer, relevance in ((rng.choice(positives), "yes", 1.0), (rng.choice(negatives), "no", 0.0)):
            rows.append({
                "item_id": f"binary-{len(rows):05d}", "instrument": instrument, "instrument_name": display_name(instrument),
                "question": presence_question(instrument), "answer": answer, "relevance": relevance, "genre_split": "",
                **source_fields(clip),
            })
    return rows


@dataclass
class GenrePrior:
    """Positive-answer rate per (genre, instrument) on training items; a clip with several genres
    pools the counts of all its genres. Falls back to the instrument's rate, then the overall rate."""

    pair: Counter = field(default_factory=Counter)
    pair_yes: Counter = field(default_factory=Counter)
    instrument: Counter = field(default_factory=Counter)
    instrument_yes: Counter = field(default_factory=Counter)

    @classmethod
    def fit(cls, rows: list[dict]) -> GenrePrior:
        prior = cls()
        for row in rows:
            yes = row["answer"] == "yes"
            for genre in row["genres"]:
                prior.pair[genre, row["instrument"]] += 1
                prior.pair_yes[genre, row["instrument"]] += yes
            prior.instrument[row["instrument"]] += 1
            prior.instrument_yes[row["instrument"]] += yes
        return prior

    def rate(self, genres: list[str], instrument: str) -> tuple[float, str]:
        seen = sum(self.pair[genre, instrument] for genre in genres)
        if seen:
            return sum(self.pair_yes[genre, instrument] for genre in genres) / seen, "genre"
        if self.instrument[instrument]:
            return self.instrument_yes[instrument] / self.instrument[instrument], "instrument"
        total = sum(self.instrument.values())
        return (sum(self.instrument_yes.values()) / total if total else 0.5), "overall"


def plan_genre_hard(binary: list[dict], seed: int) -> tuple[list[dict], float | None]:
    """Split binary items with genres 70/30 stratified by answer (marks `genre_split` on them); the
    genre prior fitted on the 70% answers the 30% ("yes" if its rate > 0.5); hard set = its
    errors. Returns the hard rows and the prior's accuracy on the 30%."""
    rng = random.Random(f"{seed}:genre_split")
    for answer in ("yes", "no"):
        items = [row for row in binary if row["genres"] and row["answer"] == answer]
        rng.shuffle(items)
        cut = round(TRAIN_FRACTION * len(items))
        for position, row in enumerate(items):
            row["genre_split"] = "train" if position < cut else "test"
    prior = GenrePrior.fit([row for row in binary if row["genre_split"] == "train"])
    test = [row for row in binary if row["genre_split"] == "test"]
    hard = []
    for row in test:
        rate, source = prior.rate(row["genres"], row["instrument"])
        prediction = "yes" if rate > 0.5 else "no"
        if prediction != row["answer"]:
            hard.append({**row, "item_id": f"genre_hard-{len(hard):05d}", "binary_item_id": row["item_id"],
                         "prior_positive_rate": rate, "prior_source": source, "prior_prediction": prediction})
    return hard, (1 - len(hard) / len(test) if test else None)


def plan_confusable(clips: dict[str, Clip], groups: list[Group], seed: int) -> list[dict]:
    """Per clip with one, a (present 1.0, absent 0.0) pair from one group; gold positions balanced."""
    rng = random.Random(f"{seed}:confusable")
    picks = []
    for clip in clips.values():
        options = [
            (group, present, absent)
            for group in groups
            for present in group.members if clip.labels.get(present) == 1.0
            for absent in group.members if clip.labels.get(absent) == 0.0
        ]
        if options:
            picks.append((clip, *rng.choice(options)))
    rows = []
    for (clip, group, present, absent), gold in zip(picks, balanced_positions(len(picks), 2, rng), strict=True):
        names = [display_name(present), display_name(absent)]
        candidates = names if gold == 0 else names[::-1]
        swapped = candidates[::-1]
        rows.append({
            "item_id": f"confusable-{len(rows):05d}", "group": group.name, "present_instrument": names[0],
            "absent_instrument": names[1], "candidates": candidates, "candidates_swapped": swapped, "answer": names[0],
            "gold_position": gold, "answer_letter": "AB"[gold], "answer_letter_swapped": "BA"[gold],
            "prompt_name": NAME_PROMPT.format(*candidates), "prompt_name_swapped": NAME_PROMPT.format(*swapped),
            "prompt_ab": LETTER_PROMPT.format(*candidates), "prompt_ab_swapped": LETTER_PROMPT.format(*swapped),
            **source_fields(clip),
        })
    return rows


def check_max_clip_uses(max_clip_uses) -> int:
    """`--max-clip-uses`: how many multilabel rows one clip may serve, an integer >= 1."""
    if isinstance(max_clip_uses, bool) or not isinstance(max_clip_uses, int) or max_clip_uses < 1:
        raise ValueError(f"max_clip_uses (--max-clip-uses) must be an integer >= 1, got {max_clip_uses!r}")
    return max_clip_uses


def _multilabel_draws(clips: dict[str, Clip], others: list[str], pool: list[str]) -> Iterator[tuple[list[str], list[str]]]:
    """Three clips of `pool` (all absent-labelled for the pair) whose 1.0 labels cover >= 2 of
    `others`, with the members they cover; best first (the earliest clips of `pool`), then the
    alternatives, so that a draw already taken can be passed over."""
    present = {key: {member for member in others if clips[key].labels.get(member) == 1.0} for key in pool}
    carriers = [key for key in pool if present[key]]
    if len(set().union(*(present[key] for key in carriers))) < 2:
        return
    for index, first in enumerate(carriers):
        if len(present[first]) >= 2:
            rest = [key for key in pool if key != first]
            for fill in itertools.combinations(rest, 2):
                yield [first, *fill], sorted(present[first])
            continue
        for second in carriers[index + 1:]:
            if present[second] - present[first]:
                found = sorted(present[first] | present[second])
                for fill in pool:
                    if fill not in (first, second):
                        yield [first, second, fill], found


def plan_multilabel(clips: dict[str, Clip], groups: list[Group], seed: int, max_clip_uses: int = 1) -> list[dict]:
    """Three clips, four candidates of one group: two 1.0 in some clip, two 0.0 in all three.
    A clip serves at most `max_clip_uses` items; absent pairs take turns so every group gets items.

    Reuse comes in levels: level 1 is the one-use-per-clip plan (so `max_clip_uses=1` is that plan,
    and a larger value only adds rows after it); level L lets clips used fewer than L times serve
    again, least-used clips first. No (set of three clips, candidate set) is ever produced twice."""
    check_max_clip_uses(max_clip_uses)
    rng = random.Random(f"{seed}:multilabel")
    pools = []
    for group in groups:
        for absent in itertools.combinations(group.members, 2):
            pool = [key for key, clip in clips.items() if all(clip.labels.get(a) == 0.0 for a in absent)]
            rng.shuffle(pool)
            pools.append((group, absent, pool))
    rng.shuffle(pools)
    uses: Counter = Counter()
    taken: set[tuple[frozenset, frozenset]] = set()  # (clips, candidates) of every row so far
    rows: list[dict] = []
    for level in range(1, max_clip_uses + 1):
        dead: set[int] = set()  # within a level clips only run out and `taken` only grows: a dry pool stays dry
        progress = True
        while progress:
            progress = False
            for number, (group, absent, pool) in enumerate(pools):
                if number in dead:
                    continue
                available = sorted((key for key in pool if uses[key] < level), key=uses.__getitem__)  # stable: seeded order
                picked = None
                for keys, found in _multilabel_draws(clips, [m for m in group.members if m not in absent], available):
                    clip_set = frozenset(keys)
                    present = rng.sample(found, 2)
                    if (clip_set, frozenset((*present, *absent))) in taken:
                        fresh = [pair for pair in itertools.combinations(found, 2)
                                 if (clip_set, frozenset((*pair, *absent))) not in taken]
                        if not fresh:
                            continue
                        present = list(rng.choice(fresh))
                    picked = keys, present
                    break
                if picked is None:
                    dead.add(number)
                    continue
                keys, present = picked
                candidates = present + list(absent)
                rng.shuffle(candidates)
                rng.shuffle(keys)
                uses.update(keys)
                taken.add((frozenset(keys), frozenset(candidates)))
                progress = True
                sources = [clips[key] for key in keys]
                names = [display_name(c) for c in candidates]
                rows.append({
                    "item_id": f"multilabel_30s-{len(rows):05d}", "group": group.name, "candidates": names,
                    "present": [display_name(c) for c in candidates if c in present],
                    "absent": [display_name(c) for c in candidates if c in absent],
                    "answer": ", ".join(display_name(c) for c in candidates if c in present),
                    "candidate_relevance": [[clip.labels.get(c) for clip in sources] for c in candidates],
                    "question": MULTILABEL_PROMPT.format(", ".join(names)), "max_clip_uses": max_clip_uses,
                    **sources_fields(sources),
                })
    return rows


def plan_temporal(clips: dict[str, Clip], classes: tuple[str, ...], seed: int) -> list[dict]:
    """Target 1.0 in exactly one of three clips and 0.0 in the other two; each clip serves at most
    one item; the gold segment is balanced over the three positions."""
    rng = random.Random(f"{seed}:temporal")
    targets = [(key, instrument) for key, clip in clips.items() for instrument in clip.with_relevance(1.0)]
    negatives = {instrument: [key for key, clip in clips.items() if clip.labels.get(instrument) == 0.0] for instrument in classes}
    rng.shuffle(targets)
    for keys in negatives.values():
        rng.shuffle(keys)
    cursor, used, picks = dict.fromkeys(classes, 0), set(), []
    for key, instrument in targets:
        if key in used:
            continue
        queue, position, others = negatives[instrument], cursor[instrument], []
        while len(others) < 2 and position < len(queue):
            if queue[position] not in used:
                others.append(queue[position])
            position += 1
        cursor[instrument] = position
        if len(others) == 2:
            used.update((key, *others))
            picks.append((instrument, key, others))
    rows = []
    for (instrument, key, others), gold in zip(picks, balanced_positions(len(picks), 3, rng), strict=True):
        rng.shuffle(others)
        sources = [clips[k] for k in others[:gold] + [key] + others[gold:]]
        rows.append({
            "item_id": f"temporal_30s-{len(rows):05d}", "instrument": instrument, "instrument_name": display_name(instrument),
            "gold_segment": gold, "answer": TIME_RANGES[gold], "time_ranges": list(TIME_RANGES),
            "segment_relevance": [clip.labels[instrument] for clip in sources],
            "question": TEMPORAL_PROMPT.format(display_name(instrument), ", ".join(TIME_RANGES)), **sources_fields(sources),
        })
    return rows


@dataclass
class Plan:
    rows: dict[str, list[dict]]
    baseline_accuracy: float | None

    def audio_keys(self) -> set[str]:
        keys = {row["sample_key"] for config in CLIP_CONFIGS for row in self.rows[config]}
        return keys | {key for config in MIX_CONFIGS for row in self.rows[config] for key in row["source_keys"]}


def plan_benchmarks(release: Release, groups: list[Group], seed: int, max_clip_uses: int = 1) -> Plan:
    binary = plan_binary(release.clips, seed)
    hard, accuracy = plan_genre_hard(binary, seed)
    rows = {
        "binary": binary, "genre_hard": hard, "confusable": plan_confusable(release.clips, groups, seed),
        "multilabel_30s": plan_multilabel(release.clips, groups, seed, max_clip_uses),
        "temporal_30s": plan_temporal(release.clips, release.classes, seed),
    }
    return Plan(rows, accuracy)


# --- audio ---------------------------------------------------------------------------------------


def clip_audio(root: Path, key: str):
    """16 kHz mono float32 samples of a clip. DataFileError naming the file if it does not decode."""
    import numpy as np
    import soundfile

    path = audio_path(root, key)
    if not path.is_file():
        raise DataFileError(f"{path}: missing audio for sample_key {key}")
    try:
        samples, rate = soundfile.read(path, dtype="float32", always_2d=True)
    except (RuntimeError, OSError) as error:  # soundfile.LibsndfileError is a RuntimeError
        raise DataFileError(f"{path}: cannot decode ({error})") from error
    mono = samples.mean(axis=1)
    if rate != SAMPLE_RATE:
        # scipy.signal takes seconds to import: only when a release is not at 16 kHz
        from scipy.signal import resample_poly

        common = gcd(rate, SAMPLE_RATE)
        mono = resample_poly(mono, SAMPLE_RATE // common, rate // common).astype(np.float32)
    if mono.size == 0 or not np.isfinite(mono).all():
        raise DataFileError(f"{path}: empty or non-finite audio")
    return mono


def audio_problem(root: Path, key: str, decode: bool) -> str | None:
    """Why a clip's file is unusable, or None: missing or unreadable header, or (`decode`) not decodable."""
    import soundfile

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


def check_audio(release: Release, keys: set[str], skip_bad: bool, checked: set[str]) -> set[str]:
    """Without --skip-bad: each file exists with a readable header, else DataFileError. With it: each
    file not yet `checked` decodes; the keys that do not are recorded as skipped and returned."""
    bad = set()
    for key in sorted(keys - checked):
        checked.add(key)
        problem = audio_problem(release.root, key, decode=skip_bad)
        if problem is None:
            continue
        path = audio_path(release.root, key)
        if not skip_bad:
            raise DataFileError(f"{path}: {problem}")
        release.skipped.append(Skipped(str(path), f"sample_key {key}", problem))
        bad.add(key)
    return bad


def checked_plan(release: Release, groups: list[Group], seed: int, skip_bad: bool, max_clip_uses: int = 1) -> Plan:
    """Plan, check the audio the plan uses; with --skip-bad drop clips that fail and plan again."""
    checked: set[str] = set()
    while True:
        plan = plan_benchmarks(release, groups, seed, max_clip_uses)
        bad = check_audio(release, plan.audio_keys(), skip_bad, checked)
        if not bad:
            return plan
        release.clips = {key: clip for key, clip in release.clips.items() if key not in bad}


def encoded(samples, seed: int, name: str) -> dict:
    import numpy as np

    from symphony_bench.hub_upload.symphony_bias_audio import encode_flac, pcm_sha256

    flac = encode_flac(np.clip(samples, -1.0, 1.0))
    return {"seed": seed, "pcm_sha256": pcm_sha256(flac), "duration_s": round(len(samples) / SAMPLE_RATE, 3),
            "audio": {"bytes": flac, "path": f"{name}.flac"}}


def segment(samples):
    """Exactly 10 s: trimmed, or padded with silence."""
    import numpy as np

    return np.pad(samples[:SEGMENT_FRAMES], (0, max(0, SEGMENT_FRAMES - len(samples))))


# --- writing -------------------------------------------------------------------------------------


def config_features() -> dict:
    import datasets

    text, number, texts = datasets.Value("string"), datasets.Value("float64"), datasets.List(datasets.Value("string"))
    source = {"sample_key": text, "openmic_split": text, "genres": texts, **dict.fromkeys(SOURCE_COLUMNS, text)}
    sources = {"source_keys": texts, "source_openmic_splits": texts, **{f"source_{c}s": texts for c in SOURCE_COLUMNS}}
    audio = {"seed": datasets.Value("int64"), "pcm_sha256": text, "duration_s": number,
             "audio": datasets.Audio(sampling_rate=SAMPLE_RATE, decode=False)}
    binary = {"item_id": text, "instrument": text, "instrument_name": text, "question": text, "answer": text,
              "relevance": number, "genre_split": text}
    prior = {"binary_item_id": text, "prior_positive_rate": number, "prior_source": text, "prior_prediction": text}
    confusable = {
        "item_id": text, "group": text, "present_instrument": text, "absent_instrument": text, "candidates": texts,
        "candidates_swapped": texts, "answer": text, "gold_position": datasets.Value("int32"), "answer_letter": text,
        "answer_letter_swapped": text, "prompt_name": text, "prompt_name_swapped": text, "prompt_ab": text, "prompt_ab_swapped": text,
    }
    multilabel = {"item_id": text, "group": text, "candidates": texts, "present": texts, "absent": texts, "answer": text,
                  "candidate_relevance": datasets.List(datasets.List(number)), "question": text,
                  "max_clip_uses": datasets.Value("int32")}
    temporal = {"item_id": text, "instrument": text, "instrument_name": text, "gold_segment": datasets.Value("int32"),
                "answer": text, "time_ranges": texts, "segment_relevance": datasets.List(number), "question": text}
    return {
        "binary": datasets.Features({**binary, **source, **audio}),
        "genre_hard": datasets.Features({**binary, **prior, **source, **audio}),
        "confusable": datasets.Features({**confusable, **source, **audio}),
        "multilabel_30s": datasets.Features({**multilabel, **sources, **audio}),
        "temporal_30s": datasets.Features({**temporal, **sources, **audio}),
    }


class ParquetStream:
    """Rows appended one by one, written in batches of BATCH_ROWS: memory stays flat."""

    def __init__(self, path: Path, features):
        import pyarrow.parquet as pq

        path.parent.mkdir(parents=True, exist_ok=True)
        self.schema = features.arrow_schema  # carries the datasets features (Audio, decode=False)
        self.writer = pq.ParquetWriter(str(path), self.schema)
        self.rows: list[dict] = []

    def add(self, row: dict) -> None:
        self.rows.append(row)
        if len(self.rows) >= BATCH_ROWS:
            self.flush()

    def flush(self) -> None:
        import pyarrow as pa

        if self.rows:
            self.writer.write_table(pa.Table.from_pylist(self.rows, schema=self.schema))
            self.rows = []

    def close(self) -> None:
        self.flush()
        self.writer.close()


def write_configs(folder: Path, plan: Plan, root: Path, seed: int) -> tuple[int, int]:
    """Each clip is decoded once for all its 10 s rows; each 30 s row decodes its three clips.
    Returns the bytes of audio written, in all and distinct (by decoded-sample hash)."""
    import numpy as np

    features = config_features()
    streams = {config: ParquetStream(folder / "data" / config / "test-00000-of-00001.parquet", features[config]) for config in PAPER_COUNTS}
    sizes: dict[str, int] = {}
    total = 0

    def add(config: str, row: dict, audio: dict) -> None:
        nonlocal total
        streams[config].add({**row, **audio})
        total += len(audio["audio"]["bytes"])
        sizes[audio["pcm_sha256"]] = len(audio["audio"]["bytes"])

    try:
        rows_of_clip = defaultdict(list)
        for config in CLIP_CONFIGS:
            for row in plan.rows[config]:
                rows_of_clip[row["sample_key"]].append((config, row))
        for key in sorted(rows_of_clip):
            audio = encoded(clip_audio(root, key), seed, key)
            for config, row in rows_of_clip[key]:
                add(config, row, audio)
        for config in MIX_CONFIGS:
            for row in plan.rows[config]:
                samples = np.concatenate([segment(clip_audio(root, key)) for key in row["source_keys"]])
                add(config, row, encoded(samples, seed, row["item_id"]))
    finally:
        for stream in streams.values():
            stream.close()
    return total, sum(sizes.values())


def write_skipped(path: Path, skipped: list[Skipped]) -> None:
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(("path", "where", "reason"))
        writer.writerows((item.path, item.where, item.reason) for item in skipped)


def front_matter() -> str:
    configs = "".join(
        f"- config_name: {config}\n  data_files:\n  - split: test\n    path: data/{config}/test-*.parquet\n" for config in PAPER_COUNTS
    )
    return f"---\nlicense: other\npretty_name: OpenMIC-2018 instrument-grounding diagnostics\nconfigs:\n{configs}---\n"


CARD = """# OpenMIC-2018 instrument-grounding diagnostics

The diagnostic sequence of "Beyond Binary Instrument QA: Probing Instrument Grounding in Music
Audio-Language Models", rebuilt from `{source}` by
`symphony-bench build openmic --seed {seed}`. Split `test` in every config.

| config | benchmark | rows | paper |
| --- | --- | ---: | ---: |
{counts}

`multilabel_30s` was built with `--max-clip-uses {max_clip_uses}` (its `max_clip_uses` column): a clip
serves {clip_uses} of its rows, never the same three clips with the same candidates twice. OpenMIC's
labels are sparse (about two annotated instruments per clip), so few clip triples have two present
and two all-0.0 candidates of one group, and reuse brings the count closer to the paper's.

Genre-prior baseline on the 30% split: {baseline}.

## Construction

Gold labels are OpenMIC relevances of exactly 1.0 (present) and 0.0 (absent); intermediate
relevances and unannotated instruments are never gold (unannotated is not absent). Every random
choice derives from the seed in each row's `seed` column.

- `binary`: for each clip with both, one instrument at 1.0 ("yes") and one at 0.0 ("no"), asked as
  "Is there a/an {{instrument}} in this audio clip?" (plural/mass nouns: "Are there drums", "Is there
  mallet percussion").
- `genre_hard`: the binary items whose clip has FMA genres (`track_genres`) are split 70/30
  stratified by answer (`genre_split` in `binary`). A prior fitted on the 70% (positive rate per
  genre-instrument pair, a multi-genre clip pooling the counts of its genres; else the instrument's
  rate; else the overall rate) answers "yes" when the rate is above 0.5. Rows: the 30% items it gets
  wrong, with `prior_positive_rate`, `prior_source`, `prior_prediction`.
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
  0.0 in the two others; answer one of {time_ranges}. Gold segments are balanced ({gold_counts}).

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
bytes with soundfile, no torchcodec needed. `pcm_sha256` is the SHA-256 of the decoded int16
samples (same seed, same hash). Every row carries its own audio so that
`load_dataset(DIR, config)` is enough to evaluate (an lmms-eval task sees one row at a time and has
no join step); bytes are still written once where the design allows: the four confusable interfaces
share one config, and each 30 s concatenation belongs to one row (with `--max-clip-uses` above 1,
`multilabel_30s` rows may share clips, and so audio). What repeats: a binary
clip appears in its "yes" and its "no" row, and `genre_hard` / `confusable` rows repeat clips of
`binary` ({audio_mb:.1f} MB of audio in all, {unique_mb:.1f} MB distinct).

## Columns

- all: `item_id`, `seed`, `pcm_sha256`, `duration_s`, `audio`.
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


def card(release: Release, plan: Plan, groups: list[Group], seed: int, source: str, audio_bytes: int, unique_bytes: int,
         max_clip_uses: int = 1) -> str:
    rows = plan.rows
    counts = "\n".join(
        f"| `{config}` | {title} | {len(rows[config]):,} | {PAPER_COUNTS[config]:,} |"
        for config, title in zip(PAPER_COUNTS, ("binary presence QA", "genre-prior-reduced QA", "confusable discrimination",
                                                "30 s multi-label", "temporal localisation"), strict=True)
    )
    used = [release.clips[key] for key in sorted(plan.audio_keys())]
    licences = Counter((clip.source["license_title"], clip.source["license_url"]) for clip in used)
    gold = Counter(row["gold_segment"] for row in rows["temporal_30s"])
    test_items = sum(row["genre_split"] == "test" for row in rows["binary"])
    baseline = "no binary item has genre metadata" if plan.baseline_accuracy is None else (
        f"{plan.baseline_accuracy:.1%} correct on {test_items:,} items; its {len(rows['genre_hard']):,} errors form `genre_hard`")
    skipped = f"\n## Skipped inputs\n\n{len(release.skipped)} inputs skipped (`--skip-bad`), listed in `skipped.csv`.\n" if release.skipped else ""
    return front_matter() + CARD.format(
        source=source, seed=seed, counts=counts, baseline=baseline, time_ranges=", ".join(f'"{r}"' for r in TIME_RANGES),
        max_clip_uses=max_clip_uses, clip_uses="at most one" if max_clip_uses == 1 else f"up to {max_clip_uses}",
        gold_counts=", ".join(f"{TIME_RANGES[p]}: {gold[p]}" for p in range(3)),
        groups="\n".join(f"| {g.name} | {', '.join(display_name(m) for m in g.members)} | {g.rationale} |" for g in groups),
        audio_mb=audio_bytes / 1e6, unique_mb=unique_bytes / 1e6,
        source_columns=", ".join(f"`{c}`" for c in SOURCE_COLUMNS),
        sources_columns=", ".join(f"`source_{c}s`" for c in SOURCE_COLUMNS),
        licences="\n".join(f"| {title or '(none)'} | {url} | {n:,} |" for (title, url), n in sorted(licences.items())),
        skipped=skipped,
    )


def build(source: Path, out: Path, seed: int = 0, skip_bad: bool = False, groups_file: Path = GROUPS_FILE,
          max_clip_uses: int = 1) -> dict:
    """Write the five configs at `out` (atomically: on any error nothing is left there); a clip serves
    at most `max_clip_uses` multilabel rows. Returns {"counts", "paper", "baseline_accuracy",
    "skipped", "max_clip_uses"}."""
    check_max_clip_uses(max_clip_uses)
    out = Path(out).resolve()
    with staged_directory(out) as staging, release_root(Path(source), scratch=out.parent) as root:
        release = load_release(root, skip_bad)
        groups = load_groups(groups_file, release.classes)
        plan = checked_plan(release, groups, seed, skip_bad, max_clip_uses)
        audio_bytes = write_configs(staging, plan, root, seed)
        if skip_bad:
            write_skipped(staging / "skipped.csv", release.skipped)
        text = card(release, plan, groups, seed, Path(source).name, *audio_bytes, max_clip_uses)
        (staging / "README.md").write_text(text, encoding="utf-8")
    return {"counts": {config: len(rows) for config, rows in plan.rows.items()}, "paper": dict(PAPER_COUNTS),
            "baseline_accuracy": plan.baseline_accuracy, "skipped": len(release.skipped), "max_clip_uses": max_clip_uses}


def _run(args: argparse.Namespace) -> None:
    check_max_clip_uses(args.max_clip_uses)  # before a download
    if args.download:
        download_release(args.source)
    summary = build(args.source, args.out, seed=args.seed, skip_bad=args.skip_bad, groups_file=args.groups,
                    max_clip_uses=args.max_clip_uses)
    print(f"wrote {args.out} (seed {args.seed}, max clip uses {args.max_clip_uses})")
    print(f"{'config':<16}{'rows':>8}{'paper':>8}")
    for config, count in summary["counts"].items():
        print(f"{config:<16}{count:>8,}{PAPER_COUNTS[config]:>8,}")
    if summary["baseline_accuracy"] is not None:
        print(f"genre-prior baseline accuracy on the 30% split: {summary['baseline_accuracy']:.1%}")
    if args.skip_bad:
        print(f"skipped {summary['skipped']} inputs; list: {Path(args.out) / 'skipped.csv'}")


def add_build_command(datasets_subparsers) -> None:
    parser = datasets_subparsers.add_parser("openmic", help="the five instrument-grounding diagnostics from OpenMIC-2018")
    parser.add_argument("--source", type=Path, required=True, help="extracted OpenMIC-2018 release, or its .tgz")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--skip-bad", action="store_true", help="skip bad label rows and clips, listed in OUT/skipped.csv")
    parser.add_argument("--groups", type=Path, default=GROUPS_FILE, help="confusable groups CSV: group_name,instruments (;-separated),rationale")
    parser.add_argument("--download", action="store_true", help="first fetch the release into --source with mirdata (pip install mirdata)")
    parser.add_argument("--max-clip-uses", type=int, default=1, metavar="N",
                        help="a clip may serve up to N multilabel_30s rows (default 1; OpenMIC's sparse labels give few one-use items)")
    parser.set_defaults(run=_run)
