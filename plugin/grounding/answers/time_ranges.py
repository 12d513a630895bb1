"""Time answers: which 10-second range of a 30-second clip ("10-20 s", "00:20-00:30", "from 0s to
10s", "between 10 and 20 seconds", "the middle", "segment 2").

Alphabet: the option readers' statement words (option_marks: S V Y and the shared marks) and
    0 1 2 3  0 / 10 / 20 / 30 seconds ("10", "00:10", "10s", "ten"...)     x  any other number
    Q  "second": the unit after a number, else the ordinal      t  "-", "to", "until"
    b  "between"      s  "segment", "range", "part"...
    \u00b9 \u00b2 \u00b3  "1" "2" "3" ("segment 2": s\u00b2 is the second range)
    w  "answer" ("final answer" is no range)       |  a bracket ("[10-20]": the range's own)
    range marks (private use, marks.RANGE_BASE): the first, second, third and any other range
Units are fillers: "0 s - 10 s" reads as "0t1". A unit other than seconds ("10-20 minutes") and
"half", "whole" are unreadable.
"""

from __future__ import annotations

import re
from itertools import repeat

from symphony_bench.plugin.grounding.answers.cleaning import SEPARATORS, cleaned, prepared_answer
from symphony_bench.plugin.grounding.answers.marks import RANGE_BASE, clauses, without, words_to
from symphony_bench.plugin.grounding.answers.option_marks import (
    HELPER_MARKS,
    STATEMENT_WORDS,
    checked,
)
from symphony_bench.plugin.grounding.answers.option_reading import one_affirmed, read_marks

# the three ranges, then any other range
_RANGE_MARKS = tuple(chr(RANGE_BASE + k) for k in range(4))
_OTHER_RANGE_INDEX = 3
_UNITS = ("", "s", "sec", "secs", "second", "seconds")
_TIME_WORDS = {
    **STATEMENT_WORDS,
    **{
        word: _RANGE_MARKS[k]
        for k, words in enumerate(
            (
                "first 1st beginning start earliest opening initial",
                "second 2nd middle center centre mid",
                "third 3rd last final end ending closing finish",
            )
        )
        for word in words.split()
    },
    **words_to("?", "half whole entire throughout"),
    # a unit other than seconds: "10-20 minutes" is no range of a 30-second clip
    **words_to(
        "?",
        "minute minutes min mins m ms msec msecs millisecond milliseconds hour hours hr hrs h",
    ),
    **words_to(
        "s", "segment segments range ranges part section interval window portion option choice"
    ),
    **{str(k + 1): "\u00b9\u00b2\u00b3"[k] for k in range(3)},  # "segment 2"
    **{
        f"{spelled}{unit}": str(k)
        for k, seconds in enumerate((0, 10, 20, 30))
        for spelled in {str(seconds), f"{seconds:02d}", f"0c{seconds:02d}", f"00c{seconds:02d}"}
        for unit in _UNITS
    },
    **{word: str(k) for k, word in enumerate(("zero", "ten", "twenty", "thirty"))},
    **words_to(
        "x",
        "a an one two three four five six seven eight nine fifteen forty fifty sixty each per every split",
    ),
    "second": "Q",
    "answer": "w",
    "-": "t",
    **words_to("t", "to until till through thru"),
    "between": "b",
    "|": "|",
}
_NUMBER_SHAPES = {
    f"{shape}{unit}": "x"
    for digits in range(1, 7)
    for shape in ("9" * digits, f"{'9' * digits}p9", f"{'9' * digits}p99", f"{'9' * digits}c99")
    for unit in _UNITS
}
_DIGIT_SHAPES = str.maketrans(dict.fromkeys("0123456789", "9"))
_DECIMAL_ZEROS = re.compile(r"\.(?<=\d\.)0+(?!\d)")  # "10.0" -> "10"
_GLUED = {
    "c": re.compile(r":(?<=\d:)(?=\d)"),
    "p": re.compile(r"\.(?<=\d\.)(?=\d)"),
}  # "00:10", "10.5": one word
_CANONICAL_RANGES = tuple(
    (re.compile(f"b{k}&{k + 1}|{k}t{k + 1}"), _RANGE_MARKS[k]) for k in range(3)
)
_ANY_RANGE = (
    re.compile("|".join(["b[0-3x]&[0-3x]", *(f"{number}t[0-3x]" for number in "0123x")])),
    _RANGE_MARKS[_OTHER_RANGE_INDEX],
)
_DURATION = re.compile(r"[0-3x]t?Q")  # "10-second", "a second": "second" is the unit
_TIME_HELPERS = "0123xtbsw.\u00b9\u00b2\u00b3"
# "-" joins a range; a bracket is kept as "|"
_TIME_PUNCTUATION = str.maketrans(SEPARATORS | {"-": "-", **dict.fromkeys("()[]", "|")})


def _time_words(prepared: str) -> str:
    """The answer's words, a number with its unit one word ("00:10" -> "00c10", "10.5s" ->
    "10p5s")."""
    text = _DECIMAL_ZEROS.sub("", prepared)
    for glue, pattern in _GLUED.items():
        text = pattern.sub(glue, text)
    text = text.replace("twenty-five", "25").replace("thirty-five", "35").replace("-", " - ")
    return cleaned(text, _TIME_PUNCTUATION).replace("|", " | ")


def _word_marks(text: str) -> str:
    """One mark per word (a number of no other shape: "x"), fillers dropped."""
    has_digits = any(digit in text for digit in "0123456789")
    shapes = (
        map(_NUMBER_SHAPES.get, text.translate(_DIGIT_SHAPES).split(), repeat("."))
        if has_digits
        else repeat(".")
    )
    return "".join(map(_TIME_WORDS.get, text.split(), shapes)).replace(".", "")


def _ranges_resolved(marks: str) -> str:
    """Ranges, ordinals and "segment 2" as range marks; durations ("10-second") and "final
    answer" dropped."""
    for pattern, mark in (*_CANONICAL_RANGES, _ANY_RANGE):
        marks = pattern.sub(mark, marks)
    for k, number in enumerate("\u00b9\u00b2\u00b3"):
        marks = marks.replace(f"s{number}", _RANGE_MARKS[k])
    marks = _DURATION.sub("", marks).replace(f"{_RANGE_MARKS[2]}w", "")
    for mark in _RANGE_MARKS:  # "[10-20]": the brackets belong to the range ("0-10 (no)": not)
        marks = marks.replace(f"|{mark}|", mark)
    return without(marks, _TIME_HELPERS).replace("Q", _RANGE_MARKS[1]).replace("|", ",")


def _time_marks(prepared: str) -> str | None:
    """The marks of a time answer with its ranges resolved; None if unreadable."""
    marks = clauses(_ranges_resolved(_word_marks(_time_words(prepared))))
    return None if marks is None else checked(without(marks, HELPER_MARKS))


def read_time_range(text) -> int | None:
    """0, 1 or 2 for the first, second, third 10-second range ("10-20 s", "00:10-00:20", "the
    middle", "segment 2"); None when unreadable, when several are affirmed, or for another range."""
    prepared = prepared_answer(text)
    marks = None if prepared is None else _time_marks(prepared.text)
    chosen = None if marks is None else one_affirmed(read_marks(marks), _RANGE_MARKS)
    return None if chosen == _OTHER_RANGE_INDEX else chosen
