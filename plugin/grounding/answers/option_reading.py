"""What the marks of an option answer (option_marks) affirm, deny and leave ambiguous.

Negation scope: "not, no, without, neither, nor" (~, n) negate what follows in their part of the
clause ("guitar but no banjo", "guitar, not banjo"); a negated verb and "never, absent, missing" (!)
negate their whole part ("I do not hear a guitar", "the banjo is not audible"). Where the scope
could be read two ways the options in question are ambiguous: a verbless list part after a negated
part ("no guitar, banjo") or before a wholly negated part ("guitar, banjo are absent"). An "and"
list that mixes a negation with another clause ("no guitar and banjo", "I hear a guitar and the
banjo is absent") makes the whole answer unreadable. While reading, a part negated as a whole
becomes W and the rest of a part after "not" / "no" becomes Z.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from symphony_bench.plugin.grounding.answers.marks import OPTION_MARKS

_NO_ALONE = re.compile(r"n(?<![^;,]n)(?![^;,])")  # "No." as a whole part: nothing is there
# "I don't hear no guitar", "not absent"
_DOUBLE_NEGATION = re.compile(rf"[~!][^;,~!{OPTION_MARKS}]*+[~!]")
_MIXED_AND = re.compile(
    r"~[^;,~&]*+&|&[^;,~&]*+~"  # a negation in an and-list: "no guitar and banjo"
    r"|![^;,&!]*+&[^;,Va!]*+[Va!]"  # "I don't hear a guitar and the banjo is playing"
    r"|V[^;,&Va!]*+&[^;,Va!]*+a?!|a[^;,&Va!]*+&[^;,Va!]*+a?!"  # "I hear a guitar and banjo is absent" (not "I think")
)
_NEGATED_REST = re.compile(r"~[^;,]*+")  # "not" and the rest of its part
# a part with "!" in it, from the separator that opens it (the marks start with ";")
_WHOLE_NEGATED_PART = {separator: re.compile(rf"{separator}[^;,!]*+![^;,]*+") for separator in ";,"}
_ANY_WHOLE_NEGATED_PART = re.compile(r"[;,][^;,!]*+![^;,]*+")
# verbless parts after a negated one
_AFTER_NEGATION = re.compile(r"[ZW]((?:,[^;,SVaWZ]*+Z?(?![^;,]))++)")
# the same before "W", on reversed marks
_BEFORE_WHOLE_NEGATION = re.compile(r"W((?:,Z?[^;,SVaWZ]*+(?![^;,]))++)")
# "guitar or banjo"
_ALTERNATIVES = re.compile(
    rf"[{OPTION_MARKS}][^;/{OPTION_MARKS}]*+/[^;{OPTION_MARKS}]*+[{OPTION_MARKS}]"
)


@dataclass(frozen=True)
class Reading:
    """Marks (any order, repeats allowed) of what an answer affirms, denies and leaves ambiguous."""

    affirmed: str
    denied: str
    ambiguous: str  # could be read as affirmed or as denied
    alternatives: bool  # "guitar or banjo"
    none_said: bool  # "none", "nothing", "no instruments"

    @staticmethod
    def indices(said: str, options: tuple[str, ...]) -> set[int]:
        """The options whose mark `said` holds."""
        return {k for k, mark in enumerate(options) if mark in said}


def _collapsed(marks: str) -> str:
    """Each part negated as a whole reduced to "W", the rest of a part after "not" / "no" to "Z"."""
    for separator, pattern in _WHOLE_NEGATED_PART.items():
        marks = pattern.sub(f"{separator}W", marks)
    return _NEGATED_REST.sub("Z", marks) if "~" in marks else marks


def read_marks(marks: str) -> Reading | None:
    """What the marks affirm, deny and leave ambiguous; None for a hedge, a double negation or an
    and-list that mixes a negation with another clause."""
    marks = f";{marks}"
    if "n" in marks:
        marks = _NO_ALONE.sub("#", marks).replace("n", "~")
    negated = "~" in marks or "!" in marks
    if (
        "?" in marks
        or negated
        and (_DOUBLE_NEGATION.search(marks) or "&" in marks and _MIXED_AND.search(marks))
    ):
        return None
    if not negated:
        return Reading(
            marks, "", "", "/" in marks and _ALTERNATIVES.search(marks) is not None, "#" in marks
        )
    collapsed = _collapsed(marks)
    denied = (*_NEGATED_REST.findall(marks), *_ANY_WHOLE_NEGATED_PART.findall(marks))
    ambiguous = _AFTER_NEGATION.findall(collapsed)
    if "W" in collapsed:
        ambiguous += _BEFORE_WHOLE_NEGATION.findall(collapsed[::-1])
    alternatives = "/" in collapsed and _ALTERNATIVES.search(collapsed) is not None
    return Reading(collapsed, "".join(denied), "".join(ambiguous), alternatives, "#" in marks)


def one_affirmed(
    reading: Reading | None, options: tuple[str, ...], letters: tuple[str, ...] = ()
) -> int | None:
    """The index of the one option affirmed (by its mark, or by the letter standing for it), when
    nothing denies it or names another. A letter is never ambiguous: it is no member of a list of
    instruments ("A, the banjo is absent")."""
    if reading is None or reading.none_said or reading.indices(reading.ambiguous, options):
        return None
    affirmed = reading.indices(reading.affirmed, options) | reading.indices(
        reading.affirmed, letters
    )
    denied = reading.indices(reading.denied, options) | reading.indices(reading.denied, letters)
    return affirmed.pop() if len(affirmed) == 1 and not affirmed & denied else None
