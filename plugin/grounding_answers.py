"""Read free-text answers of the instrument-grounding tasks; never raise.

Each reader returns the answer as an index (or a set of indices) into what the doc offered, or None
when the answer cannot be read (counted as invalid, never replaced by a guess). Tolerated: case,
punctuation, articles, "Yes." / "yes, there is", "0-10 seconds" / "0–10 s" / "first", option
letters in any dress ("B", "(b)", "Answer: B."), instrument synonyms ("sax", "vocals", "synth").
"""

from __future__ import annotations

import re

TIME_RANGES = ("0-10 seconds", "10-20 seconds", "20-30 seconds")
# OpenMIC class -> other ways to name it (the class name itself, underscores as spaces, always counts)
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
_YES = {"yes", "yeah", "yep", "true", "present", "correct"}
_NO = {"no", "nope", "false", "absent", "not"}
_ORDINALS = (
    ("first", "1st", "beginning", "start", "earliest"),
    ("second", "2nd", "middle"),
    ("third", "3rd", "last", "final", "end", "ending"),
)
_RANGE = re.compile(r"(\d{1,2})\s*(?:-|to)\s*(\d{1,2})")


def normalise(text) -> str:
    """Lower case; dashes unified; everything but letters, digits, '-' and spaces becomes a space."""
    if not isinstance(text, str):
        return ""
    text = text.lower().replace("\u2013", "-").replace("\u2014", "-").replace("\u2212", "-")
    return " ".join(re.sub(r"[^a-z0-9\- ]+", " ", text).split())


def _words(text: str) -> list[str]:
    return normalise(text).replace("-", " ").split()


def read_yes_no(text) -> bool | None:
    """True for yes, False for no; None when neither or both are said."""
    words = _words(text)
    if not words:
        return None
    if words[0] in _YES:
        return True
    if words[0] in _NO:
        return False
    said = {True for w in words if w in _YES} | {False for w in words if w in _NO}
    if not said and words[:2] in (["there", "is"], ["there", "are"]):
        return True  # "There is a piano in the clip."
    return said.pop() if len(said) == 1 else None


def _phrases(instrument: str) -> tuple[str, ...]:
    return (instrument.replace("_", " "), *SYNONYMS.get(instrument.replace(" ", "_"), ()))


def _mentions(text: str, phrase: str) -> bool:
    return re.search(rf"(?<![a-z]){re.escape(phrase)}(?![a-z])", text) is not None


def instruments_mentioned(text, candidates: list[str]) -> set[int]:
    """Indices of the candidates the text names (longest phrases first: "bass guitar" is not "guitar")."""
    remaining = " ".join(_words(text))
    mentioned = set()
    pairs = sorted(((p, k) for k, c in enumerate(candidates) for p in _phrases(c)), key=lambda pk: -len(pk[0]))
    for phrase, index in pairs:
        if _mentions(remaining, phrase):
            mentioned.add(index)
            remaining = re.sub(rf"(?<![a-z]){re.escape(phrase)}(?![a-z])", " ", remaining)
    return mentioned


def read_choice(text, candidates: list[str]) -> int | None:
    """The one candidate an instrument-name answer names."""
    mentioned = instruments_mentioned(text, candidates)
    return mentioned.pop() if len(mentioned) == 1 else None


def read_letter(text, candidates: list[str], letters: tuple[str, ...] = ("a", "b")) -> int | None:
    """An option letter ("B", "(b)", "Answer: B.", "option A"), or else the one candidate named."""
    words = _words(text)
    for filler in ("answer", "option", "is", "the", "choice", "correct"):
        while words and words[0] == filler:
            words = words[1:]
    named = read_choice(" ".join(words[1:]), candidates) if words else None
    other_letters = set(words[1:]) & (set(letters) - set(words[:1]))
    if words and words[0] in letters and not other_letters:
        letter = letters.index(words[0])
        if named is None or named == letter:
            return letter
        return named if words[0] == "a" else None  # "A piano" with piano as option B: the article
    return read_choice(text, candidates)


def read_time_range(text) -> int | None:
    """0, 1 or 2 for the first, second, third 10-second range; None when unreadable or several."""
    cleaned = normalise(text)
    found = set()
    for start, end in _RANGE.findall(cleaned):
        if (int(start), int(end)) in ((0, 10), (10, 20), (20, 30)):
            found.add(int(start) // 10)
    if not found:
        words = set(cleaned.replace("-", " ").split())
        found = {k for k, names in enumerate(_ORDINALS) if words & set(names)}
    return found.pop() if len(found) == 1 else None


def read_instrument_set(text, candidates: list[str]) -> set[int] | None:
    """The candidates a multi-label answer names; an explicit "none" is the empty set, an answer
    that names nothing else is unreadable."""
    mentioned = instruments_mentioned(text, candidates)
    if mentioned:
        return mentioned
    return set() if _words(text)[:1] in (["none"], ["no"]) else None
