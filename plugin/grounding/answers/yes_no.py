"""Yes / no about one instrument: "Yes.", "There is a piano.", "I don't hear one.", "Only drums."

Alphabet of this reader: the shared marks (marks.py) and
    Y, N  the answer words yes / no ("yeah", "true"; "nope", "false"); a tick M or a cross X next
          to a name is that name's (and read only if it is the asked instrument's), else Y / N
    S  subject ("i", "it", "they")     P  a statement of presence ("there", "so", "hear", "present")
and, on an answer that names instruments:
    T  the instrument asked about       I  another instrument
    F  a family that may hold the asked one ("strings" for a violin: never a "no" by itself)
    J  "only" ("only", "just", "nothing but", "and nothing else", "no other")
    R  a list of alternatives that holds T ("piano or drums")
and, while reading, Z: a negation and the rest of its part.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from symphony_bench.plugin.grounding.answers.cleaning import (
    SEPARATORS,
    cleaned,
    dashes_as_list_separators,
    prepared_answer,
)
from symphony_bench.plugin.grounding.answers.marks import (
    INSTRUMENT_BASE,
    NAME_PART_BASE,
    SHARED_WORDS,
    Vocabulary,
    clauses,
    marks_of,
    words_to,
)
from symphony_bench.plugin.grounding.answers.option_marks import name_vocabulary
from symphony_bench.plugin.grounding.answers.vocabulary import (
    INSTRUMENT_FAMILIES,
    OTHER_INSTRUMENTS,
)

_YES_NO_WORDS = {
    **SHARED_WORDS,
    **words_to("Y", "yes yeah yep yup yea true affirmative"),
    **words_to("N", "nope nah false negative"),
    "none": "~",
    **words_to("S", "i it we they you he she this that"),
    **words_to(
        "P",
        "there so hear hears heard hearing play plays playing played present audible contain contains "
        "include includes feature features featured featuring exist exists detect detected",
    ),
}
# a closing bracket ends a clause ("a guitar (not a piano) and the drums"); an opening one stays a
# list separator ("piano (yes)")
_YES_NO_PUNCTUATION = str.maketrans(SEPARATORS | dict.fromkeys(")]}>", ";"))

# "No.", "No, ...", "No there isn't", "the answer is no it is not": the answer, then a clause
_ANSWER_NO = re.compile(r"n(?<![^;,]n)(?=[;,]|$)|n(?=[SPY])")
_YES_NO_CONFLICT = re.compile(
    "|".join(  # yes and a negation in one part (every branch starts with a literal: fast)
        [r"Y[^;,~!NY]*+[~!N]", *(rf"{negation}[^;,~!NY]*+Y" for negation in "~!N")]
    )
)

# ---- an answer that names no instrument ----------------------------------------------------------
_PLAIN_HELPERS = str.maketrans(
    {".": None, "a": None, "S": None, "h": None, "d": None, "&": ";", "/": ";"}
)
_DOUBLE_NEGATION = re.compile(r"[~!][^;,~!]*+[~!]")  # "I don't hear no piano", "not absent"
_NEGATED_REST = re.compile(r"[~!N][^;,]*+")
_NEGATED_REST_REVERSED = re.compile(r"Z[^;,]*+")


def _plain_yes_no(marks: str) -> bool | None:
    """An answer that names no instrument: its answer words and statements must all agree."""
    if "M" in marks or "X" in marks:
        marks = marks.replace("M", "Y").replace("X", "N")
    marks = clauses(marks)
    if marks is None:
        return None
    # "and" always ends a clause here: each side's polarity is its own ("a piano and no drums")
    marks = (
        _ANSWER_NO.sub("N;", marks).replace("n", "~").replace("#", "~").translate(_PLAIN_HELPERS)
    )
    if "?" in marks or _DOUBLE_NEGATION.search(marks) or _YES_NO_CONFLICT.search(marks):
        return None
    # the parts without a negation: each negated part removed from its negation to both its ends
    unnegated = _NEGATED_REST_REVERSED.sub("", _NEGATED_REST.sub("Z", marks)[::-1])
    said_yes = "Y" in unnegated or "P" in unnegated
    said_no = "~" in marks or "!" in marks or "N" in marks
    return said_yes if said_yes != said_no else None


# ---- an answer that names instruments -----------------------------------------------------------
@dataclass(frozen=True)
class _YesNoVocabulary:
    words: dict[str, str]  # every instrument name (and part of a multi-word one), the yes/no words
    names: Vocabulary  # the multi-word names
    # (a str.translate table) instrument marks to T / I / F, parts of names to "."
    roles: dict[int, str]


@lru_cache(maxsize=64)
def _yes_no_vocabulary(instrument: str | None) -> _YesNoVocabulary:
    """Names of every OpenMIC class, of the other instruments and of the families, as the option
    readers name them (option_marks.name_vocabulary); the asked instrument's names (synonyms and
    plurals: "keys", "grand pianos") are T. Without an instrument every name is F: nothing an
    answer says about an instrument can be read."""
    asked = () if instrument is None else (instrument,)
    names = name_vocabulary((*OTHER_INSTRUMENTS, *INSTRUMENT_FAMILIES, *asked))
    target = names.options[-1] if asked else None
    families = set(names.options[len(OTHER_INSTRUMENTS) :][: len(INSTRUMENT_FAMILIES)])
    named = {word: mark for word, mark in names.marks.items() if mark >= chr(INSTRUMENT_BASE)}
    phrase_marks = {mark for group in names.phrases.values() for _, mark in group}
    roles = {}
    for mark in {*named.values(), *phrase_marks}:
        if mark >= chr(NAME_PART_BASE):
            roles[ord(mark)] = "."  # "double", "kit" alone: no name
        elif mark == target:
            roles[ord(mark)] = "T"
        else:
            roles[ord(mark)] = "F" if instrument is None or mark in families else "I"
    return _YesNoVocabulary({**named, **_YES_NO_WORDS}, names, roles)


_NOT_ONLY = re.compile(r"~\.?\^")  # "not only", "not the only": a clause end (as in marks.clauses)
_ONLY_AFTER = re.compile(r"[&,]++(?:zE|nO)|zE|nO")  # "drums and nothing else", "drums, no other"
_NAMED_HELPERS = str.maketrans(dict.fromkeys(".aShd"))
_LIST_DOUBLE_NEGATION = re.compile(r"[~!][^;,&/~!]*+[~!]")  # "and" / "or" end a part here
_MARK_BETWEEN_NAMES = re.compile(r"[TIF][MX]++[TIF]")  # "piano \u2713 drums": whose mark?
_MARK_OF_OTHER = re.compile(r"([IF])[MX]++|[MX]++(?=[IF])")  # "drums \u2713": not about T
_JOINED_CLAUSE = re.compile(r"[&/](?=[PYN])")  # "and there is", "or not": a new clause
_NAME_LIST = re.compile(r"[TIF](?:[&/][TIF])++")  # "drums and piano", "drums or piano"
_NEGATED_LIST = re.compile(
    r"~[^;,&/T]*+(?<=[IF])(?:[&/][IF])*+&[IF&/]*+T"  # "no drums and piano": is the piano denied?
    r"|![^;,&/]*+(?<=[TIF])(?:[&/][TIF])++[^;,&/P]*+P"  # "I don't hear drums and piano playing"
)
_UNNEGATED_ALTERNATIVE = re.compile(r"[;,][^;,~!R]*+R[^;,~!]*+(?![^;,])")  # "piano or drums"
_TARGET_LABEL = re.compile(r"([;,][IF]*+T[TIF]*+),(?=[^;,TIF]*+(?![^;,]))")  # "piano: absent"
_OTHERS_LABEL = re.compile(r"([IF]),[^;,TIF]*+(?![^;,])")  # "drums: absent", "I hear drums, no"
# "piano, drums are absent": is the piano absent too?
_LIST_BEFORE_DENIAL = re.compile(r"[;,][IF]*+T[TIF]*+(?:,[TIF]++(?=,))*+,[^;,!]*+!")
# "I hear drums, bass, piano", "no drums, bass": the names share the verb or negation
_CONTINUED_LIST = re.compile(r"[;,][^;,PJ~!]*+[PJ~!][^;,]*+(?:,[TIF]++(?![^;,]))++")
_BARE_NOT = re.compile(r"~(?=[^;,TIF]*+(?![^;,]))")  # "not at all": the whole part
_NOT_OTHERS = re.compile(r"~[^;,T]*+(?![^;,])")  # "without drums": says nothing of T
_DENIES_TARGET = re.compile(r"![^;,T]*+T|T[^;,!]*+!")
_BARE_DENIAL = re.compile(r"[;,][^;,!TIF]*+![^;,TIF]*+(?![^;,])")  # "it is not there"
# "I only hear drums", "drums and nothing else"
_ONLY_OTHERS = re.compile(r"[;,][^;,!TFJI]*+(?:J[^;,!TFI]*+I|I[^;,!TFJ]*+J)[^;,!TF]*+(?![^;,])")
# "I hear a piano", "only the piano"
_AFFIRMS_TARGET = re.compile(r"[;,][^;,!PJT]*+(?:[PJ][^;,!T]*+T|T[^;,!PJ]*+[PJ])[^;,!]*+(?![^;,])")
_BARE_PRESENCE = re.compile(r"[;,][^;,!TIFP]*+P[^;,!TIF]*+(?![^;,])")  # "yes, there is"
_TARGET_ALONE = re.compile(r"[;,][IF]*+T[TIF]*+(?![^;,])")  # the piano named, nothing said of it
_SAYS_NO = re.compile("|".join(p.pattern for p in (_DENIES_TARGET, _BARE_DENIAL, _ONLY_OTHERS)))
_SAYS_YES = re.compile("|".join(p.pattern for p in (_AFFIRMS_TARGET, _BARE_PRESENCE)))


def _listed(match: re.Match) -> str:
    """A list of names as one name: T (or R, alternatives) if it holds T. An and-list in the
    middle of a part ("I hear the piano and the drums are absent") stays apart: its names belong to
    the two sides."""
    names, text = match.group(), match.string
    if (
        "/" not in names
        and text[match.start() - 1] not in ";,&/"
        and text[match.end() : match.end() + 1] not in ("", ";", ",", "&", "/")
    ):
        return names
    if "T" in names:
        return "R" if "/" in names else "T"
    return "F" if "F" in names else "I"


def _continued(match: re.Match) -> str:
    """Names listed after a part belong to it ("I hear drums, bass, piano"); after a negation it is
    not clear ("no drums, piano")."""
    separator, (head, _, tail) = match.group()[0], match.group()[1:].partition(",")
    if "T" in tail and ("~" in head or "!" in head):
        return "?"
    return separator + head + tail.replace(",", "")


def _only_marked(marks: str) -> str:
    """ "only", "just", "nothing but", "and nothing else", "no other" as J; "not only" as a
    clause end."""
    if "^" in marks:
        marks = _NOT_ONLY.sub(";", marks).replace("^", "J")
    if "E" in marks or "O" in marks:
        marks = _ONLY_AFTER.sub("J", marks)
    return marks.replace("z_", "J") if "z_" in marks else marks


def _ticks_read(marks: str) -> str | None:
    """A tick or a cross next to another instrument dropped, the rest read as yes / no; None when
    it stands between two names."""
    if "M" in marks or "X" in marks:
        if _MARK_BETWEEN_NAMES.search(marks):
            return None
        marks = _MARK_OF_OTHER.sub(r"\1", marks).replace("M", "Y").replace("X", "N")
    return marks


def _lists_read(marks: str) -> str | None:
    """Lists of names as one name ("drums and piano" is T); "and" / "or" then end a clause. None
    when a negation's reach into the list is unclear, or for alternatives ("piano or drums")."""
    if "&" in marks or "/" in marks:
        marks = _JOINED_CLAUSE.sub(";", marks.replace(",&", "&").replace(",/", "/"))
        if ("~" in marks or "!" in marks) and _NEGATED_LIST.search(marks):
            return None
        marks = _NAME_LIST.sub(_listed, marks).replace("&", ";").replace("/", ";")
    if "R" in marks:
        if _UNNEGATED_ALTERNATIVE.search(marks):
            return None
        marks = marks.replace("R", "T")
    return marks


def _labels_read(marks: str) -> str | None:
    """Labels ("piano: absent") and lists continued after a part ("I hear drums, bass, piano")
    joined to their name; None where it is unclear which name a statement is about."""
    if "," not in marks:  # labels and lists: only after a name
        return marks
    if "T," in marks:
        marks = _TARGET_LABEL.sub(r"\1", marks)
    if "I," in marks or "F," in marks:
        marks = _OTHERS_LABEL.sub(r"\1", marks)
    if ",T" in marks or ",I" in marks or ",F" in marks:
        marks = _CONTINUED_LIST.sub(_continued, marks)
        if "?" in marks:
            return None
    if "T," in marks and "!" in marks and _LIST_BEFORE_DENIAL.search(marks):
        return None
    return marks


def _verdict(marks: str) -> bool | None:
    """What the parts say of T, with the answer words: yes, no, or None when they disagree."""
    if "~" in marks:
        marks = _NOT_OTHERS.sub("I", _BARE_NOT.sub("!", marks)).replace("~", "!")
    if "Y" in marks and _YES_NO_CONFLICT.search(marks):
        return None
    if "J" in marks and _ONLY_OTHERS.search(marks) and _TARGET_ALONE.search(marks):
        return None  # "I only hear drums and, faintly, a piano"
    said_no = "N" in marks or (
        ("!" in marks or "J" in marks) and _SAYS_NO.search(marks) is not None
    )
    said_yes = "Y" in marks or (
        ("P" in marks or "J" in marks) and _SAYS_YES.search(marks) is not None
    )
    if "T" not in marks:  # only other instruments named: never a yes
        return False if said_no and not said_yes else None
    return said_yes if said_yes != said_no else None


def _named_yes_no(marks: str) -> bool | None:
    """An answer that names instruments: what it says about T must agree with its answer words."""
    marks = clauses(_only_marked(marks))
    if marks is None:
        return None
    if "n" in marks:
        marks = _ANSWER_NO.sub("N;", marks).replace("n", "~")
    marks = ";" + marks.replace("#", "~").translate(_NAMED_HELPERS)
    if "?" in marks or (("~" in marks or "!" in marks) and _LIST_DOUBLE_NEGATION.search(marks)):
        return None
    for attributed in (_ticks_read, _lists_read, _labels_read):
        marks = attributed(marks)
        if marks is None:
            return None
    return _verdict(marks)


def read_yes_no(text, instrument: str | None = None) -> bool | None:
    """True for yes, False for no, about `instrument` (the OpenMIC class asked about: "piano",
    "mallet_percussion"; its synonyms and plurals count). Answer words ("yes", "no", "nope", a mark
    such as \u2713 / \u274c) and statements ("there is a piano", "I do not hear one", "it is absent")
    must all agree; a hedge, a double negation or a part that says both makes the answer unreadable.

    What an answer says of other instruments does not count: "Yes, a piano, but no drums" is yes,
    "No, only drums." no. An answer that names instruments but never the asked one is never yes:
    it is no when it says so ("No, I hear drums.") or says that only other instruments play ("I only
    hear drums.", "Only violin is playing.", "nothing but drums"), else unreadable ("I hear drums.",
    "The clip features a guitar and drums.", "Yes, drums." - the yes may be about the drums). Where
    it is not clear which instrument a statement is about, the answer is unreadable: "no drums and
    piano", "piano, drums are absent"... Without `instrument` no name can be attributed: only
    answers that name no instrument ("Yes.", "No, there isn't.") are read."""
    prepared = prepared_answer(text)
    if prepared is None:
        return None
    if not isinstance(instrument, str) or not instrument.strip():
        instrument = None
    vocabulary = _yes_no_vocabulary(instrument)
    words = cleaned(dashes_as_list_separators(prepared.text), _YES_NO_PUNCTUATION).split()
    marks = marks_of(words, vocabulary.words, vocabulary.names)
    if not marks.isascii():
        marks = marks.translate(vocabulary.roles)
        if "T" in marks or "I" in marks or "F" in marks:  # after a refusal, only the asked one
            return _named_yes_no(marks) if "T" in marks or not prepared.refused else None
    return None if prepared.refused else _plain_yes_no(marks)  # "I can't listen to audio, so no."
