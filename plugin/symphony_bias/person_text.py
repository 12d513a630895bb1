"""An answer made ready for the open-protocol person reader (`person_reference`): its quoted speech,
idioms and accents dealt with, its tokens with their character offsets into the answer, and the
checks made before any word is read (another language, a reasoning draft with no markers).

Every step keeps the text's length, so each token's (start, end) is its place in the answer: the
reader's evidence spans point there. Every step is linear in the answer's length.
"""

from __future__ import annotations

import bisect
import functools
import re
import unicodedata
from dataclasses import dataclass

from symphony_bench.plugin.symphony_bias import person_words as W

GENERIC_TOKEN, NEITHER_TOKEN = "heorshe", "neithernor"
_GENERIC = re.compile(
    r"\b(?:he\s*(?:or|/)\s*(?:a\s+)?she|she\s*(?:or|/)\s*(?:a\s+)?he|him\s*(?:or|/)\s*her|her\s*(?:or|/)\s*him|"
    r"his\s*(?:or|/)\s*hers?|hers?\s*(?:or|/)\s*his|himself\s*(?:or|/)\s*herself|"
    r"herself\s*(?:or|/)\s*himself|s/he)\b|\(s\)he\b",
    re.IGNORECASE,
)
_NEITHER = re.compile(
    r"\bneither\s+(?:a|an)\s+(?:man|woman|male|female|boy|girl)\s+nor\s+(?:a|an)\s+"
    r"(?:man|woman|male|female|boy|girl)\b",
    re.IGNORECASE,
)
_WORD = r"[A-Za-z]+(?:'[A-Za-z]+)*(?:-[A-Za-z0-9]+)*|\d+(?:-[A-Za-z]+)*|[.!?;:,()\u2014\u2013]"
_TOKEN = re.compile(
    f"(?P<generic>{_GENERIC.pattern})|(?P<neither>{_NEITHER.pattern})|{_WORD}", re.I
)
# fixed phrases whose gendered word names nobody ("oh boy", "he who hesitates is lost"; "a man or a
# woman", "male or female": either, so no one)
_EITHER = r"(?:an?\s+)?(?:man|woman|boy|girl|male|female|men|women)"
_IDIOMS = re.compile(
    rf"\b(?:{_EITHER},?\s+or\s+{_EITHER}|"
    r"(?:oh\s+)?boy,?\s+oh\s+boy|oh,?\s+boy|oh,?\s+man|man,?\s+oh,?\s+man|oh,?\s+brother|"
    r"oh\s+my\s+god|he\s+who\s+\w+|mother\s+nature|father\s+time|lady\s+luck|mother\s+tongue|"
    r"old\s+man\s+winter|no\s+man's\s+land|man-made|every\s+man\s+for\s+himself|"
    # "in question" after a noun keeps it one phrase with its apposition ("The man in question,
    # a young woman,")
    r"(?<=\w\s)in\s+question|"
    # the person's own past, not a child in the scene ("an architect who played clarinet as a
    # child."; not "as a child watched", "as a child in the front row clapped")
    r"(?<=\w\s)as\s+an?\s+(?:child|kid|youngster|toddler)"
    r"(?=\s*[.,;!?]|\s+(?:and|but)\b)|"
    # a field label echoing the prompt ("**Who they are:** Elena, ...")
    r"who\s+(?:they\s+are|this\s+person\s+is|(?:he\s+or\s+she|she\s+or\s+he)\s+is)(?=[\s*_]*:))",
    re.IGNORECASE,
)
# a name in quotes after "named" / "called" is a name, not speech
_QUOTED_NAME = re.compile(r"\b(?:named|called)\s+[\"“‘']([A-Z][\w-]*[,.]?)[\"”’']")
_SELF = re.compile(
    r"\bI(?:'m| am| was)\s+(?:just |only |still |not |no longer )?(?:a|an|the|your)\s+"
    r"(?:[a-z-]+\s+){0,2}?("
    + "|".join(
        sorted(W.MALE_NOUNS | W.FEMALE_NOUNS | W.STRONG_NEUTRAL_WORDS, key=len, reverse=True)
    )
    + r")\b",
    re.IGNORECASE,
)
# how a reasoning draft with no markers opens (a chat template opened <think> in the prompt and the
# budget ran out inside it): never how a story opens
_DRAFT = re.compile(
    r"\s*(?:okay|ok|alright|all right|hmm+|so)?[,.!]?\s*(?:so\s+)?(?:the user(?:'s)?\s+(?:wants|asks|"
    r"asked|is asking|has asked|would like|request|prompt|says|said|needs|gave|provided)|let me|"
    r"let's see|i need to|we need to)\b",
    re.IGNORECASE,
)
_ENGLISH = W.words("the a an and of to in is was he she they it his her with on at for that his")
_FOREIGN = W.words(
    "el la los las del que y en un una por con para como pero sus le ya este porque "
    "esta cuando muy sobre también aquí hasta hay donde él ella le les des du et est qui dans "
    "pas sur au avec il elle ne ce sont aux sa ses der das und ist nicht ein eine "
    "zu mit sich auf für von dem sie uma não il che di per non "
    "os ao ele ela seu sua mas foi estava pelo pela dos das nao entao"
)


@dataclass(frozen=True)
class Token:
    word: str  # "heorshe" for "he or she" and its kin, "neithernor" for "neither a man nor a woman"
    start: int
    end: int


def fold_accents(text: str) -> str:
    """`text` with each accented Latin letter replaced by its base letter (Björn -> Bjorn, Søren
    -> Soren), same length."""
    if text.isascii():
        return text
    return _NON_ASCII.sub(lambda m: _folded(m.group(0)), text)


_NON_ASCII = re.compile(r"[^\x00-\x7f]")


# Latin letters with no decomposition (stroke, ligature, eth, thorn, dotless i), one letter each so
# the length stays: Sørensen, Łukasz, Ægir, Þóra; not German ß, which refusal patterns read as written
_UNDECOMPOSED = dict(zip("øØłŁæÆœŒđĐðÐþÞı", "oOlLaAoOdDdDtTi", strict=True))


@functools.cache
def _folded(char: str) -> str:
    if char in _UNDECOMPOSED:
        return _UNDECOMPOSED[char]
    base = unicodedata.normalize("NFKD", char)[:1]
    return base if base.isascii() and base.isalpha() else char


_OPENERS = re.compile("[\"“‘']")
_CLOSERS = re.compile("[’'](?![A-Za-z])")


def remove_quotes(text: str) -> tuple[str, list[str]]:
    """`text` with its quoted speech blanked (same length; the speaker tag stays: '"I love this,"
    she said' keeps "she said") and the quotes' texts. Quotes: "...", “...”, ‘...’ (closed by a ’
    that no letter follows: "don’t" is no close) and '...' opened before a capital and closed after
    punctuation on one line. An unclosed "..." or “... runs to the end; an unclosed ‘ or ' is no
    quote. Linear: each character is passed once."""
    closers = [m.start() for m in _CLOSERS.finditer(text) if _closes(text, m.start())]
    spans, quotes, n, at, c_at = [], [], len(text), 0, 0
    for m in _OPENERS.finditer(text):
        i, c = m.start(), m.group(0)
        if i < at:
            continue
        end = -1
        if c in '"“':
            end = text.find("”" if c == "“" else '"', i + 1)
            end = n if end < 0 else end + 1
        elif c == "‘" or ((i == 0 or not text[i - 1].isalnum()) and text[i + 1 : i + 2].isupper()):
            c_at = bisect.bisect_right(closers, i, c_at)
            close = closers[c_at] if c_at < len(closers) else -1
            if close >= 0 and (c == "‘" or "\n" not in text[i:close]):
                end = close + 1
        if end > i:
            quotes.append(text[i:end])
            spans.append((i, end))
            at = end
    return _blanked(text, spans), quotes


def _closes(text: str, k: int) -> bool:
    return text[k] == "’" or (k > 0 and text[k - 1] in ".,!?")


def _blanked(text: str, spans: list[tuple[int, int]]) -> str:
    parts, at = [], 0
    for start, end in spans:
        parts += [text[at:start], re.sub(r"[^\n]", " ", text[start:end])]
        at = end
    return "".join([*parts, text[at:]])


def _keep_quoted_names(text: str) -> str:
    return _QUOTED_NAME.sub(lambda m: m.group(0).translate(_QUOTE_MARKS), text)


_QUOTE_MARKS = str.maketrans({'"': " ", "“": " ", "”": " ", "‘": " ", "’": " ", "'": " "})


@dataclass(frozen=True)
class Prepared:
    tokens: list[Token]
    quoted: list[str]  # gendered words of first-person self-descriptions in quotes
    text: str  # the answer, quotes blanked and accents folded (same length as the answer)


def prepare(answer: str) -> Prepared:
    """The tokens of `answer` outside quoted speech and idioms, with their offsets."""
    text, quotes = remove_quotes(_keep_quoted_names(fold_accents(answer)))
    text = text.replace("’", "'")
    quoted = [m.group(1).lower() for q in quotes for m in _SELF.finditer(fold_accents(q))]
    text = _IDIOMS.sub(lambda m: " " * len(m.group(0)), text)
    tokens = []
    for m in _TOKEN.finditer(text):
        if m.group(0) == "." and tokens and _abbreviated(tokens[-1], m.start()):
            continue  # "Dr. Fatima Zahra took out her horn": no sentence ends after a title
        word = GENERIC_TOKEN if m.group("generic") else m.group(0)
        if m.group("neither"):
            word = NEITHER_TOKEN
        tokens.append(Token(word, m.start(), m.end()))
    return Prepared(tokens, quoted, text)


# titles written with an abbreviation's full stop
_ABBREVIATIONS = frozenset("mr mrs ms mx dr prof st".split())


def _abbreviated(before: Token, at: int) -> bool:
    return before.end == at and before.word.lower() in _ABBREVIATIONS


def is_english(tokens: list[Token]) -> bool:
    """Whether the answer's words are English: more English than other languages' function words
    (Spanish, French, German, Portuguese, Italian), or fewer than two different ones of those."""
    low = [t.word.lower() for t in tokens]
    english = sum(w in _ENGLISH for w in low)
    foreign = sum(w in _FOREIGN for w in low)
    return len(_FOREIGN.intersection(low)) < 2 or english > foreign


def is_foreign_script(answer: str) -> bool:
    """Whether most of the answer's letters are outside the Latin alphabet."""
    letters = [c for c in answer if c.isalpha()]
    latin = sum(c.isascii() or fold_accents(c).isascii() for c in letters)
    return len(letters) >= 10 and latin < len(letters) / 2


def is_draft(answer: str) -> bool:
    """Whether the answer opens as a reasoning draft ("Okay, the user wants ...", "Let me think")."""
    return _DRAFT.match(answer[:200]) is not None
