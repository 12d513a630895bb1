"""Read free-text answers of the instrument-grounding tasks; never raise.

Each reader returns the answer as an index (or a set of indices) into what the doc offered, or None
when the answer cannot be read (counted as invalid, never replaced by a guess). Tolerated: case,
punctuation, articles, contractions, "Yes." / "yes, there is" / "I don't hear one", "0-10 seconds" /
"0–10 s" / "between 10 and 20 seconds" / "first", option letters in any dress ("B", "(b)", "The
answer is B."), instrument synonyms ("sax", "vocals", "synth"), negated mentions ("guitar but no
banjo").
"""

from __future__ import annotations

import re
from functools import lru_cache

from symphony_bench.plugin.core.vocabulary import OPENMIC_CLASSES

# class -> other ways to name it (the class name itself, underscores as spaces, always counts)
SYNONYMS = {
    "bass": ("double bass", "bass guitar", "upright bass", "electric bass", "contrabass"),
    "drums": ("drum", "drum kit", "drumkit", "drum set", "percussion kit"),
    "cymbals": ("cymbal", "hi hat", "hihat", "crash", "ride cymbal"),
    "guitar": ("acoustic guitar", "electric guitar", "guitars"),
    "mallet_percussion": ("mallet percussion", "xylophone", "marimba", "vibraphone", "glockenspiel", "mallets"),
    "saxophone": ("sax", "saxophones"),
    "synthesizer": ("synth", "synthesiser", "synths"),
    "voice": ("vocals", "vocal", "singing", "singer", "voices", "human voice"),
    "organ": ("hammond organ", "pipe organ"),
    "piano": ("grand piano", "keys"),
    "violin": ("fiddle", "violins"),
}
_YES = {"yes", "yeah", "yep", "true", "correct"}
_NO = {"no", "nope", "false"}
_NEGATIONS = {"no", "not", "never", "without", "nor"}
_UNSURE = ("not sure", "unsure", "maybe", "cannot tell", "can not tell", "hard to tell", "i don t know")
_FILLERS = {"the", "my", "final", "correct", "answer", "option", "choice", "is", "i", "choose", "pick", "select"}
_ORDINALS = (
    ("first", "1st", "beginning", "start", "earliest"),
    ("second", "2nd", "middle"),
    ("third", "3rd", "last", "final", "end", "ending"),
)
_RANGE = re.compile(r"(\d{1,2})\s*(?:-|to|and)\s*(\d{1,2})")
_DURATION = re.compile(r"\d+\s*-?\s*seconds?\b")  # "10-second" is a length, not "the second range"


def normalise_answer(text) -> str:
    """Lower case; dashes unified; "n't" -> " not"; everything but letters, digits, '-' and spaces
    becomes a space."""
    if not isinstance(text, str):
        return ""
    text = text.lower().replace("\u2019", "'").replace("n't", " not").replace("'s", " is")
    text = text.replace("\u2013", "-").replace("\u2014", "-").replace("\u2212", "-")
    return " ".join(re.sub(r"[^a-z0-9\- ]+", " ", text).split())


def _words(text) -> list[str]:
    return normalise_answer(text).replace("-", " ").split()


def read_yes_no(text) -> bool | None:
    """True for yes, False for no. A leading yes/no word decides; otherwise a negation ("there is no",
    "I do not hear") means no, and a statement of presence ("there is", "I hear") means yes."""
    words = _words(text)
    joined = " ".join(words)
    if not words or any(phrase in joined for phrase in _UNSURE):
        return None
    if words[0] in _YES:
        return True
    if words[0] in _NO:
        return False
    if _NEGATIONS & set(words) or "absent" in words:
        return False
    if {"present", "hear", "hears", "heard", "audible", "plays", "playing"} & set(words) or words[:2] in (["there", "is"], ["there", "are"]):
        return True
    return None


def _phrases(instrument: str) -> tuple[str, ...]:
    return (instrument.replace("_", " "), *SYNONYMS.get(instrument.replace(" ", "_"), ()))


@lru_cache(maxsize=512)
def _patterns(candidates: tuple[str, ...]) -> tuple[tuple[re.Pattern, str], ...]:
    """(pattern, class) for every phrase of the candidates and the OpenMIC classes, longest first."""
    names = {c.replace(" ", "_") for c in candidates} | set(OPENMIC_CLASSES)
    pairs = sorted(((p, n) for n in names for p in _phrases(n)), key=lambda pair: -len(pair[0]))
    return tuple((re.compile(rf"(?<![a-z]){re.escape(phrase)}(?![a-z])"), name) for phrase, name in pairs)


def instruments_mentioned(text, candidates: list[str]) -> set[int]:
    """Indices of the candidates the text names and does not negate. Every OpenMIC class is matched
    (longest phrase first, so "bass guitar" is bass and not guitar), then only candidates are kept."""
    remaining = " ".join(_words(text))
    mentioned = set()
    for pattern, name in _patterns(tuple(candidates)):
        for match in pattern.finditer(remaining):
            before = remaining[: match.start()].split()[-2:]
            if not _NEGATIONS & set(before):
                mentioned.add(name)
        remaining = pattern.sub(" _ ", remaining)
    return {k for k, c in enumerate(candidates) if c.replace(" ", "_") in mentioned}


def read_choice(text, candidates: list[str]) -> int | None:
    """The one candidate an instrument-name answer names."""
    mentioned = instruments_mentioned(text, candidates)
    return mentioned.pop() if len(mentioned) == 1 else None


def read_letter(text, candidates: list[str], letters: tuple[str, ...] = ("a", "b")) -> int | None:
    """An option letter ("B", "(b)", "The answer is B.", "A) banjo"), or else the one candidate
    named. A letter and a name that disagree make the answer unreadable, except "A banjo", where
    "A" is the article."""
    words = _words(text)
    while words and words[0] in _FILLERS - set(letters):
        words = words[1:]
    named = read_choice(" ".join(words[1:]), candidates) if words else None
    if not words or words[0] not in letters or set(words[1:]) & (set(letters) - {words[0]}):
        return read_choice(text, candidates)
    letter = letters.index(words[0])
    if named is None or named == letter:
        return letter
    marked = re.search(rf"(?<![a-z])\(?{words[0]}\s*[.):]", text.lower()) is not None
    return named if words[0] == "a" and not marked else None


def read_time_range(text) -> int | None:
    """0, 1 or 2 for the first, second, third 10-second range; None when unreadable or several."""
    cleaned = normalise_answer(text)
    found = {int(start) // 10 for start, end in _RANGE.findall(cleaned) if (int(start), int(end)) in ((0, 10), (10, 20), (20, 30))}
    if not found:
        words = set(_DURATION.sub(" ", cleaned).replace("-", " ").split())
        found = {k for k, names in enumerate(_ORDINALS) if words & set(names)}
    return found.pop() if len(found) == 1 else None


def read_instrument_set(text, candidates: list[str]) -> set[int] | None:
    """The candidates a multi-label answer names; an explicit "none" is the empty set, an answer
    that names nothing else is unreadable."""
    mentioned = instruments_mentioned(text, candidates)
    if mentioned:
        return mentioned
    return set() if _words(text)[:1] in (["none"], ["no"]) else None
