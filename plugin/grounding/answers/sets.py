"""Multi-label answers: the candidates an answer names ("guitar and banjo", "none").

Alphabet: the option marks (option_marks), without letters.
"""

from __future__ import annotations

from symphony_bench.plugin.grounding.answers.option_marks import option_marks
from symphony_bench.plugin.grounding.answers.option_reading import read_marks


def read_instrument_set(text, candidates: list[str]) -> set[int] | None:
    """The candidates a multi-label answer names. "None" (or every candidate denied) is the empty
    set; an answer that affirms nothing else, offers alternatives ("guitar or banjo"), leaves a
    candidate ambiguous or both names and denies it is unreadable."""
    marked = option_marks(text, candidates)
    reading = None if marked is None else read_marks(marked.marks)
    if reading is None:
        return None
    options = marked.vocabulary.options
    affirmed = reading.indices(reading.affirmed, options)
    denied = reading.indices(reading.denied, options)
    if (
        reading.indices(reading.ambiguous, options)
        or reading.alternatives
        or affirmed & denied
        or (affirmed and reading.none_said)
    ):
        return None
    if affirmed:
        return affirmed
    if marked.refused and not denied:  # "I can't listen to audio. None.": the refusal's words
        return None
    return set() if reading.none_said or len(denied) == len(candidates) else None


def instruments_mentioned(text, candidates: list[str]) -> set[int]:
    """Indices of the candidates the text names and does not deny (nor leaves ambiguous). Every
    OpenMIC class is matched, longest name first, so "bass guitar" is bass and not guitar."""
    marked = option_marks(text, candidates)
    reading = None if marked is None else read_marks(marked.marks)
    if reading is None:
        return set()
    options = marked.vocabulary.options
    return reading.indices(reading.affirmed, options) - reading.indices(
        reading.denied + reading.ambiguous, options
    )
