"""The marks of the readers that pick options: by name (choice, set), by letter, by time range.

Alphabet of these readers: the shared marks (marks.py) and
    S  subject ("i", "it", "there")      V  verb of presence ("hear", "play", "present", "feature")
    Y  "yes": a mark only as a label's value ("guitar: yes")       k  "instrument", "candidate"
    o  "option", "letter", "choice": a letter follows ("option a": the letter, not the article)
    u, U  a small "a", a capital "A": the letter or the article, until _letter_a_resolved
    private-use marks: the instrument classes and, for the letter reader, the letters (marks.py)
and, made while reading (option_reading): W a part negated as a whole, Z the rest of a part after
a negation. time_ranges adds the marks of numbers and ranges.

A mark next to an option ("guitar \u2713", "banjo: no") is resolved here (`checked`): a negative one
denies its option in a clause of its own, a positive one affirms it.
"""

from __future__ import annotations

import re
from dataclasses import replace
from functools import lru_cache
from typing import NamedTuple

from symphony_bench.plugin.grounding.answers.cleaning import (
    CAPITAL_A,
    cleaned,
    dashes_as_list_separators,
    prepared_answer,
)
from symphony_bench.plugin.grounding.answers.marks import (
    INSTRUMENT_MARKS,
    LETTER_BASE,
    OPTION_MARKS,
    SHARED_WORDS,
    Vocabulary,
    clauses,
    marks_of,
    without,
    words_to,
)
from symphony_bench.plugin.grounding.answers.vocabulary import vocabulary

STATEMENT_WORDS = {
    **SHARED_WORDS,
    "so": ";",
    **words_to("S", "i it there they we you he she this that"),
    **words_to(
        "V",
        "hear hears heard hearing play plays playing played present audible appear appears appeared sound "
        "sounds detect detected contain contains include includes included feature features featured "
        "featuring identify identified notice noticed recognize recognized recognise recognised exist exists",
    ),
    **words_to("Y", "yes yeah yep yup"),
}
# "no instruments": none
_NAME_WORDS = {**STATEMENT_WORDS, **words_to("k", "instrument instruments candidate candidates")}
_LETTER_CUES = words_to("o", "option letter choice")
# a leftover part of a multi-word name ("double" alone) stays: it reads as a filler
HELPER_MARKS = ".kohd"
_ARTICLE_BEFORE_NAME = re.compile(rf"U(?=[{INSTRUMENT_MARKS}])")  # "A banjo": the article
_NO_INSTRUMENTS = re.compile(r"n(?=\.?k)")


class OptionMarks(NamedTuple):
    marks: str  # helper marks dropped, marks next to options resolved
    vocabulary: Vocabulary
    refused: bool  # whether a part of the answer refused


@lru_cache(maxsize=512)
def name_vocabulary(candidates: tuple[str, ...]) -> Vocabulary:
    """The marks of the option readers' words and of every instrument name, the candidates' own
    names first."""
    return vocabulary(candidates, _NAME_WORDS)


@lru_cache(maxsize=512)
def _option_vocabulary(candidates: tuple[str, ...], letters: tuple[str, ...]) -> Vocabulary:
    """The candidates' names and, after them, the option letters, if any."""
    names = name_vocabulary(candidates)
    if not letters:
        return names
    letter_marks = {letter: chr(LETTER_BASE + n) for n, letter in enumerate(letters)}
    marks = names.marks | _LETTER_CUES | letter_marks
    if "a" in letter_marks:
        marks |= {"a": "u", CAPITAL_A: "U"}
    return replace(names, marks=marks, options=names.options + tuple(letter_marks.values()))


def _letter_a_resolved(marks: str, a_mark: str) -> str:
    """A capital "A" is the letter unless an instrument name follows; a small "a" only when marked
    ("a.", "(a)", "option a") or last."""
    marks = _ARTICLE_BEFORE_NAME.sub("", marks).replace("U", a_mark)
    marks = (
        marks.replace("u;", f"{a_mark};").replace("u,", f"{a_mark},").replace("ou", f"o{a_mark}")
    )
    return (marks[:-1] + a_mark if marks.endswith("u") else marks).replace("u", "")


def option_marks(text, candidates, letters: tuple[str, ...] = ()) -> OptionMarks | None:
    """The marks of a name or letter answer; None if unreadable."""
    prepared = prepared_answer(text, capital_a="a" in letters)
    if prepared is None:
        return None
    names = _option_vocabulary(tuple(candidates), letters)
    words = cleaned(dashes_as_list_separators(prepared.text)).split()
    marks = clauses(marks_of(words, names.marks, names))
    if marks is None:
        return None
    if "a" in letters:
        marks = _letter_a_resolved(marks, names.options[len(candidates) + letters.index("a")])
    if "k" in marks:
        marks = _NO_INSTRUMENTS.sub("#", marks)
    marks = checked(without(marks, HELPER_MARKS))
    return None if marks is None else OptionMarks(marks, names, prepared.refused)


# "guitar: no", "banjo (yes)", "guitar: \u2713": a part that is one option (after "it is", "the
# answer is"), then a part that is only a mark: the clause's first label, or one right after another
_LABELLED = re.compile(rf"([;,][aS]*+)([{OPTION_MARKS}]),(Y|n|M++|X++)(?![^;,])")
# "guitar \u2713", "\u2717 banjo": a part that is one option and its marks
_MARKED = re.compile(
    rf"([;,][aS]*+)(?:(M++|X++)([{OPTION_MARKS}])|([{OPTION_MARKS}])(M++|X++))(?![^;,])"
)
_EMPTY_PARTS = re.compile(",,++")  # "guitar (yes), banjo": one list separator


def _label(match: re.Match) -> str:
    start, text = match.start(), match.string
    opening, option, mark = match.groups()
    before = text[start - 1] if start else ";"  # the end of the part before, if any
    if opening[0] == "," and not (
        before in "YnMX;," or (before >= "\ue000" and text[start - 2] in "MX")
    ):
        return match.group()  # "I hear a guitar, banjo: no": the list could go on past the label
    return f";~{option};" if mark[0] in "nX" else f"{opening}{option}"


def _marked(match: re.Match) -> str:
    opening, before, option_after, option_before, after = match.groups()
    mark, option = (before, option_after) if before else (after, option_before)
    return f";~{option};" if mark[0] == "X" else f"{opening}{option}"


def checked(marks: str) -> str | None:
    """Marks next to an option resolved: a negative mark (or "no" as a label's value) denies its
    option, in a clause of its own (so that no negation reaches the names after it), a positive one
    (or "yes") affirms it; None when a mark is left that belongs to no one option ("guitar \u2713
    banjo", "[x] guitar", a mark in a sentence)."""
    if "M" not in marks and "X" not in marks and "Y" not in marks and ",n" not in marks:
        return marks
    marks = _LABELLED.sub(_label, _EMPTY_PARTS.sub(",", f";{marks}"))
    if "M" in marks or "X" in marks:
        marks = _MARKED.sub(_marked, marks)
        if "M" in marks or "X" in marks:
            return None
    return marks[1:].replace("Y", "")
