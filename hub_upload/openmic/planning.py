"""The five benchmarks' rows, planned from an OpenMIC-2018 release's labels alone (no audio): binary
presence questions, the genre-prior-hard subset, confusable pairs, 30 s multi-label sets and 30 s
temporal localisation. Every random choice derives from the seed; in `binary`, the genre split and
`confusable` it is keyed by the clip, and rows are never re-drawn for a skipped clip (`without_clips`),
so that leaving out one clip changes only the rows that use it."""

from __future__ import annotations

import hashlib
import itertools
import random
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field

from symphony_bench.hub_upload.openmic.release import SOURCE_COLUMNS, Clip, Group, Release
from symphony_bench.plugin.core.vocabulary import TIME_RANGES

PAPER_COUNTS = {
    "binary": 9_332,
    "genre_hard": 590,
    "confusable": 1_051,
    "multilabel_30s": 1_028,
    "temporal_30s": 3_579,
}
CLIP_CONFIGS = ("binary", "genre_hard", "confusable")  # one 10 s clip per row
MIX_CONFIGS = ("multilabel_30s", "temporal_30s")  # three clips concatenated per row
TRAIN_FRACTION = 0.7
PLURAL_OR_MASS = {
    "drums": "Are there drums",
    "cymbals": "Are there cymbals",
    "mallet_percussion": "Is there mallet percussion",
}

NAME_PROMPT = (
    "Which instrument is present in this audio clip? Candidate instruments: {0}, {1}. "
    "Answer with only one instrument name from the candidates."
)
LETTER_PROMPT = (
    "Which instrument is present in this audio clip? A. {0} B. {1} "
    "Answer with only the letter A or B."
)
MULTILABEL_PROMPT = (
    "Listen carefully to the 30-second audio clip. Which instruments are present in this audio clip? "
    "Candidate instruments: {}. Answer with all instrument names from the candidates that are present, "
    "separated by commas."
)
TEMPORAL_PROMPT = (
    "Listen to the full audio carefully and identify the time range where the target instrument is heard. "
    "Target instrument: {}. Choose exactly one time range: {}. Answer with only the selected time range."
)


def display_name(instrument: str) -> str:
    return instrument.replace("_", " ")


def presence_question(instrument: str) -> str:
    """The paper's "Is there a [instrument] in this audio clip?", with a/an, plural and mass nouns."""
    name = display_name(instrument)
    opening = (
        PLURAL_OR_MASS.get(instrument) or f"Is there {'an' if name[0] in 'aeiou' else 'a'} {name}"
    )
    return f"{opening} in this audio clip?"


def balanced_positions(count: int, choices: int, rng: random.Random) -> list[int]:
    """`count` positions in range(choices), each used count // choices or one more times, shuffled."""
    positions = [p for p in range(choices) for _ in range(count // choices)] + rng.sample(
        range(choices), count % choices
    )
    rng.shuffle(positions)
    return positions


def clip_rng(seed: int, purpose: str, key: str) -> random.Random:
    """A clip's own random choices for one purpose: independent of which other clips exist."""
    return random.Random(f"{seed}:{purpose}:{key}")


def keyed_order(rows: list[dict], seed: int, purpose: str, key) -> list[dict]:
    """`rows` in a seeded random order in which each row's place depends only on its own key."""
    return sorted(
        rows, key=lambda row: hashlib.sha256(f"{seed}:{purpose}:{key(row)}".encode()).digest()
    )


def source_fields(clip: Clip) -> dict:
    return {
        "sample_key": clip.key,
        "openmic_split": clip.split,
        "genres": list(clip.genres),
        **clip.source,
    }


def sources_fields(clips: list[Clip]) -> dict:
    return {
        "source_keys": [clip.key for clip in clips],
        "source_openmic_splits": [clip.split for clip in clips],
        **{
            f"source_{column}s": [clip.source[column] for clip in clips]
            for column in SOURCE_COLUMNS
        },
    }


def plan_binary(clips: dict[str, Clip], seed: int) -> list[dict]:
    """One positive (1.0) and one negative (0.0) question per clip that has both."""
    rows = []
    for clip in clips.values():
        positives, negatives = clip.with_relevance(1.0), clip.with_relevance(0.0)
        if not (positives and negatives):
            continue
        rng = clip_rng(seed, "binary", clip.key)
        for instrument, answer, relevance in (
            (rng.choice(positives), "yes", 1.0),
            (rng.choice(negatives), "no", 0.0),
        ):
            rows.append(
                {
                    "item_id": f"binary-{len(rows):05d}",
                    "instrument": instrument,
                    "instrument_name": display_name(instrument),
                    "question": presence_question(instrument),
                    "answer": answer,
                    "relevance": relevance,
                    "genre_split": "",
                    **source_fields(clip),
                }
            )
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

    def counts(self, genres: list[str], instrument: str) -> tuple[int, int, str]:
        """(positive answers, answers, source) behind the rate for this clip's genres and instrument."""
        seen = sum(self.pair[genre, instrument] for genre in genres)
        if seen:
            return sum(self.pair_yes[genre, instrument] for genre in genres), seen, "genre"
        if self.instrument[instrument]:
            return self.instrument_yes[instrument], self.instrument[instrument], "instrument"
        return sum(self.instrument_yes.values()), sum(self.instrument.values()), "overall"


@dataclass(frozen=True)
class GenreBaseline:
    """The genre prior on the 30% split: accuracy over the items it decides, and the tied items
    (rate exactly 0.5, or nothing to fit) it does not."""

    accuracy: float | None
    decided: int
    ties: int


def split_for_genre_prior(binary: list[dict], seed: int) -> None:
    """Mark `genre_split` on binary items with genres: 70/30 stratified by answer, in an order keyed
    by each item's clip and answer."""
    for answer in ("yes", "no"):
        items = [row for row in binary if row["genres"] and row["answer"] == answer]
        cut = round(TRAIN_FRACTION * len(items))
        for position, row in enumerate(
            keyed_order(
                items,
                seed,
                "genre_split",
                lambda row, answer=answer: f"{row['sample_key']}:{answer}",
            )
        ):
            row["genre_split"] = "train" if position < cut else "test"


def plan_genre_hard(binary: list[dict]) -> tuple[list[dict], GenreBaseline]:
    """The genre prior fitted on the `genre_split` train items answers the test items ("yes" above
    a rate of 0.5, "no" below; a tie is no prediction); the hard set is its errors."""
    prior = GenrePrior.fit([row for row in binary if row["genre_split"] == "train"])
    hard, decided = [], 0
    for row in (row for row in binary if row["genre_split"] == "test"):
        positive, seen, source = prior.counts(row["genres"], row["instrument"])
        if 2 * positive == seen:  # exact in integers: a rate of 0.5 says nothing either way
            continue
        decided += 1
        prediction = "yes" if 2 * positive > seen else "no"
        if prediction != row["answer"]:
            hard.append(
                {
                    **row,
                    "item_id": f"genre_hard-{len(hard):05d}",
                    "binary_item_id": row["item_id"],
                    "prior_positive_rate": positive / seen,
                    "prior_source": source,
                    "prior_prediction": prediction,
                }
            )
    tested = sum(row["genre_split"] == "test" for row in binary)
    return hard, GenreBaseline(
        1 - len(hard) / decided if decided else None, decided, tested - decided
    )


def plan_confusable(clips: dict[str, Clip], groups: list[Group], seed: int) -> list[dict]:
    """Per clip with one, a (present 1.0, absent 0.0) pair from one group; gold positions balanced."""
    picks = []
    for clip in clips.values():
        options = [
            (group, present, absent)
            for group in groups
            for present in group.members
            if clip.labels.get(present) == 1.0
            for absent in group.members
            if clip.labels.get(absent) == 0.0
        ]
        if options:
            picks.append((clip, *clip_rng(seed, "confusable", clip.key).choice(options)))
    rows = []
    gold_positions = balanced_positions(len(picks), 2, random.Random(f"{seed}:confusable"))
    for (clip, group, present, absent), gold in zip(picks, gold_positions, strict=True):
        names = [display_name(present), display_name(absent)]
        candidates = names if gold == 0 else names[::-1]
        swapped = candidates[::-1]
        rows.append(
            {
                "item_id": f"confusable-{len(rows):05d}",
                "group": group.name,
                "present_instrument": names[0],
                "absent_instrument": names[1],
                "candidates": candidates,
                "candidates_swapped": swapped,
                "answer": names[0],
                "gold_position": gold,
                "answer_letter": "AB"[gold],
                "answer_letter_swapped": "BA"[gold],
                "prompt_name": NAME_PROMPT.format(*candidates),
                "prompt_name_swapped": NAME_PROMPT.format(*swapped),
                "prompt_ab": LETTER_PROMPT.format(*candidates),
                "prompt_ab_swapped": LETTER_PROMPT.format(*swapped),
                **source_fields(clip),
            }
        )
    return rows


def check_max_clip_uses(max_clip_uses) -> int:
    """`--max-clip-uses`: how many multilabel rows one clip may serve, an integer >= 1."""
    if isinstance(max_clip_uses, bool) or not isinstance(max_clip_uses, int) or max_clip_uses < 1:
        raise ValueError(
            f"max_clip_uses (--max-clip-uses) must be an integer >= 1, got {max_clip_uses!r}"
        )
    return max_clip_uses


def _multilabel_draws(
    clips: dict[str, Clip], others: list[str], pool: list[str]
) -> Iterator[tuple[list[str], list[str]]]:
    """Three clips of `pool` (all absent-labelled for the pair) whose 1.0 labels cover >= 2 of
    `others`, with the members they cover; best first (the earliest clips of `pool`), then the
    alternatives, so that a draw already taken can be passed over."""
    present = {
        key: {member for member in others if clips[key].labels.get(member) == 1.0} for key in pool
    }
    carriers = [key for key in pool if present[key]]
    if len(set().union(*(present[key] for key in carriers))) < 2:
        return
    for index, first in enumerate(carriers):
        if len(present[first]) >= 2:
            rest = [key for key in pool if key != first]
            for fill in itertools.combinations(rest, 2):
                yield [first, *fill], sorted(present[first])
            continue
        for second in carriers[index + 1 :]:
            if present[second] - present[first]:
                found = sorted(present[first] | present[second])
                for fill in pool:
                    if fill not in (first, second):
                        yield [first, second, fill], found


def plan_multilabel(
    clips: dict[str, Clip], groups: list[Group], seed: int, max_clip_uses: int = 1
) -> list[dict]:
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
            pool = [
                key for key, clip in clips.items() if all(clip.labels.get(a) == 0.0 for a in absent)
            ]
            rng.shuffle(pool)
            pools.append((group, absent, pool))
    rng.shuffle(pools)
    uses: Counter = Counter()
    taken: set[tuple[frozenset, frozenset]] = set()  # (clips, candidates) of every row so far
    rows: list[dict] = []
    for level in range(1, max_clip_uses + 1):
        dead: set[int] = (
            set()
        )  # within a level clips only run out and `taken` only grows: a dry pool stays dry
        progress = True
        while progress:
            progress = False
            for number, (group, absent, pool) in enumerate(pools):
                if number in dead:
                    continue
                available = sorted(
                    (key for key in pool if uses[key] < level), key=uses.__getitem__
                )  # stable: seeded order
                picked = None
                for keys, found in _multilabel_draws(
                    clips, [m for m in group.members if m not in absent], available
                ):
                    clip_set = frozenset(keys)
                    present = rng.sample(found, 2)
                    if (clip_set, frozenset((*present, *absent))) in taken:
                        fresh = [
                            pair
                            for pair in itertools.combinations(found, 2)
                            if (clip_set, frozenset((*pair, *absent))) not in taken
                        ]
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
                rows.append(
                    {
                        "item_id": f"multilabel_30s-{len(rows):05d}",
                        "group": group.name,
                        "candidates": names,
                        "present": [display_name(c) for c in candidates if c in present],
                        "absent": [display_name(c) for c in candidates if c in absent],
                        "answer": ", ".join(display_name(c) for c in candidates if c in present),
                        "candidate_relevance": [
                            [clip.labels.get(c) for clip in sources] for c in candidates
                        ],
                        "question": MULTILABEL_PROMPT.format(", ".join(names)),
                        "max_clip_uses": max_clip_uses,
                        **sources_fields(sources),
                    }
                )
    return rows


def plan_temporal(clips: dict[str, Clip], classes: tuple[str, ...], seed: int) -> list[dict]:
    """Target 1.0 in exactly one of three clips and 0.0 in the other two; each clip serves at most
    one item; the gold segment is balanced over the three positions."""
    rng = random.Random(f"{seed}:temporal")
    targets = [
        (key, instrument) for key, clip in clips.items() for instrument in clip.with_relevance(1.0)
    ]
    negatives = {
        instrument: [key for key, clip in clips.items() if clip.labels.get(instrument) == 0.0]
        for instrument in classes
    }
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
    for (instrument, key, others), gold in zip(
        picks, balanced_positions(len(picks), 3, rng), strict=True
    ):
        rng.shuffle(others)
        sources = [clips[k] for k in others[:gold] + [key] + others[gold:]]
        rows.append(
            {
                "item_id": f"temporal_30s-{len(rows):05d}",
                "instrument": instrument,
                "instrument_name": display_name(instrument),
                "gold_segment": gold,
                "answer": TIME_RANGES[gold],
                "time_ranges": list(TIME_RANGES),
                "segment_relevance": [clip.labels[instrument] for clip in sources],
                "question": TEMPORAL_PROMPT.format(
                    display_name(instrument), ", ".join(TIME_RANGES)
                ),
                **sources_fields(sources),
            }
        )
    return rows


def row_clips(row: dict) -> set[str]:
    return set(row["source_keys"]) if "source_keys" in row else {row["sample_key"]}


@dataclass
class Plan:
    rows: dict[str, list[dict]]  # every config of PAPER_COUNTS, in that order
    genre_baseline: GenreBaseline

    @property
    def baseline_accuracy(self) -> float | None:
        return self.genre_baseline.accuracy

    def audio_keys(self) -> set[str]:
        return {key for rows in self.rows.values() for row in rows for key in row_clips(row)}


def _with_genre_hard(drawn: dict[str, list[dict]]) -> Plan:
    hard, baseline = plan_genre_hard(drawn["binary"])
    return Plan(
        {config: hard if config == "genre_hard" else drawn[config] for config in PAPER_COUNTS},
        baseline,
    )


def plan_benchmarks(
    release: Release, groups: list[Group], seed: int, max_clip_uses: int = 1
) -> Plan:
    binary = plan_binary(release.clips, seed)
    split_for_genre_prior(binary, seed)
    return _with_genre_hard(
        {
            "binary": binary,
            "confusable": plan_confusable(release.clips, groups, seed),
            "multilabel_30s": plan_multilabel(release.clips, groups, seed, max_clip_uses),
            "temporal_30s": plan_temporal(release.clips, release.classes, seed),
        }
    )


def without_clips(plan: Plan, keys: set[str]) -> Plan:
    """The plan less every row that uses one of `keys` (clips skipped for bad audio): the other rows
    stay exactly as planned, ids included, none is drawn again; `genre_hard` is taken again from
    the binary rows left, since the prior is fitted on them."""
    drawn = {
        config: [row for row in rows if not row_clips(row) & keys]
        for config, rows in plan.rows.items()
        if config != "genre_hard"
    }
    return _with_genre_hard(drawn)
