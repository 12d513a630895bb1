"""Marks: every word of a cleaned answer becomes one character, and the readers work on the string.

Each reader maps words to marks with its own table (option_marks, time_ranges, yes_no), built on
SHARED_WORDS, and documents the marks it adds; a mark means one thing in every reader that uses it.
The marks every reader shares:
    ;  end of a clause ("." "!" "however" "because"; "but", "only" once clauses() has read them)
    ,  end of a list part ("," ":" brackets)
    &  and      /  or
    ~  negates what follows in its part ("not", "without", "neither", "lack"; "nor" is ",~")
    !  negates its whole part ("never", "absent", "missing", "isnt", and a negated auxiliary "a~")
    a  auxiliary verb ("is", "do", "can")      S  subject ("i", "it": each reader lists its own)
    n  "no": the answer on its own, else a negation        #  "none"
    ?  unreadable ("maybe", "except", a symbol with no clear polarity)
    h, d, c  parts of hedges: "not sure" (~h), "no idea" (nh), "hard to tell" (d.h), "could be"
       (ca); "could" is an auxiliary otherwise
    ^ "only", "just"; _ "but"; z "nothing": clause ends and "none", kept apart for the phrases "not
       only" (~^), "nothing but" (z_), "nothing else" (zE), "no other" (nO), which mean "only"
    E "else"   O "other"   D "doubt" ("no doubt", "without a doubt" say nothing)
    M, X  a tick and a cross (cleaning.TICK_WORD, CROSS_WORD; the word "x" alone is a cross)
    .  any other word
Instrument classes, option letters, time ranges and the words that are only part of a multi-word
name are private-use characters (the cleaned text is ASCII, so an answer cannot contain them), one
block of 256 per kind.

Speed: apart from one dict lookup per word, every pass is a str method or a regular expression that
starts at a literal character or a character class (so that `re` skips to candidate positions; in an
alternation every branch must start with a literal) and never backtracks (possessive quantifiers).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import repeat

from symphony_bench.plugin.grounding.answers.cleaning import (
    CROSS_WORD,
    TICK_WORD,
    UNCLEAR_SYMBOL_WORD,
)

INSTRUMENT_BASE, LETTER_BASE, RANGE_BASE, NAME_PART_BASE = 0xE000, 0xE100, 0xE200, 0xE300
INSTRUMENT_MARKS = r"\ue000-\ue0ff"  # as a regex class range
OPTION_MARKS = r"\ue000-\ue2ff"  # instruments, letters and ranges, as a regex class range


def words_to(mark: str, words: str) -> dict[str, str]:
    return dict.fromkeys(words.split(), mark)


SHARED_WORDS = {
    ";": ";",
    ",": ",",
    "nor": ",~",
    "no": "n",
    "none": "#",
    "nothing": "z",
    "could": "c",
    "else": "E",
    "other": "O",
    "doubt": "D",
    "but": "_",
    **words_to(
        ";", "however although though whereas while yet because since therefore thus hence actually"
    ),
    **words_to("^", "only just"),
    **words_to("&", "and plus"),
    **words_to("/", "or versus vs"),
    **words_to("~", "not without neither lack lacks lacking instead rather absence"),
    **words_to(
        "!",
        "never absent missing silent wrong incorrect isnt arent wasnt werent dont doesnt didnt cant wont "
        "couldnt wouldnt shouldnt hasnt havent hadnt aint",
    ),
    **words_to(
        "a",
        "is are was were am be been being do does did can will would should shall has have had must may",
    ),
    **words_to("?", "maybe perhaps possibly might unsure uncertain unclear dunno guess except"),
    **words_to("h", "sure certain clear know tell determine determined say idea"),
    **words_to("d", "hard difficult impossible unable"),
    TICK_WORD: "M",
    CROSS_WORD: "X",
    "x": "X",
    UNCLEAR_SYMBOL_WORD: "?",
}


@dataclass(frozen=True)
class Vocabulary:
    """The marks of a reader's words and of the instrument names it knows (vocabulary.py)."""

    marks: dict[str, str]  # word -> mark
    # first mark -> (marks of a multi-word name, its class mark), the longest name first
    phrases: dict[str, tuple[tuple[str, str], ...]]
    phrase_start: re.Pattern  # finds the first mark of any multi-word name
    options: tuple[str, ...]  # the mark of each candidate (then of each letter)


def marks_of(words: list[str], table: dict[str, str], names: Vocabulary) -> str:
    """One mark per word (a word the table lacks: "."), multi-word names resolved, the longest
    first."""
    marks = "".join(map(table.get, words, repeat(".")))
    if names.phrase_start.search(marks):
        for first, group in names.phrases.items():
            for phrase, mark in group if first in marks else ():
                marks = marks.replace(phrase, mark)
    return marks


def without(marks: str, helpers: str) -> str:
    """The marks with the helper marks dropped (str.replace: translate is slow on non-ASCII text)."""
    for helper in helpers:
        marks = marks.replace(helper, "")
    return marks


# "not sure", "can not tell", "no idea", "hard to tell", "could be"
_HEDGE = re.compile(r"~a?h|nh|d\.?h|ca")
_NEW_CLAUSE = re.compile(r"[&/](?=\.?[Sn~])")  # "and I hear", "and no banjo", "or not"
_MEANS_ONLY = re.compile(r"~\^|z[_E]|nO")  # "not only", "nothing but", "nothing else", "no other"
_SAYS_NOTHING = re.compile(r"[n~]\.?D")  # "no doubt", "without a doubt"


def clauses(marks: str) -> str | None:
    """None for a hedge; else fixed phrases resolved ("not only", "nothing but", "no doubt"), "and"
    / "or" before a new clause (a subject S, "no", "not") made a clause end, negated auxiliaries
    ("is not", "could not") made whole-part negations."""
    if _HEDGE.search(marks):
        return None
    marks = _MEANS_ONLY.sub(";", marks.replace("&/", "/"))
    if "D" in marks:
        marks = _SAYS_NOTHING.sub("", marks)
    marks = without(marks, "EOD").replace("^", ";").replace("_", ";").replace("z", "#")
    if "&" in marks or "/" in marks:
        marks = _NEW_CLAUSE.sub(";", marks)
    if "c" in marks:
        marks = marks.replace("c~", "!").replace("c", "a")
    return marks.replace("a~", "!")
