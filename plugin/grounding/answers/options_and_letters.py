"""Two-way choice: by instrument name, or by option letter ("B", "(b)", "The answer is B.").

Alphabet: the option marks (option_marks), letters included. A reader takes an answer only when it
affirms exactly one option and nothing in it contradicts that. A letter decides unless the
explanation names the other option or denies its own ("A, because the banjo is not audible" is A
when the banjo is B).
"""

from __future__ import annotations

from symphony_bench.plugin.grounding.answers.option_marks import option_marks
from symphony_bench.plugin.grounding.answers.option_reading import one_affirmed, read_marks


def read_choice(text, candidates: list[str]) -> int | None:
    """The one candidate an instrument-name answer names and does not deny."""
    marked = option_marks(text, candidates)
    if marked is None:
        return None
    return one_affirmed(read_marks(marked.marks), marked.vocabulary.options)


def read_letter(text, candidates: list[str], letters: tuple[str, ...] = ("a", "b")) -> int | None:
    """An option letter ("B", "(b)", "The answer is B.", "A) banjo") or else the one candidate
    named. The letter decides unless the rest names the other candidate or denies its own; "A"
    before an instrument name ("A banjo") is the article."""
    marked = option_marks(text, candidates, tuple(letter.lower() for letter in letters))
    reading = None if marked is None else read_marks(marked.marks)
    if reading is None:
        return None
    options = marked.vocabulary.options  # the candidates' marks, then the letters'
    names, letter_marks = options[: len(candidates)], options[len(candidates) :]
    return one_affirmed(reading, names, letter_marks[: len(candidates)])  # letter k: candidate k
