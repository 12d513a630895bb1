"""Seeded fuzzing of the grounding readers on negations and refusals, truth known by construction.

Negations: a model denies an instrument in many words ("I am unable to detect a piano", "I failed
to hear any piano", "Nowhere do I hear a piano", "There is hardly any piano", "I'd be surprised if
there were a piano"...). Asked about that instrument, yes/no reads no; the other readers read the
denial as a denial (a set leaves the instrument out, a choice takes the option affirmed beside it).

Refusals: a model declines the task or says the audio never reached it ("I can't help with that",
"As a text-only model, I cannot listen to audio", "No audio."). Every reader reads no answer, and
`answer_refused` says it is a refusal; a bare "no" or "none" beside a refusal is the refusal's. A
refusal beside a statement about the asked instrument ("I can't process audio, but there is no
piano") is read as that statement; and answers that look like refusals but are not ("Yes, I can hear
a piano", "I can't help but hear a piano", "I can't hear a piano") are never refusals.
"""

from __future__ import annotations

import time

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

SEED = 20261207
CASES = 6_000  # per family and reader: a few seconds in all

# the generator's own names for some OpenMIC classes (synonyms, plurals, multi-word names)
NAMES = {
    "piano": ["piano", "grand piano", "pianos", "keys"],
    "guitar": ["guitar", "electric guitar", "acoustic guitar", "guitars"],
    "banjo": ["banjo", "banjos"],
    "mandolin": ["mandolin", "mandolins"],
    "ukulele": ["ukulele", "uke"],
    "drums": ["drums", "drum kit", "drum set"],
    "cymbals": ["cymbals", "hi-hat", "ride cymbal"],
    "mallet_percussion": ["mallet percussion", "xylophone", "marimba"],
    "violin": ["violin", "fiddle", "violins"],
    "cello": ["cello", "cellos"],
    "bass": ["double bass", "bass guitar", "upright bass"],
    "voice": ["vocals", "singing", "voice"],
    "saxophone": ["saxophone", "sax"],
    "trumpet": ["trumpet", "trumpets"],
    "flute": ["flute", "flutes"],
    "organ": ["organ", "Hammond organ"],
}
CLASSES = list(NAMES)
GROUPS = [
    ["guitar", "banjo", "mandolin", "ukulele"],
    ["drums", "cymbals", "mallet_percussion", "piano"],
    ["violin", "cello", "bass", "voice"],
]

# ---- negations ------------------------------------------------------------------------------------
# {v} a verb of perceiving, {d} a determiner, {a} the instrument denied
VERBS = [
    "hear",
    "detect",
    "identify",
    "find",
    "notice",
    "pick out",
    "make out",
    "spot",
    "discern",
    "perceive",
    "recognize",
]
DETERMINERS = ["a ", "any ", "the ", "a single ", ""]
NEGATIONS = [
    # unable / not able / could not
    "I am unable to {v} {d}{a}",
    "I'm unable to {v} {d}{a}",
    "I was unable to {v} {d}{a}",
    "We are unable to {v} {d}{a}",
    "Unable to {v} {d}{a}",
    "I'm not able to {v} {d}{a}",
    "I have not been able to {v} {d}{a}",
    "I could not {v} {d}{a}",
    "I can't {v} {d}{a}",
    "I cannot {v} {d}{a}",
    "I'm sorry, but I can't {v} {d}{a}",
    "Unfortunately, I cannot {v} {d}{a}",
    "I didn't manage to {v} {d}{a}",
    # failed
    "I failed to {v} {d}{a}",
    "I fail to {v} {d}{a}",
    "The clip fails to include {d}{a}",
    # nowhere
    "Nowhere do I {v} {d}{a}",
    "Nowhere in the clip is there {d}{a}",
    "The {a} is nowhere to be heard",
    "The {a} is nowhere to be found",
    "{d}{a} is nowhere in this recording",
    # hardly / barely / scarcely any
    "There is hardly any {a}",
    "I can hardly {v} any {a}",
    "There's barely any {a} in the clip",
    "Scarcely any {a} can be heard",
    # no sign / trace / hint of
    "There is no sign of {d}{a}",
    "No trace of {d}{a}",
    "I see no evidence of {d}{a}",
    "There's no hint of {d}{a} here",
    "No indication of {d}{a} at all",
    "At no point do I {v} {d}{a}",
    "Not a single {a} can be heard",
    "The clip is devoid of {d}{a}",
    # doubt and surprise
    "I'd be surprised if there were {d}{a}",
    "I would be surprised if there was {d}{a} in this clip",
    "I'd be very surprised to {v} {d}{a}",
    "It would surprise me if there were {d}{a}",
    "I doubt there is {d}{a}",
    "I really doubt that there's {d}{a}",
    "It's unlikely that there is {d}{a}",
    "It is highly unlikely there's {d}{a}",
    # not audible, impossible to hear
    "The {a} is inaudible",
    "{d}{a} is undetectable here",
    "It is impossible to {v} {d}{a}",
]
NEGATION_TAILS = ["", ".", " in this clip.", " at all.", " in the audio.", " anywhere.", "!"]
CASINGS = [str, str.lower, str.upper, lambda s: s[:1].upper() + s[1:]]
WRAPPERS = ["{}", "**{}**", "Answer: {}", "{}\n", '"{}"', "Hmm. {}", "After listening, {}"]


class Draw:
    """Random choices for n cases at once, from one seeded generator."""

    def __init__(self, seed: int, n: int):
        self.rng, self.n = np.random.default_rng(seed), n

    def pick(self, table: list) -> list:
        return [table[k] for k in (self.rng.random(self.n) * len(table)).astype(int)]

    def names(self, classes: list[str]) -> list[str]:
        return [NAMES[c][int(self.rng.random() * len(NAMES[c]))] for c in classes]

    def others(self, asked: list[str], k: int = 1) -> list[list[str]]:
        return [[c for c in self.rng.permutation(CLASSES) if c != a][:k] for a in asked]


def negations(draw: Draw, denied_names: list[str]) -> list[str]:
    """One negation of each named instrument."""
    templates, verbs, determiners, tails = (
        draw.pick(NEGATIONS),
        draw.pick(VERBS),
        draw.pick(DETERMINERS),
        draw.pick(NEGATION_TAILS),
    )
    return [
        t.format(v=v, d=d, a=a) + tail
        for t, v, d, a, tail in zip(templates, verbs, determiners, denied_names, tails, strict=True)
    ]


def decorated(draw: Draw, texts: list[str]) -> list[str]:
    return [
        w.format(c(t))
        for t, w, c in zip(texts, draw.pick(WRAPPERS), draw.pick(CASINGS), strict=True)
    ]


def yes_no_negation_cases(n: int, seed: int):
    """Negations of the asked instrument, alone or beside a "no" or other instruments: no."""
    draw = Draw(seed, n)
    asked = draw.pick(CLASSES)
    other_names = draw.names([o[0] for o in draw.others(asked)])
    leads = draw.pick(
        ["", "", "No. ", "No, ", "Nope - ", "Sorry, ", "I listened carefully. ", "OTHER", "ONLY"]
    )
    texts = []
    for lead, other, negation in zip(
        leads, other_names, negations(draw, draw.names(asked)), strict=True
    ):
        if lead == "OTHER":
            lead = f"I hear {other}, but "
        elif lead == "ONLY":
            lead = f"Only {other} here. "
        texts.append(lead + negation)
    return decorated(draw, texts), asked, [False] * n


def set_negation_cases(n: int, seed: int):
    """The present candidates listed (or "none"), an absent one denied in words: the present ones."""
    draw = Draw(seed, n)
    candidates = [list(draw.rng.permutation(g)) for g in draw.pick(GROUPS)]
    present = draw.rng.random((n, 4)) < 0.4
    present[:, 0] |= present.sum(axis=1) == 4  # at least one absent
    present[:, 0] &= present.sum(axis=1) < 4
    joiners = draw.pick([". ", "; ", " but ", "\n", ". However, "])
    texts, expected, absent_names = [], [], []
    for options, mask in zip(candidates, present, strict=True):
        absent = [c for c, p in zip(options, mask, strict=True) if not p]
        absent_names.append(draw.names([absent[int(draw.rng.random() * len(absent))]])[0])
    denials = negations(draw, absent_names)
    for options, mask, joiner, denial in zip(candidates, present, joiners, denials, strict=True):
        listed = [NAMES[c][0] for c, p in zip(options, mask, strict=True) if p]
        head = f"I hear {', '.join(listed)}" if listed else "None"
        texts.append(f"{head}{joiner}{denial}")
        expected.append({k for k, p in enumerate(mask) if p})
    shown = [[c.replace("_", " ") for c in options] for options in candidates]
    return decorated(draw, texts), shown, expected


def choice_negation_cases(n: int, seed: int):
    """One candidate affirmed, the other denied in words (or a third instrument): the first."""
    draw = Draw(seed, n)
    pairs = [list(draw.rng.permutation(g)[:2]) for g in draw.pick(GROUPS)]
    gold = (draw.rng.random(n) < 0.5).astype(int)
    denied = draw.names([p[1 - g] for p, g in zip(pairs, gold, strict=True)])
    affirmed = draw.names([p[g] for p, g in zip(pairs, gold, strict=True)])
    order, joiners = draw.rng.random(n) < 0.5, draw.pick([". ", "; ", " but ", "\n"])
    texts = [
        f"It's the {a}{j}{d}" if first else f"{d}{j}It's the {a}"
        for a, d, j, first in zip(affirmed, negations(draw, denied), joiners, order, strict=True)
    ]
    shown = [[c.replace("_", " ") for c in p] for p in pairs]
    return decorated(draw, texts), shown, list(gold)


def letter_negation_cases(n: int, seed: int):
    """A letter, explained by a denial of the other option in words: the letter."""
    draw = Draw(seed, n)
    pairs = [list(draw.rng.permutation(g)[:2]) for g in draw.pick(GROUPS)]
    gold = (draw.rng.random(n) < 0.5).astype(int)
    denied = draw.names([p[1 - g] for p, g in zip(pairs, gold, strict=True)])
    letters = draw.pick(["{L}", "{L}.", "({L})", "Option {L}", "The answer is {L}."])
    joiners = draw.pick([", because ", ". ", "; ", "\n", " since "])
    texts = [
        letter.format(L="AB"[g]) + j + d
        for letter, g, j, d in zip(letters, gold, joiners, negations(draw, denied), strict=True)
    ]
    shown = [[c.replace("_", " ") for c in p] for p in pairs]
    return texts, shown, list(gold)


RANGES = [
    ["0-10 seconds", "the first range", "0:00-0:10", "the first 10 seconds", "0 to 10 s"],
    ["10-20 seconds", "the middle", "00:10-00:20", "the second range", "10 to 20 s"],
    ["20-30 seconds", "the last range", "0:20-0:30", "the final 10 seconds", "20 to 30 s"],
]
TIME_NEGATIONS = [
    "I am unable to {v} the {i} in {q}",
    "I failed to {v} the {i} during {q}",
    "the {i} is nowhere to be heard in {q}",
    "there is hardly any {i} in {q}",
    "there is no sign of the {i} in {q}",
    "I'd be surprised if the {i} played in {q}",
    "the {i} is inaudible in {q}",
]


def time_negation_cases(n: int, seed: int):
    """The range affirmed, another denied in words: the affirmed one."""
    draw = Draw(seed, n)
    gold = (draw.rng.random(n) * 3).astype(int)
    other = (gold + 1 + (draw.rng.random(n) * 2).astype(int)) % 3
    instrument = draw.names(draw.pick(CLASSES))
    templates, verbs, forms = draw.pick(TIME_NEGATIONS), draw.pick(VERBS), draw.rng.random((n, 2))
    first, joiners = draw.rng.random(n) < 0.5, draw.pick([". ", "; ", " but ", "\n"])
    texts = []
    for k in range(n):
        r = RANGES[gold[k]][int(forms[k, 0] * 5)]
        q = RANGES[other[k]][int(forms[k, 1] * 5)]
        denial = templates[k].format(v=verbs[k], i=instrument[k], q=q)
        affirmation = f"I hear it in {r}"
        parts = (affirmation, denial) if first[k] else (denial, affirmation)
        texts.append(joiners[k].join(parts))
    return decorated(draw, texts), [()] * n, list(gold)


# ---- refusals -------------------------------------------------------------------------------------
REFUSALS = [
    # the task declined
    "I can't help with that",
    "I cannot help with this request",
    "I'm sorry, but I can't assist with that",
    "I am unable to answer this question",
    "I won't be able to answer that",
    "I'm not able to provide an answer",
    "I must decline",
    "I refuse to answer",
    "I'm going to decline this one",
    "I'm sorry, I cannot do that",
    # the model's ability
    "As a text-only model, I cannot listen to audio",
    "As an AI language model, I can't process audio files",
    "As an AI, I don't have the ability to hear audio",
    "As a text-based assistant, I'm not able to listen to sound",
    "As a large language model, I cannot hear the clip",
    "As an AI, I don't have ears",
    "I am unable to listen to audio",
    "I'm not able to process the audio",
    "I cannot process audio",
    "I can't access the audio file",
    "I do not have access to the audio",
    "I don't have the ability to listen to audio clips",
    "I have no way to hear the recording",
    "It's not possible for me to listen to audio",
    "There is no way for me to hear the audio",
    "I can only process text",
    "I'm a text-only model",
    "I cannot identify instruments from audio",
    "I'm unable to analyze the music",
    # the audio never reached the model
    "No audio.",
    "No audio was provided",
    "There is no audio",
    "There's no audio attached",
    "I don't see any audio attached",
    "I didn't receive an audio file",
    "I do not see an audio clip",
    "The audio is missing",
    "The audio file was not provided",
    "The recording did not load",
    "Please provide the audio",
    "Please upload the audio file",
    "You haven't attached any audio",
    "Without the audio, I can't tell",
    "I cannot tell without listening to the audio",
    "Identifying instruments in audio is beyond my capabilities",
    "I would need to hear the audio",
    "I need the audio clip to answer",
]
REFUSAL_LEADS = [
    "",
    "",
    "Sorry, ",
    "I'm sorry, but ",
    "Unfortunately, ",
    "I apologize, but ",
    "No. ",
    "No, ",
    "Hmm. ",
]
# what a refusal says next: nothing readable, or a bare "no" / "none" that belongs to it
REFUSAL_TAILS = [
    "",
    ".",
    "!",
    ". Could you describe it?",
    ". Please describe the music in text.",
    ", so I can't tell whether there is a {a}.",
    ", so I cannot say.",
    ". If you describe the clip, I can help.",
    ", so no.",
    ". The answer is no.",
    ", so none.",
    ". No.",
]


def refusal_texts(draw: Draw, named: list[str]) -> list[str]:
    refusals, leads, tails = draw.pick(REFUSALS), draw.pick(REFUSAL_LEADS), draw.pick(REFUSAL_TAILS)
    return decorated(
        draw,
        [
            lead + refusal + tail.format(a=a)
            for lead, refusal, tail, a in zip(leads, refusals, tails, named, strict=True)
        ],
    )


def refusal_cases(n: int, seed: int):
    """Refusals: every reader reads no answer; `answer_refused` says so. (Options for each reader.)"""
    draw = Draw(seed, n)
    asked = draw.pick(CLASSES)
    groups = [list(draw.rng.permutation(g)) for g in draw.pick(GROUPS)]
    return refusal_texts(draw, draw.names(asked)), asked, groups


# a refusal beside a statement about the asked instrument: the statement is the answer
STATEMENTS = [
    ("there is no {a}", False),
    ("I don't hear any {a}", False),
    ("I am unable to detect a {a} either", False),
    ("there is a {a}", True),
    ("I think a {a} is playing", True),
]
# answers that look like refusals and are not: (template, yes/no reading of the asked {a})
NOT_REFUSALS = [
    ("Yes, I can hear a {a}", True),
    ("I can hear the {a} in the audio", True),
    ("Yes, the audio has a {a}", True),
    ("I listened to the audio: there is a {a}", True),
    ("I can't help but hear a {a}", True),
    ("I can't help noticing the {a}", True),
    ("The recording clearly features a {a}", True),
    ("Without a doubt, there is a {a}", True),
    ("I can only hear a {a}", True),
    ("The sound of the {a} is audible", True),
    ("Yes. I don't hear any {o}, but I hear a {a}", True),
    ("I can't hear a {a}", False),
    ("I can't hear it", False),
    ("I can't hear a {a} in the audio", False),
    ("I do not hear the {a} in this recording", False),
    ("I cannot find any {a} in the clip", False),
    ("No, there is no {a} in this track", False),
    ("I can't hear anything like a {a}", False),
    ("Sorry, but there's no {a}", False),
    ("No sound of a {a} anywhere", False),
]


def refusal_with_statement_cases(n: int, seed: int):
    draw = Draw(seed, n)
    asked = draw.pick(CLASSES)
    statements, joiners = draw.pick(STATEMENTS), draw.pick([", but ", ". However, ", "; still, "])
    refusals = draw.pick([r for r in REFUSALS if "tell" not in r])  # a hedge: unreadable
    texts = [
        f"{r}{j}{s[0].format(a=a)}"
        for r, j, s, a in zip(refusals, joiners, statements, draw.names(asked), strict=True)
    ]
    return decorated(draw, texts), asked, [s[1] for s in statements]


def not_refusal_cases(n: int, seed: int):
    draw = Draw(seed, n)
    asked = draw.pick(CLASSES)
    other = draw.names([o[0] for o in draw.others(asked)])
    chosen = draw.pick(NOT_REFUSALS)
    texts = [
        t.format(a=a, o=o) for (t, _), a, o in zip(chosen, draw.names(asked), other, strict=True)
    ]
    return decorated(draw, texts), asked, [meaning for _, meaning in chosen]


# ---- the tests -------------------------------------------------------------------------------------
NEGATION_READERS = {
    "yes_no": (yes_no_negation_cases, read_yes_no),
    "instrument_set": (set_negation_cases, read_instrument_set),
    "choice_by_name": (choice_negation_cases, read_choice),
    "letter": (letter_negation_cases, read_letter),
    "time_range": (time_negation_cases, lambda text, options: read_time_range(text)),
}


def wrong_reads(generate, read, n: int, seed: int) -> tuple[list, list, int]:
    """(wrong reads, false refusals, distinct texts) of n generated cases."""
    texts, options, expected = generate(n, seed)
    wrong, refused = [], []
    for text, offered, want in zip(texts, options, expected, strict=True):
        got = read(text, offered)
        if got != want or got is None:
            wrong.append((text, offered, want, got))
        if answer_refused(text):
            refused.append(text)
    return wrong, refused, len(set(texts))


@pytest.mark.parametrize("name", list(NEGATION_READERS))
def test_negations_in_words_are_read_as_denials(name):
    start = time.perf_counter()
    wrong, refused, distinct = wrong_reads(*NEGATION_READERS[name], CASES, SEED)
    print(
        f"\n{name}: {CASES:,} negations ({distinct:,} distinct), wrong {len(wrong)}, "
        f"refused {len(refused)}, {time.perf_counter() - start:.2f} s"
    )
    assert distinct > CASES / 3
    assert wrong == [] and refused == [], (wrong[:10], refused[:10])


def test_refusals_are_no_answer_for_any_reader():
    texts, asked, groups = refusal_cases(CASES, SEED)
    readers = {
        "yes_no": lambda text, k: read_yes_no(text, asked[k]),
        "instrument_set": lambda text, k: read_instrument_set(text, groups[k]),
        "choice_by_name": lambda text, k: read_choice(text, groups[k][:2]),
        "letter": lambda text, k: read_letter(text, groups[k][:2]),
        "time_range": lambda text, k: read_time_range(text),
    }
    read_as_answer = {
        name: [(text, got) for k, text in enumerate(texts) if (got := read(text, k)) is not None]
        for name, read in readers.items()
    }
    not_refused = [text for text in texts if not answer_refused(text)]
    print(
        f"\n{len(texts):,} refusals ({len(set(texts)):,} distinct): read as an answer "
        f"{ {name: len(got) for name, got in read_as_answer.items()} }, not refused {len(not_refused)}"
    )
    assert len(set(texts)) > CASES / 3
    assert all(got == [] for got in read_as_answer.values()), read_as_answer
    assert not_refused == [], not_refused[:10]


def test_a_refusal_beside_a_statement_about_the_instrument_is_that_statement():
    texts, asked, expected = refusal_with_statement_cases(CASES, SEED)
    wrong = [
        (text, a, want, got)
        for text, a, want in zip(texts, asked, expected, strict=True)
        if (got := read_yes_no(text, a)) is not want
    ]
    assert wrong == [], wrong[:10]


def test_answers_that_look_like_refusals_are_read_and_never_refused():
    texts, asked, expected = not_refusal_cases(CASES, SEED)
    wrong = [
        (text, a, want, got)
        for text, a, want in zip(texts, asked, expected, strict=True)
        if (got := read_yes_no(text, a)) is not want
    ]
    refused = [text for text in texts if answer_refused(text)]
    assert wrong == [] and refused == [], (wrong[:10], refused[:10])
