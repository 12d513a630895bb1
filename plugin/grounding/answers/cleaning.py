"""An answer as clean words: the first step of every grounding reader.

After any reasoning (plugin.core.reasoning), the answer becomes ASCII, lower case, with contractions
spelled out ("don't" -> "do not"), the questions it echoes ("Is there a piano in this audio clip?")
dropped, its refusals set aside and its negations in words reworded (negations_and_refusals). A
reader then turns punctuation into the words ";" (clause end) and "," (list separator), each reader
with its own table built on SEPARATORS.

Symbols next to a name ("guitar \u2713, banjo \u2717") become the words TICK_WORD / CROSS_WORD; a
symbol that could be a mark but has no clear polarity (a ballot box, a star, a circle, "[x]")
becomes UNCLEAR_SYMBOL_WORD, and a capital "A" standing alone may be kept apart as CAPITAL_A (the
letter readers). These words are control characters: an answer's own are removed first.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from symphony_bench.plugin.core.reasoning import split_reasoning
from symphony_bench.plugin.grounding.answers.negations_and_refusals import (
    spelled_negations,
    without_refusals,
)

CAPITAL_A = "\x01"
TICK_WORD, CROSS_WORD, UNCLEAR_SYMBOL_WORD = "\x02", "\x03", "\x04"

_ASCII_OF = {
    "\u2018": "'",
    "\u2019": "'",
    "\u201c": '"',
    "\u201d": '"',
    "\u2010": "-",
    "\u2011": "-",
    "\u2013": "-",
    "\u2014": "-",
    "\u2212": "-",
    "\u00a0": " ",
}
_SYMBOLS_OF_WORD = {
    TICK_WORD: "\u2713\u2714\u2611\u2705\u221a\U0001f5f8\U0001f44d",
    CROSS_WORD: "\u2717\u2718\u274c\u274e\u2612\u2716\u2a2f\u00d7\U0001f5f4\U0001f5d9\U0001f44e\U0001f6ab\u26d4",
    UNCLEAR_SYMBOL_WORD: "\u2610\u2b1c\U0001f532\U0001f533\u2b55\u271a\u2795\u2796\u2295\u2296\u2753\u2754"
    "\u2605\u2606\u2b50\U0001f7e2\U0001f534\U0001f7e9\U0001f7e5",
}
_CHECKBOXES = ("[x]", "(x)", "[ ]", "[]", "( )")  # ticked or crossed?
_NON_ASCII = re.compile(r"[^\x00-\x7f]+")
_CONTROL_CHARACTERS = {**dict.fromkeys([*map(chr, range(32)), "\x7f"], " "), "\n": "\n", "\r": "\n"}
_CONTROL = str.maketrans(_CONTROL_CHARACTERS)
_TO_ASCII = str.maketrans(  # control characters, then symbols, then the rest of non-ASCII text
    {
        **_CONTROL_CHARACTERS,
        **_ASCII_OF,
        **{symbol: f" {word} " for word, symbols in _SYMBOLS_OF_WORD.items() for symbol in symbols},
    }
)
_CAPITAL_A_ALONE = re.compile(r"A(?<![A-Za-z0-9_']A)(?![A-Za-z0-9_'])")
_CONTRACTIONS = (
    ("can't", "can not"),
    ("won't", "will not"),
    ("n't", " not"),
    ("cannot", "can not"),
    ("'s", " is"),
    ("'m", " am"),
    ("'re", " are"),
    ("'ve", " have"),
    ("'ll", " will"),
    ("'d", " would"),
)
# on the reversed text: a question back to its sentence start
_QUESTION_REVERSED = re.compile(r"\?[^.!?\n]*+")
SEPARATORS = {
    **dict.fromkeys(".;!?\n\r", ";"),
    **dict.fromkeys(",:()[]{}<>", ","),
    **dict.fromkeys("-'\"*_#`~|\\=^$%@", " "),
}
_PUNCTUATION = str.maketrans(SEPARATORS)


class Prepared(NamedTuple):
    text: str  # spelled out, echoed questions dropped, refusals set aside, negations reworded
    refused: bool  # whether a part of the answer refused


def _spelled_out(text: str, capital_a: bool = False) -> str:
    """ASCII, lower case, contractions spelled out. With capital_a, a capital "A" standing alone is
    kept apart (a letter, unless an instrument name follows)."""
    if text.isascii():
        text = text.translate(_CONTROL)
    else:
        text = _NON_ASCII.sub(" ", text.translate(_TO_ASCII))
    if capital_a:  # its neighbours are already spaces or punctuation
        text = _CAPITAL_A_ALONE.sub(CAPITAL_A, text)
    text = text.lower()
    if "'" in text or "cannot" in text:
        for contraction, spelled in _CONTRACTIONS:
            text = text.replace(contraction, spelled)
    if "[" in text or "(" in text:
        for box in _CHECKBOXES:
            text = text.replace(box, f" {UNCLEAR_SYMBOL_WORD} ")
    return text


def prepared_answer(text, capital_a: bool = False) -> Prepared | None:
    """The answer after any reasoning, prepared for a reader; None if it is not a string or its
    reasoning never closed."""
    reply = split_reasoning(text)
    if not isinstance(text, str) or reply.unfinished:
        return None
    text = _spelled_out(reply.answer, capital_a)
    text, refused = without_refusals(
        _QUESTION_REVERSED.sub(" ", text[::-1])[::-1] if "?" in text else text, CAPITAL_A
    )
    return Prepared(spelled_negations(text), refused)


def dashes_as_list_separators(text: str) -> str:
    """A spaced dash or a double dash separates list parts ("No - there is no piano")."""
    return text.replace(" - ", " , ").replace("--", " , ")


def cleaned(prepared: str, punctuation=_PUNCTUATION) -> str:
    """Punctuation turned into the words ";" and ","; "&", "+", "/" into "and", "or"."""
    text = prepared.replace("&", " and ").replace("+", " and ").replace("/", " or ")
    return text.translate(punctuation).replace(";", " ; ").replace(",", " , ")


def normalise_answer(text) -> str:
    """Lower case ASCII words: dashes unified, contractions spelled out ("can't" -> "can not"),
    everything but letters, digits, '-' and spaces turned into spaces."""
    spelled = _spelled_out(text) if isinstance(text, str) else ""
    return " ".join(re.sub(r"[^a-z0-9\- ]+", " ", spelled).split())


def answer_refused(text) -> bool:
    """Whether the answer declines the task or says the audio never reached the model
    (negations_and_refusals): a reader that reads nothing from it counts it as refused, not
    unreadable."""
    prepared = prepared_answer(text)
    return prepared is not None and prepared.refused
