"""Seeded fuzzing of the grounding answer readers: 100,000 generated answers per reader.

Every answer is built from parts whose meaning the generator planted (which option each part
affirms or denies, whether it hedges, offers alternatives or leaves a negation's scope open); the
oracle combines those planted meanings with the readers' contract, without calling the readers'
code: one hedge, ambiguity or contradiction makes the answer unreadable (None); otherwise a choice
is the one option affirmed and not denied, a set is the candidates affirmed ("none", or every
candidate denied: the empty set). Checked on every case: no exception, no unreadable answer scored
as valid, no wrong value, every readable answer read, and no answer read as a refusal (none of these
families refuses: "I can't tell", "I can't hear the banjo" are a hedge and a denial).
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field

import numpy as np
import pytest

from symphony_bench.plugin.grounding.answers import (
    answer_refused,
    read_choice,
    read_instrument_set,
    read_letter,
    read_time_range,
    read_yes_no,
)

SEED = 20261201
CASES_PER_READER = 100_000  # the slow tier; the fast one reads FAST_CASES of them
FAST_CASES = 3_000

# the generator's own names for the 20 OpenMIC classes (synonyms, plurals, multi-word names)
NAMES = {
    "accordion": ["accordion", "accordions"],
    "banjo": ["banjo", "banjos", "Banjo"],
    "bass": [
        "bass",
        "double bass",
        "bass guitar",
        "upright bass",
        "electric bass",
        "basses",
        "bass guitars",
    ],
    "cello": ["cello", "cellos"],
    "clarinet": ["clarinet", "clarinets"],
    "cymbals": ["cymbals", "cymbal", "hi-hat", "hi hat", "ride cymbal"],
    "drums": ["drums", "drum kit", "drum set", "drum", "drumkit"],
    "flute": ["flute", "flutes"],
    "guitar": ["guitar", "guitars", "electric guitar", "acoustic guitar", "electric guitars"],
    "mallet_percussion": [
        "mallet percussion",
        "xylophone",
        "marimba",
        "vibraphone",
        "glockenspiel",
        "marimbas",
    ],
    "mandolin": ["mandolin", "mandolins"],
    "organ": ["organ", "pipe organ", "Hammond organ", "organs"],
    "piano": ["piano", "pianos", "grand piano"],
    "saxophone": ["saxophone", "sax", "saxophones"],
    "synthesizer": ["synthesizer", "synth", "synthesiser", "synths"],
    "trombone": ["trombone", "trombones"],
    "trumpet": ["trumpet", "trumpets"],
    "ukulele": ["ukulele", "ukuleles"],
    "violin": ["violin", "violins", "fiddle"],
    "voice": ["voice", "vocals", "singing", "voices", "singer"],
}
CLASSES = list(NAMES)
GROUPS = [
    ["guitar", "banjo", "mandolin", "ukulele"],
    ["drums", "cymbals", "mallet_percussion", "piano"],
    ["violin", "cello", "bass", "voice"],
    ["clarinet", "saxophone", "trumpet", "trombone"],
]

# ---- parts with a planted meaning ---------------------------------------------------------------
# A part names instruments through {a} / {b}; "+a" affirms a, "-a" denies it, "?a" leaves it open
# (affirmed or denied, depending on how a negation's scope is read), "?" makes the whole answer
# unreadable (hedge, double negation), "|" offers alternatives, "0" says "none".
AFFIRM = [
    "{a}",
    "the {a}",
    "It's the {a}",
    "I hear the {a}",
    "I can hear the {a} clearly",
    "the {a} is present",
    "the {a} is playing",
    "there is a {a}",
    "definitely the {a}",
    "the instrument is the {a}",
    "the {a} can be heard",
    "Clearly {a}",
    "{a} is audible",
    "I'd say the {a}",
]
DENY = [
    "not the {a}",
    "no {a}",
    "there is no {a}",
    "I don't hear the {a}",
    "I do not hear any {a}",
    "the {a} is not audible",
    "the {a} is absent",
    "the {a} isn't present",
    "without the {a}",
    "the {a} is missing",
    "I can't hear the {a}",
    "the {a} never plays",
    "there's no {a} here",
    "the {a} does not play",
    "I cannot hear a {a}",
]
HEDGE = [
    "maybe the {a}",
    "possibly the {a}",
    "the {a}, but I'm not sure",
    "I'm not certain it is the {a}",
    "I don't know",
    "it could be the {a}",
    "perhaps the {a}",
    "I can't tell",
    "hard to tell",
    "the {a}? I'm unsure",
    "I have no idea",
    "It's difficult to say",
    "I guess the {a}",
    "unclear",
]
DOUBLE_NEGATION = [
    "I don't hear no {a}",
    "the {a} is not absent",
    "there isn't no {a}",
    "the {a} is not missing",
]
NONE = [
    "none of them",
    "Nothing.",
    "no instruments",
    "none",
    "no instrument is present",
    "None of the candidates",
]
PAIRS = [  # (template, meaning[, meaning when a clause such as "I think" comes first in the same part])
    ("{a}, not {b}", "+a -b"),
    ("the {a}, not the {b}", "+a -b"),
    ("{a} but no {b}", "+a -b"),
    ("{a} without {b}", "+a -b"),
    ("not {b} but {a}", "+a -b"),
    ("not the {b} but the {a}", "+a -b"),
    ("I do not hear a {b}, only {a}", "+a -b"),
    ("I don't hear the {b}, just the {a}", "+a -b"),
    ("no {b}, only {a}", "+a -b"),
    ("the {a} (not the {b})", "+a -b"),
    ("{a} rather than {b}", "+a -b"),
    ("{a} instead of {b}", "+a -b"),
    ("I hear the {a} and no {b}", "+a -b"),
    ("{a}, and I don't hear any {b}", "+a -b"),
    ("the {b} is not audible; it is the {a}", "+a -b"),
    ("the {b} is absent, the {a} is present", "+a -b"),
    ("there is no {b} but there is a {a}", "+a -b"),
    ("neither {a} nor {b}", "-a -b"),
    ("neither the {a} nor the {b}", "-a -b"),
    ("I don't hear {a} or {b}", "-a -b"),
    ("I don't hear the {a} and the {b}", "-a -b"),
    ("the {a} and the {b} are not present", "-a -b"),
    ("the {a} and the {b} are absent", "-a -b"),
    ("no {a} or {b}", "-a -b"),
    ("there is no {a} and no {b}", "-a -b"),
    ("{a} and {b}", "+a +b"),
    ("both {a} and {b}", "+a +b"),
    ("{a}, {b}", "+a +b"),
    ("{a} as well as {b}", "+a +b"),
    ("{a} or {b}", "+a +b |"),
    ("either {a} or {b}", "+a +b |"),
    ("{a}/{b}", "+a +b |"),
    ("no {a}, {b}", "-a ?b"),
    ("not {a}, {b}", "-a ?b"),
    ("{a}, {b} are not present", "?a -b", "+a -b"),
    ("{a}, {b} is absent", "?a -b", "+a -b"),
    ("all of them except the {a}", "?"),
    # an and-list mixing a negation with another clause: the whole answer is unreadable
    ("no {a} and {b}", "?"),
    ("without {a} and {b}", "?"),
    ("I hear the {a} and the {b} is absent", "?"),
    ("there is no {a} and the {b} is playing", "?"),
    ("I don't hear the {a} and the {b} is playing", "?"),
]
SINGLES = (
    [(t, "+a") for t in AFFIRM]
    + [(t, "-a") for t in DENY]
    + [(t, "?") for t in HEDGE + DOUBLE_NEGATION]
)
HARD_JOINERS = [". ", "; ", "\n", " but ", ". Also, ", ". Actually, ", " because ", "! "]
WRAPPERS = [
    "{}",
    "**{}**",
    '"{}"',
    "Answer: {}",
    "The answer is {}",
    "Final answer: {}",
    "{}.",
    "{}!",
    "  {}  ",
    "I think {}",
    "In my opinion, {}",
    "{}\n",
]
CLAUSE_WRAPPERS = {
    "The answer is {}",
    "I think {}",
}  # a subject and verb before the answer's first part
CASES = [str, str.lower, str.upper, lambda s: s[:1].upper() + s[1:]]


@dataclass
class Meaning:
    """What an answer says, as planted: affirmed and denied options, and why it may be unreadable."""

    affirmed: set = field(default_factory=set)
    denied: set = field(default_factory=set)
    open: set = field(default_factory=set)
    unreadable: bool = False
    alternatives: bool = False
    none_said: bool = False

    def add(self, planted: str, roles: dict):
        for token in planted.split():
            if len(token) > 1:
                {"+": self.affirmed, "-": self.denied, "?": self.open}[token[0]].add(
                    roles[token[1:]]
                )
            self.unreadable |= token == "?"
            self.alternatives |= token == "|"
            self.none_said |= token == "0"

    def choice(self, options: list):
        """The option index an answer means under the readers' contract; None if unreadable."""
        affirmed = {options.index(o) for o in self.affirmed if o in options}
        denied = {options.index(o) for o in self.denied if o in options}
        if (
            self.unreadable
            or self.none_said
            or self.open & set(options)
            or len(affirmed) != 1
            or affirmed & denied
        ):
            return None
        return affirmed.pop()

    def chosen_set(self, options: list):
        affirmed = {options.index(o) for o in self.affirmed if o in options}
        denied = {options.index(o) for o in self.denied if o in options}
        if (
            self.unreadable
            or self.open & set(options)
            or self.alternatives
            or affirmed & denied
            or (affirmed and self.none_said)
        ):
            return None
        if affirmed:
            return affirmed
        return set() if self.none_said or len(denied) == len(options) else None


class Draw:
    """Random choices for n cases at once, from one seeded generator."""

    def __init__(self, seed: int, n: int):
        self.rng, self.n = np.random.default_rng(seed), n

    def index(self, size) -> np.ndarray:
        """One index per case below `size` (an int, or an array of per-case sizes)."""
        return (self.rng.random(self.n) * np.asarray(size)).astype(int)

    def pick(self, table: list) -> list:
        return [table[k] for k in self.index(len(table))]

    def chance(self, p: float) -> np.ndarray:
        return self.rng.random(self.n) < p

    def distinct(self, table: list, k: int) -> list[list]:
        """k distinct entries of the table per case (a random permutation's first k)."""
        order = self.rng.random((self.n, len(table))).argsort(axis=1)[:, :k]
        return [[table[j] for j in row] for row in order]


def name_of(draw: Draw, instruments: list) -> list[str]:
    """A random way to name each case's instrument."""
    return [
        NAMES[i][k]
        for i, k in zip(instruments, draw.index([len(NAMES[i]) for i in instruments]), strict=True)
    ]


def decorated(
    draw: Draw, texts: list[str], question: str, wrappers: list[str], cases=CASES
) -> list[str]:
    case_of, echo = draw.pick(cases), draw.chance(0.1)
    return [
        (question if e else "") + c(w.format(t))
        for t, w, c, e in zip(texts, wrappers, case_of, echo, strict=True)
    ]


def two_parts(
    draw: Draw, first: list[str], second: list[str], joiners=HARD_JOINERS
) -> tuple[list[str], np.ndarray]:
    joined, with_second = draw.pick(joiners), draw.chance(0.5)
    return [
        f"{a}{j}{b}" if w else a
        for a, b, j, w in zip(first, second, joined, with_second, strict=True)
    ], with_second


# ---- the five readers' cases ------------------------------------------------------------------
YES = [
    "yes",
    "yeah",
    "yep",
    "Yes, there is",
    "there is a {a}",
    "there's a {a} in the clip",
    "I can hear a {a}",
    "I hear the {a}",
    "the {a} is present",
    "the {a} is audible",
    "a {a} can be heard",
    "yes, I can hear it",
    "I think so",
    "the {a} plays",
    "true",
    "it is present",
    "yes it is",
]
NO = [
    "no",
    "nope",
    "No, there isn't",
    "no, there is no {a}",
    "there is no {a}",
    "there isn't a {a}",
    "I don't hear a {a}",
    "I do not hear any {a}",
    "I can't hear a {a}",
    "the {a} is not present",
    "the {a} isn't audible",
    "the {a} is absent",
    "no {a}",
    "I don't think so",
    "false",
    "not at all",
    "absolutely not",
    "the {a} is missing",
    "the {a} never plays",
    "{a}: not present",
    "it is not there",
    "No it is not",
    "No I don't",
    "there are no {a}",
]
NEUTRAL = ["based on the audio", "I listened carefully", "thank you", "let me think"]
# Parts that name one or two instruments: (template, meaning when the asked instrument is {a}, when
# it is {b}, when it is neither) - True yes, False no, "" nothing about the asked instrument, "?"
# unreadable. What an answer says of another instrument is no answer: it only says "no" when it says
# that only other instruments play.
EXCLUSIVE = [
    "I only hear the {a}",
    "only the {a} is playing",
    "just the {a}",
    "it's only the {a}",
    "nothing but the {a}",
    "the {a} and nothing else",
    "the {a} only",
    "the only instrument is the {a}",
    "I can only hear a {a}",
    "the {a}, no other instrument",
    "there is nothing but {a}",
]
LISTS = [
    ("I hear the {a} and the {b}", True, True, ""),
    ("the clip features a {a} and {b}", True, True, ""),
    ("the {a} and the {b} are playing", True, True, ""),
    ("I can hear {a}, {b}", True, True, ""),
    ("there is a {a} as well as a {b}", True, True, ""),
    ("both {a} and {b} are present", True, True, ""),
    ("I only hear the {a} and the {b}", True, True, False),
    ("only {a} and {b}", True, True, False),
    ("just the {a} and the {b}", True, True, False),
    ("nothing but {a} and {b}", True, True, False),
    ("I don't hear the {a} or the {b}", False, False, ""),
    ("neither the {a} nor the {b}", False, False, ""),
    ("no {a} or {b}", False, False, ""),
    ("there is no {a} or {b}", False, False, ""),
    ("I don't hear the {a} and the {b}", False, False, ""),
    ("the {a} and the {b} are absent", False, False, ""),
    ("there are no {a} and no {b}", False, False, ""),
    ("there is a {a} but no {b}", True, False, ""),
    ("I hear the {a} without the {b}", True, False, ""),
    ("there is a {a} (not a {b})", True, False, ""),
    ("the {b} is absent, the {a} is present", True, False, ""),
    ("no {b}, only {a}", True, False, False),
    ("I don't hear the {b}, just the {a}", True, False, False),
    ("{a} \u2713, {b} \u2717", True, False, ""),
    ("{a}: \u2705\n{b}: \u274c", True, False, ""),
    # which instrument a statement is about is not clear
    ("no {a} and {b}", False, "?", ""),
    ("no {a}, {b}", False, "?", ""),
    ("there is no {a} and the {b} is playing", False, "?", ""),
    ("the {a}, the {b} are absent", "?", False, ""),
    ("I hear the {a} or the {b}", "?", "?", ""),
    ("I don't hear the {a} and the {b} playing", "?", "?", "?"),
    ("{a} \u2713 {b} \u2717", "?", "?", "?"),
]
MARKED = [
    ("{a} \u2713", True),
    ("{a}: \u2714", True),
    ("\u2705 {a}", True),
    ("{a} \u274c", False),
    ("{a}: \u2717", False),
    ("\u274c {a}", False),
    ("\u2705", True),
    ("\u274c", False),
    ("\u2705 yes", True),
]
YES_NO_PARTS = (
    [(t, True, "", "") if "{a}" in t else (t, True, True, True) for t in YES]
    + [
        (t, False, "", "") if "{a}" in t and not t.startswith("no, ") else (t, False, False, False)
        for t in NO
    ]
    + [(t, "?", "?", "?") for t in HEDGE + DOUBLE_NEGATION]
    + [(t, "", "", "") for t in NEUTRAL]
    + [(t, True, False, False) for t in EXCLUSIVE]
    + [(t, m, "", "") if "{a}" in t else (t, m, m, m) for t, m in MARKED]
    + LISTS
)
# instruments that are no OpenMIC class: naming them is naming another instrument
OUTSIDE = ["tuba", "harp", "oboe", "French horn", "harmonica", "sitar", "bagpipes", "tambourine"]
YES_NO_JOINERS = [". ", ", ", "; ", " and ", " but ", "\n", "! ", " - "]
SUBPART_END = re.compile(r"[,:(\n]")
MARKS_AND_ARTICLES = re.compile(
    r"^(?:the |a |both )|[\u2713\u2714\u2717\u274c\u2705]| in the clip$"
)


def _bare(subpart: str) -> str:
    return MARKS_AND_ARTICLES.sub("", subpart.strip()).strip()


def yes_no_joiner(first: str, second: str, joiner: str) -> str:
    """The joiner, or a clause end where a list separator or "and" would make the two parts one
    list of names, or a label and its value ("drums, it is absent", "the drums and the piano is"):
    those readings are tested one by one in test_answers.py."""
    last, head = _bare(SUBPART_END.split(first)[-1]), SUBPART_END.split(second)[0]
    ends_with_name = last.endswith(("{a}", "{b}"))
    if joiner == " and " and ends_with_name and _bare(second).startswith(("{a}", "{b}")):
        return ". "
    if joiner in (", ", " - ") and (
        _bare(head) in ("{a}", "{b}") or (ends_with_name and "{" not in head)
    ):
        return "; "
    return joiner


def yes_no_cases(n: int, seed: int):
    draw = Draw(seed, n)
    asked = draw.pick(CLASSES)
    others = [draw.distinct([c for c in CLASSES], 3) for _ in range(2)]
    outside = [draw.pick(OUTSIDE), draw.pick(OUTSIDE)]
    use_outside = [draw.chance(0.15), draw.chance(0.15)]
    parts = [draw.pick(YES_NO_PARTS), draw.pick(YES_NO_PARTS)]
    roles = [draw.pick(["a", "a", "b", "-", "-"]), draw.pick(["a", "a", "b", "-", "-"])]
    asked_names = name_of(draw, asked)
    name_draws = draw.rng.random((n, 2, 2))
    joiners, with_second = draw.pick(YES_NO_JOINERS), draw.chance(0.5)
    texts, expected = [], []
    for row in range(n):
        rendered, meanings, named_asked, named_other = [], [], False, False
        for k in range(2 if with_second[row] else 1):
            template, *meaning = parts[k][row]
            role = roles[k][row]
            pool = [c for c in others[k][row] if c != asked[row]][:2]
            names = {}
            for slot, j in (("a", 0), ("b", 1)):
                if role == slot:
                    names[slot] = asked_names[row]
                elif use_outside[k][row] and j == 0:
                    names[slot] = outside[k][row]
                else:
                    choices = NAMES[pool[j]]
                    names[slot] = choices[int(name_draws[row, k, j] * len(choices))]
            rendered.append(template.format(**names))
            if "{a}" not in template and "{b}" not in template:
                meanings.append(meaning[0])
                continue
            asked_slot = role if "{" + role + "}" in template else "-"
            meanings.append(meaning["ab-".index(asked_slot)])
            named_asked |= asked_slot != "-"
            named_other |= any("{" + slot + "}" in template and slot != asked_slot for slot in "ab")
        text = rendered[0]
        if len(rendered) == 2:
            text += yes_no_joiner(parts[0][row][0], parts[1][row][0], joiners[row]) + rendered[1]
        texts.append(text)
        votes = {m for m in meanings if isinstance(m, bool)}
        if "?" in meanings:
            expected.append(None)
        elif named_other and not named_asked:  # only other instruments named: never yes
            expected.append(False if votes == {False} else None)
        else:
            expected.append(votes.pop() if len(votes) == 1 else None)
    questions = [f"Is there a {name} in this audio clip? " for name in name_of(draw, asked)]
    case_of, echo, wrappers = draw.pick(CASES), draw.chance(0.1), draw.pick(WRAPPERS)
    texts = [
        (q if e else "") + c(w.format(t))
        for t, w, c, e, q in zip(texts, wrappers, case_of, echo, questions, strict=True)
    ]
    return texts, asked, expected


def option_parts(
    draw: Draw, roles: list[dict], singles=SINGLES
) -> tuple[list[str], list[str], list[str]]:
    """A single-instrument part or a two-instrument part with its roles filled in, its planted
    meaning, and its meaning when a clause ("I think") comes first."""
    affirming = [
        entry for entry in singles if entry[1] == "+a"
    ] * 2  # weighted: most answers name something
    chosen = draw.pick(singles + affirming + PAIRS + [(t, "0") for t in NONE])
    names = {role: name_of(draw, [r[role] for r in roles]) for role in "ab"}
    texts = [
        entry[0].format(a=a, b=b)
        for entry, a, b in zip(chosen, names["a"], names["b"], strict=True)
    ]
    return texts, [entry[1] for entry in chosen], [entry[-1] for entry in chosen]


def choice_roles(draw: Draw) -> tuple[list[list[str]], list[dict]]:
    """Two candidates (a group's or any two classes), in random order; parts name either or a third."""
    grouped, group_pick, in_group, anywhere = (
        draw.chance(0.6),
        draw.pick(GROUPS),
        draw.distinct(range(4), 2),
        draw.distinct(CLASSES, 4),
    )
    triples = []
    for g, grouped_case, pair, other in zip(group_pick, grouped, in_group, anywhere, strict=True):
        first, second = (g[pair[0]], g[pair[1]]) if grouped_case else other[:2]
        third = next(c for c in other if c not in (first, second))
        triples.append([first, second, third])
    roles = [
        {"a": t[k], "b": t[j]}
        for t, k, j in zip(triples, draw.index(3), draw.index(3), strict=True)
    ]
    return [t[:2] for t in triples], roles


def choice_by_name_cases(n: int, seed: int):
    draw = Draw(seed, n)
    candidates, roles = choice_roles(draw)
    second_roles = [{"a": r["b"], "b": r["a"]} for r in roles]
    first, planted_first, after_clause = option_parts(draw, roles)
    second, planted_second, _ = option_parts(draw, second_roles)
    joined, with_second = two_parts(draw, first, second)
    wrappers = draw.pick(WRAPPERS)
    expected = []
    for c, r, r2, p1, p1_after_clause, p2, both, wrapper in zip(
        candidates,
        roles,
        second_roles,
        planted_first,
        after_clause,
        planted_second,
        with_second,
        wrappers,
        strict=True,
    ):
        meaning = Meaning()
        meaning.add(p1_after_clause if wrapper in CLAUSE_WRAPPERS else p1, r)
        if both:
            meaning.add(p2, r2)
        expected.append(meaning.choice(c))
    shown = [[name.replace("_", " ") for name in c] for c in candidates]
    return (
        decorated(draw, joined, "Which instrument is present in this audio clip? ", wrappers),
        shown,
        expected,
    )


# a bare lowercase "a" followed by a word is the article ("a because"): it is tested on its own elsewhere
LETTER_AFFIRM = [
    "{L}",
    "{L}.",
    "({L})",
    "{L})",
    "Option {L}",
    "option {L}",
    "Answer: {L}",
    "The answer is {L}",
    "I choose {L}",
    "**{L}**",
    "{L}:",
    "Letter {L}",
    "The correct answer is ({L})",
    "{l}.",
    "({l})",
    "option {l}",
]
LETTER_DENY = ["not {L}", "{L} is wrong", "{L} is incorrect", "it is not {L}", "definitely not {L}"]
LETTER_ONLY = [
    "A or B",
    "A and B",
    "A/B",
    "Either A or B",
    "A. {x} B. {y}",
    "{L}, maybe {M}",
    "Not sure, {L}",
]
SOFT_JOINERS = [", ", ": ", " - ", " ("]  # list separators: safe only after a plain letter


def letter_part(draw: Draw, candidates: list[list[str]]) -> tuple[list[str], list[str], list[bool]]:
    """The letter part of an answer, its planted meaning over the candidates, whether it is a plain letter."""
    kind, letter, article = draw.index(4), draw.index(2), draw.chance(0.5)
    affirm, deny, other = draw.pick(LETTER_AFFIRM), draw.pick(LETTER_DENY), draw.pick(LETTER_ONLY)
    article_name = name_of(draw, [c[k] for c, k in zip(candidates, letter, strict=True)])
    articles = draw.pick(["A {n}", "a {n}"])
    texts, planted = [], []
    for c, kd, k, af, de, ot, an, ar in zip(
        candidates, kind, letter, affirm, deny, other, article_name, articles, strict=True
    ):
        big, small, other_big = "AB"[k], "ab"[k], "BA"[k]
        if kd <= 1:
            texts.append(af.format(L=big, l=small))
            planted.append(f"+{k}")
        elif kd == 2:
            texts.append(de.format(L=big))
            planted.append(f"-{k}")
        elif ot.startswith("A. {x}"):
            texts.append(ot.format(x=c[0].replace("_", " "), y=c[1].replace("_", " ")))
            planted.append("+0 +1")
        elif "{" in ot or article[len(texts)]:
            texts.append(ot.format(L=big, M=other_big))
            planted.append("?" if "maybe" in ot or "sure" in ot else "+0 +1")
        else:
            texts.append(ar.format(n=an))
            planted.append(f"+{k}")  # "A banjo": the article, naming the banjo (option k)
    return texts, planted, list(kind <= 1)


def letter_cases(n: int, seed: int):
    draw = Draw(seed, n)
    candidates, roles = choice_roles(draw)
    letters, planted_letters, affirms = letter_part(draw, candidates)
    explanation, planted_explanation, after_clause = option_parts(
        draw, roles, singles=[s for s in SINGLES if "{a}?" not in s[0]]
    )
    hard, soft = (
        draw.pick([", because ", " because ", ". ", "; ", " since ", "\n", ". I think "]),
        draw.pick(SOFT_JOINERS),
    )
    with_explanation, use_soft = draw.chance(0.6), draw.chance(0.4)
    texts, expected = [], []
    for c, r, lt, pl, af, ex, pe, pc, h, s, w, us in zip(
        candidates,
        roles,
        letters,
        planted_letters,
        affirms,
        explanation,
        planted_explanation,
        after_clause,
        hard,
        soft,
        with_explanation,
        use_soft,
        strict=True,
    ):
        meaning = Meaning()
        positions = {"0": c[0], "1": c[1]}
        meaning.add(pl, positions)
        text = lt
        if w:
            joiner = (
                s if us and af else h
            )  # a list separator only after a plain letter ("A: the banjo")
            text = f"{lt}{joiner}{ex}" + (")" if joiner == " (" else "")
            meaning.add(pc if joiner == ". I think " else pe, r)
        texts.append(text)
        expected.append(meaning.choice(c))
    shown = [[name.replace("_", " ") for name in c] for c in candidates]
    question = "Which instrument is present in this audio clip? "
    return (
        decorated(draw, texts, question, draw.pick(WRAPPERS), CASES[:1] + CASES[2:]),
        shown,
        expected,
    )


RANGE_FORMATS = [
    "{s}-{e} seconds",
    "{s}\u2013{e} s",
    "{s} to {e} seconds",
    "from {s}s to {e}s",
    "between {s} and {e} seconds",
    "{s} seconds to {e} seconds",
    "00:{s:02d}-00:{e:02d}",
    "0:{s:02d} - 0:{e:02d}",
    "{s}s-{e}s",
    "{s}-{e} sec",
    "{s}-{e}s",
    "[{s}-{e}]",
    "{sw} to {ew} seconds",
    "{s}.0-{e}.0 seconds",
    "{s} \u2014 {e} seconds",
]
WORDS = {
    0: "zero",
    5: "five",
    10: "ten",
    15: "fifteen",
    20: "twenty",
    25: "twenty-five",
    30: "thirty",
    35: "thirty five",
    40: "forty",
}
ORDINALS = [
    [
        "the first range",
        "the first 10 seconds",
        "the beginning",
        "the first segment",
        "segment 1",
        "the start",
        "the first ten seconds",
        "the 1st range",
        "the opening range",
    ],
    [
        "the second range",
        "the middle",
        "the middle segment",
        "segment 2",
        "the second 10-second segment",
        "the 2nd range",
        "the middle ten seconds",
    ],
    [
        "the last range",
        "the third segment",
        "the end",
        "the last ten seconds",
        "the final range",
        "segment 3",
        "the 3rd range",
        "the closing 10 seconds",
    ],
]
OTHER_RANGES = [(5, 15), (0, 30), (25, 35), (15, 25), (0, 20), (10, 30), (30, 40), (0, 5)]
TIME_AFFIRM = [
    "{r}",
    "the {i} is heard at {r}",
    "it plays during {r}",
    "in {r}",
    "{r} is when the {i} plays",
    "I hear it in {r}",
    "the {i} appears in {r}",
    "{r} (the {i})",
    "{r} \u2713",
    "\u2705 {r}",
    "{r}: \u2714",
]
TIME_DENY = [
    "not {r}",
    "not in {r}",
    "it is not heard in {r}",
    "the {i} is absent from {r}",
    "there is no {i} in {r}",
    "{r} \u2717",
    "\u274c {r}",
    "{r}: \u274c",
    "{r} (no)",
]
# a range in another unit than seconds is no range of a 30-second clip
TIME_OTHER_UNITS = [
    "{s}-{e} minutes",
    "{s} to {e} min",
    "{s}-{e} mins",
    "{s}-{e} ms",
    "between {s} and {e} milliseconds",
    "{s}-{e} hours",
    "{s}\u2013{e} h",
    "from {s} min to {e} min",
    "the first {e} minutes",
]
TIME_UNREADABLE = [
    "the second half",
    "throughout the clip",
    "the whole clip",
    "the first half",
    "maybe {r}",
    "I can't tell",
    "it could be {r}",
    "{r}, but I'm not sure",
]
TIME_PAIRS = [
    ("{r}, not {q}", "+r -q"),
    ("not {q} but {r}", "+r -q"),
    ("{r} rather than {q}", "+r -q"),
    ("not {q}, {r}", "-q ?r"),
    ("{r} or {q}", "+r +q"),
    ("{r} and {q}", "+r +q"),
    ("{r} ({o})", "+r +r"),
]


def time_text(k: int, style: int, word: int) -> str:
    """Range k (0-2, or 3+ for another range) written one of many ways."""
    if k < 3 and style % 3 == 0:
        return ORDINALS[k][word % len(ORDINALS[k])]
    start, end = (10 * k, 10 * k + 10) if k < 3 else OTHER_RANGES[k - 3]
    form = RANGE_FORMATS[style % len(RANGE_FORMATS)]
    if "{sw}" in form:
        return form.format(sw=WORDS[start], ew=WORDS[end])
    return form.format(s=start, e=end)


def time_part(draw: Draw, gold: np.ndarray, other: np.ndarray) -> tuple[list[str], list[str]]:
    kind = draw.index(10)
    styles, words = [draw.index(45) for _ in range(3)], [draw.index(9) for _ in range(3)]
    affirm, deny, unreadable, pair = (
        draw.pick(TIME_AFFIRM),
        draw.pick(TIME_DENY),
        draw.pick(TIME_UNREADABLE + TIME_OTHER_UNITS),
        draw.pick(TIME_PAIRS),
    )
    instrument = name_of(draw, draw.pick(CLASSES))
    texts, planted = [], []
    for n, (kd, g, o, i) in enumerate(zip(kind, gold, other, instrument, strict=True)):
        r, q = time_text(g, styles[0][n], words[0][n]), time_text(o, styles[1][n], words[1][n])
        ordinal = (
            ORDINALS[g][words[2][n] % len(ORDINALS[g])]
            if g < 3
            else time_text(g, styles[2][n], words[2][n])
        )
        if kd <= 4:
            texts.append(affirm[n].format(r=r, i=i))
            planted.append(f"+{g}")
        elif kd == 5:
            texts.append(deny[n].format(r=r, i=i))
            planted.append(f"-{g}")
        elif kd == 6:
            start, end = (10 * g, 10 * g + 10) if g < 3 else OTHER_RANGES[g - 3]
            texts.append(unreadable[n].format(r=r, q=q, s=start, e=end))
            planted.append("?")
        else:
            template, meaning = pair[n]
            texts.append(template.format(r=r, q=q, o=ordinal))
            planted.append(meaning.replace("r", str(g)).replace("q", str(o)))
    return texts, planted


def time_range_cases(n: int, seed: int):
    draw = Draw(seed, n)
    gold = np.where(draw.chance(0.9), draw.index(3), 3 + draw.index(len(OTHER_RANGES)))
    other = np.where(draw.chance(0.8), draw.index(3), 3 + draw.index(len(OTHER_RANGES)))
    first, planted_first = time_part(draw, gold, other)
    second, planted_second = time_part(draw, other, gold)
    joined, with_second = two_parts(draw, first, second)
    positions = {str(k): k for k in range(3 + len(OTHER_RANGES))}
    expected = []
    for p1, p2, both in zip(planted_first, planted_second, with_second, strict=True):
        meaning = Meaning()
        meaning.add(p1, positions)
        if both:
            meaning.add(p2, positions)
        expected.append(meaning.choice(list(range(3 + len(OTHER_RANGES)))))
    expected = [None if e is not None and e >= 3 else e for e in expected]
    return (
        decorated(draw, joined, "Where is the target instrument heard? ", draw.pick(WRAPPERS)),
        [()] * n,
        expected,
    )


LIST_SEPARATORS = [", ", " and ", "; ", "\n- ", " & ", " plus ", ", "]
LIST_FRAMES = [
    "{list}",
    "I hear {list}",
    "the instruments present are {list}",
    "{list} are present",
    "present: {list}",
    "I can hear {list}",
    "there are {list}",
    "- {list}",
]
SET_DENIALS = [
    ("no {a}", "-a"),
    ("not {a}", "-a"),
    ("there is no {a}", "-a"),
    ("{a} is absent", "-a"),
    ("without {a}", "-a"),
    ("no {a} or {b}", "-a -b"),
    ("neither {a} nor {b}", "-a -b"),
    ("I don't hear {a} or {b}", "-a -b"),
    ("{a} and {b} are not present", "-a -b"),
    ("no {a}, no {b}", "-a -b"),
    ("I don't hear {a}, {b}", "-a ?b"),
    ("no {a}, {b}", "-a ?b"),
    ("{a} or {b}, maybe", "?"),
    ("{a}, {b} are absent", "?a -b"),
]
SET_NONE = [
    "None",
    "None of them",
    "no instruments",
    "Nothing.",
    "None of the candidates are present",
    "No instruments are present",
    "There are no instruments",
]
# a checklist: every candidate listed with a mark (present ticked, absent crossed), or a mark whose
# meaning is not clear (the whole answer is unreadable)
SET_TICKED = [
    "{n} \u2713",
    "{n}: \u2713",
    "\u2713 {n}",
    "{n} \u2714\ufe0f",
    "{n} \u2705",
    "{n}: yes",
    "{n} (yes)",
    "\u2714 {n}",
]
SET_CROSSED = [
    "{n} \u2717",
    "{n}: \u2717",
    "\u2717 {n}",
    "{n} \u274c",
    "\u274c {n}",
    "{n}: no",
    "{n} (no)",
    "{n} x",
    "{n}: X",
    "{n} \u2718",
]
SET_UNCLEAR = ["\u2610 {n}", "[x] {n}", "{n} \u2606", "{n} [ ]", "{n} \u2b55", "{n} \u2713\u2717"]
CHECKLIST_SEPARATORS = [", ", "\n", "; ", "\n- ", ". "]
SET_JOINERS = [". ", "; ", " but ", ", but ", "\n", ". However, "]


def set_listing(names_of: dict, present: list, separator: str, frame: str) -> str:
    if separator == "\n- ":
        return "- " + "\n- ".join(names_of[p] for p in present)
    return frame.format(list=separator.join(names_of[p] for p in present))


def instrument_set_cases(n: int, seed: int):
    draw = Draw(seed, n)
    groups = draw.pick(GROUPS)
    candidates = [
        [g[j] for j in order] for g, order in zip(groups, draw.distinct(range(4), 4), strict=True)
    ]
    present_mask = draw.rng.random((n, 4)) < 0.45
    kinds, separators, frames = draw.index(8), draw.pick(LIST_SEPARATORS), draw.pick(LIST_FRAMES)
    denials, nones, joiners = draw.pick(SET_DENIALS), draw.pick(SET_NONE), draw.pick(SET_JOINERS)
    outsider = draw.pick([c for c in CLASSES if not any(c in g for g in GROUPS)])
    name_draws = draw.rng.random((n, 5))
    checklist, listed_mask, unclear = (
        draw.chance(0.15),
        draw.rng.random((n, 4)) < 0.85,
        draw.chance(0.1),
    )
    mark_draws, checklist_separators = draw.rng.random((n, 4)), draw.pick(CHECKLIST_SEPARATORS)
    texts, expected = [], []
    for row in range(n):
        options = [str(c) for c in candidates[row]]
        names_of = {
            c: NAMES[c][int(name_draws[row, k] * len(NAMES[c]))] for k, c in enumerate(options)
        }
        present = [c for c, p in zip(options, present_mask[row], strict=True) if p]
        absent = [c for c in options if c not in present]
        meaning = Meaning(affirmed=set(present))
        text = (
            set_listing(names_of, present, separators[row], frames[row]) if present else nones[row]
        )
        meaning.none_said = not present
        kind = kinds[row]
        if kind <= 2 and absent:  # deny one or two of the absent candidates
            template, planted = denials[row]
            a, b = absent[0], absent[-1]
            text += joiners[row] + template.format(a=names_of[a], b=names_of[b])
            meaning.add(planted, {"a": a, "b": b})
        elif kind == 3 and present:  # contradiction: a listed instrument denied
            text += joiners[row] + f"no {names_of[present[0]]}"
            meaning.denied.add(present[0])
        elif kind == 4 and absent and present:  # alternatives
            text += f" or {names_of[absent[0]]}"
            meaning.affirmed.add(absent[0])
            meaning.alternatives = True
        elif kind == 5:  # an instrument that is not a candidate
            text += f" and some {NAMES[outsider[row]][0]}"
        elif kind == 6 and not present:  # every candidate denied instead of "none"
            text = "neither " + " nor ".join(names_of[c] for c in options)
            meaning = Meaning(denied=set(options))
        if checklist[row]:
            listed = [c for c, keep in zip(options, listed_mask[row], strict=True) if keep]
            lines = []
            for k, c in enumerate(listed or options[:1]):
                table = SET_TICKED if c in present else SET_CROSSED
                if unclear[row] and k == 0:
                    table = SET_UNCLEAR
                lines.append(table[int(mark_draws[row, k] * len(table))].format(n=names_of[c]))
            text = checklist_separators[row].join(lines)
            listed = listed or options[:1]
            meaning = Meaning(
                affirmed={c for c in listed if c in present},
                denied={c for c in listed if c not in present},
                unreadable=bool(unclear[row]),
            )
        texts.append(text)
        expected.append(meaning.chosen_set(options))
    shown = [[c.replace("_", " ") for c in options] for options in candidates]
    return (
        decorated(
            draw, texts, "Which instruments are present in this audio clip? ", draw.pick(WRAPPERS)
        ),
        shown,
        expected,
    )


READERS = {
    "yes_no": (yes_no_cases, read_yes_no),  # the option: the instrument asked about
    "choice_by_name": (choice_by_name_cases, read_choice),
    "letter": (letter_cases, read_letter),
    "time_range": (time_range_cases, lambda text, options: read_time_range(text)),
    "instrument_set": (instrument_set_cases, read_instrument_set),
}


@pytest.mark.slow  # a fuzzer: 100,000 seeded answers per reader
@pytest.mark.parametrize("name", list(READERS))
def test_readers_never_score_a_wrong_answer(name):
    check_reader(name, CASES_PER_READER)


@pytest.mark.parametrize("name", list(READERS))
def test_readers_never_score_a_wrong_answer_fast(name):
    check_reader(name, FAST_CASES)


def check_reader(name: str, n: int):
    generate, read = READERS[name]
    start = time.perf_counter()
    texts, options, expected = generate(n, SEED)
    generated = time.perf_counter()
    exceptions, invalid_scored, wrong, unread = [], [], [], []
    for text, offered, want in zip(texts, options, expected, strict=True):
        try:
            got = read(text, offered)
        except Exception as error:  # noqa: BLE001 - counted and shown, never raised
            exceptions.append((text, repr(error)))
            continue
        if want is None and got is not None:
            invalid_scored.append((text, offered, got))
        elif want is not None and got is None:
            unread.append((text, offered, want))
        elif got != want:
            wrong.append((text, offered, want, got))
    readable = sum(e is not None for e in expected)
    refused = [text for text in texts if answer_refused(text)]
    print(
        f"\n{name}: {len(texts):,} answers ({len(set(texts)):,} distinct), {readable / len(texts):.1%} readable by "
        f"the oracle, read {(readable - len(unread)) / max(readable, 1):.2%} of those; exceptions {len(exceptions)}, "
        f"invalid scored {len(invalid_scored)}, wrong {len(wrong)}, refused {len(refused)}; generated in "
        f"{generated - start:.2f} s, "
        f"read in {time.perf_counter() - generated:.2f} s"
    )
    assert len(texts) >= n
    assert not exceptions, exceptions[:5]
    assert not invalid_scored, invalid_scored[:10]
    assert not wrong, wrong[:10]
    assert not unread, unread[:10]
    assert not refused, refused[:10]
    assert 0.2 < readable / len(texts) < 0.8  # both readable and unreadable answers are exercised
