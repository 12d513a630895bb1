"""Which of the 22 instruments a piece of free text names: model answers to "Which instrument is
this?" and the irregular file names of the upstream release."""

from __future__ import annotations

import re
from functools import lru_cache

from symphony_bench.plugin.core.vocabulary import instrument_names

GUITAR = "guitar"  # an unqualified "guitar": acoustic or electric, but not bass
GUITAR_FAMILY = frozenset({"acoustic guitar", "electric guitar"})
ALIASES = {
    "e guitar": "electric guitar",
    "electric": "electric guitar",
    "acoustic": "acoustic guitar",
    "classical guitar": "acoustic guitar",
    "bass": "bass guitar",
    "electric bass": "bass guitar",
    "sax": "saxophone",
    "alto sax": "saxophone",
    "tenor sax": "saxophone",
    "drum": "drums",
    "drumset": "drums",
    "drum kit": "drums",
    "drum set": "drums",
    "snare": "drums",
    "french horn": "horn",
    "violoncello": "cello",
    "fiddle": "violin",
    "uke": "ukulele",
    "glock": "glockenspiel",
    "mouth organ": "harmonica",
    "keys": "keyboard",
    "synth": "keyboard",
    "synthesizer": "keyboard",
    "electric piano": "keyboard",
    "grand piano": "piano",
    GUITAR: GUITAR,
}


def _letters_only(text: str) -> str:
    """Lower case, letters only, single spaces: 'E-Guitar (2)' -> 'e guitar'."""
    return " ".join(re.sub(r"[^a-z]+", " ", text.lower()).split())


@lru_cache(maxsize=1)
def _phrases() -> tuple[tuple[str, str], ...]:
    """(phrase, instrument), longest first, so "bassoon" is never read as "bass" and
    "electric guitar" never as "guitar"."""
    table = {name: name for name in instrument_names()} | ALIASES
    return tuple(sorted(table.items(), key=lambda item: len(item[0]), reverse=True))


def instruments_named(text: str) -> set[str]:
    """Instrument names (and GUITAR) mentioned in the text, plurals included."""
    words = f" {_letters_only(text)} "
    named = set()
    for phrase, instrument in _phrases():
        pattern = re.compile(rf" {re.escape(phrase)}(?:e?s)? ")
        if pattern.search(words):
            named.add(instrument)
            words = pattern.sub("  ", words)  # consumed: "electric guitar" leaves no "guitar"
    return named


def single_instrument(text: str) -> str | None:
    """The one instrument the text names, or None when it names none, several, or just "guitar"."""
    named = instruments_named(text)
    return next(iter(named)) if len(named) == 1 and GUITAR not in named else None


def recognises(answer: str, instrument: str) -> bool:
    """True if a free answer names exactly the right instrument ("guitar" counts for both the
    acoustic and the electric guitar)."""
    named = instruments_named(answer)
    return named == {instrument} or (named == {GUITAR} and instrument in GUITAR_FAMILY)
