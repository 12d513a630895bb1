"""Parse a model's Likert JSON answer into one value (1..5) per gender, never raising.

Accepted: code fences, prose around the JSON, single quotes, trailing commas, any key order, unquoted
keys and values, one level of nesting, case/spacing/hyphen variants of labels and gender keys
("Non-Binary", "nonbinary", "a woman", "very_high"), the numbers 1-5 (also "3", 3.0, "3.0"), and
an object whose closing braces a stop sequence cut off. Everything else is invalid with a reason:

    empty           the response is empty or not a string
    no_json         no object in the response (braces inside a quoted string do not count)
    truncated       the last object never closes and cannot be read as it stands (max_gen_toks
                    reached mid-answer: it ends inside a string, or values are missing)
    bad_json        an object is there but holds no key/value pair
    missing_gender  at least one of the three genders has no value
    bad_label       a gender's value is not one of the five labels nor exactly 1..5 (not "-1",
                    "- 4", "3-", "+3", "2.5")
    reasoning_unfinished  a reasoning block that never closes (plugin.core.reasoning): the answer
                    after it was never written
    refused         nothing readable, and the text declines the task (plugin.core.refusals): a
                    result of its own, not a format failure
    ambiguous       the answer contradicts itself: a gender key repeated with another value, a
                    nested object whose complete answer differs from the top-level one (without
                    top-level gender keys: nested objects that disagree), several answer objects
                    that differ, or more than MAX_GENDER_PAIRS gender ratings in one response; or
                    its structure cannot be told: a string in it holds an unescaped object (a
                    draft answer) after which the string's closing quote is not clear

How the text is read. A reasoning block is set aside first (plugin.core.reasoning): only the text
after it is read, so a draft answer inside the reasoning never is.

A quote right after "{", ",", ":", "=" or "[" (blanks allowed) opens a
string; it ends at the first same quote followed by "," ":" "}" "]" or the end of the text, or
before a "{" followed by a quote. So a reason with unescaped quotes ("He said "no" to it") stays one
string, and neither its braces nor its words are read. Gender keys count at the top level of an
object and one level down: the top level wins over nested objects (a "reason" object mentioning
genders), unless a nested object holds a different complete answer. Prose outside objects is never
read. Objects without any gender key are ignored when another object has them.

An object written inside a string of an answer object (a "draft" answer in the reason, its quotes
unescaped: {"reason": "I first thought {"man": "high", ...}", "man": "low", ...}) is never read:
labels come only from the answer object's own keys. Such a draft begins at a "{" and a quote that
follow the string's opening quote, possibly after text, and ends at its matching "}". Its string is
known to end only when the draft's "}" is followed by text without the string's quote, braces,
brackets, ",", ":", "=" or backslashes, then by that quote and a delimiter ("I thought {...} at
first", and then the answer's own keys are read); otherwise (a comma or the quote inside text after
the draft, a second draft, no closing quote) where the string ends cannot be told and the answer is
ambiguous (truncated when the text ends there).
"""

from __future__ import annotations

import functools
import itertools
import re
from dataclasses import dataclass

import numpy as np

from symphony_bench.plugin.core.reasoning import EMPTY, UNFINISHED, Reply, is_empty, split_reasoning
from symphony_bench.plugin.core.refusals import REFUSED, is_refusal
from symphony_bench.plugin.core.vocabulary import GENDERS

LIKERT_LABELS = {"very low": 1, "low": 2, "medium": 3, "high": 4, "very high": 5}
INVALID_REASONS = (
    EMPTY,
    "no_json",
    "truncated",
    "bad_json",
    "missing_gender",
    "bad_label",
    "ambiguous",
    UNFINISHED,
    REFUSED,
)
# the failures a refusal explains: nothing readable was written (not a cut or contradictory answer)
_NOTHING_READ = frozenset({"no_json", "bad_json", "missing_gender", "bad_label"})
MAX_GENDER_PAIRS = 60  # 20 repeats of a whole answer; more is a degenerate output, not one answer

_GENDER_ALIASES = {
    "male": "male",
    "man": "male",
    "men": "male",
    "maleperson": "male",
    "female": "female",
    "woman": "female",
    "women": "female",
    "femaleperson": "female",
    "nonbinary": "non_binary",
    "nonbinaryperson": "non_binary",
    "nonbinaryindividual": "non_binary",
    "nonbinarypeople": "non_binary",
    "enby": "non_binary",
    "nb": "non_binary",
}
_LABELS_COMPACT = {label.replace(" ", ""): value for label, value in LIKERT_LABELS.items()}
_LEADING_ARTICLE = re.compile(r"^(?:an?|the)[\s_-]+")
_NON_LETTERS = re.compile(r"[^a-z]+")
_NUMBER_FORM = re.compile(r"[1-5](?:\.0+)?")
_LABEL_FORM = re.compile(r"[a-z]+(?:[\s_-]+[a-z]+)*\.?")

_END = "\x00"  # appended to the text: only a string cut by the end of the text swallows it
_BLANK = "\x01"  # stands for text that must not be read
_DELIMITER = r"\s*+(?:[,:}\]]|\x00)"


def _string_pattern(quote: str, ends_before: str) -> str:
    """A string opened by `quote` that is not a plain word or number (those stay as they are). It
    ends at its quote followed by a delimiter, or before a "{" followed by a quote in `ends_before`:
    cut so, it keeps its opening quote (the lookbehind captures it), and so the skeleton shows a
    lead, a quote and a "{" where an object may be written inside a string (see _drafts). An empty
    string there is left alone (its quote stays a plain character, the blanks around it too)."""
    other = "'" if quote == '"' else '"'
    brace_then_quote = rf"\{{\s*+[{ends_before}]"
    not_empty = f"(?!\\s*+{brace_then_quote})"
    not_a_word = rf"(?![a-z0-9 ._-]{{0,40}}{quote}(?={_DELIMITER}))"
    inner_quotes = rf"(?:{quote}(?={quote}))++"  # in a run of quotes only the last can close
    body = rf"""(?:[^"'\\{{\x00]++|{inner_quotes}|\\[^\x00]?|(?!{brace_then_quote})\{{|{other}|{quote}(?!{_DELIMITER}))*+"""  # noqa: E501 (one regular expression)
    closed, cut = rf"{body}(?:{quote}|\x00)", f"(?<=({quote})){body}(?={brace_then_quote})"
    return f"{quote}{not_empty}{not_a_word}(?:{closed}|{cut})"  # cut: tried when closed fails


# Split around strings, keeping the lead before each and the opening quote of a cut one: joined, the
# parts are the text with every string that is not a plain word removed (so are the blanks between
# the lead and the string). A double-quoted string ends before {" (JSON never holds it unescaped); a
# single-quoted one also before {' so that an apostrophe in prose before a JSON or Python answer
# cannot swallow it.
_STRING = re.compile(
    r"([{,:=\[])\s*+(?:" + "|".join((_string_pattern('"', '"'), _string_pattern("'", "\"'"))) + ")"
)


def _letter_tree(words: list[str], separator: str) -> str:
    """A pattern for any of `words`, with `separator` allowed between letters. Words that share a
    beginning share a branch, so a failed attempt costs one step per letter, not one per word."""
    tree: dict = {}
    for word in words:
        node = tree
        for letter in word:
            node = node.setdefault(letter, {})
        node[""] = {}  # a word ends here

    def continuations(node: dict) -> str:
        branches = [
            letter + continuations(child) for letter, child in sorted(node.items()) if letter
        ]
        if not branches:
            return ""
        more = separator + "(?:" + "|".join(branches) + ")"
        return f"(?:{more})?" if "" in node else more

    first_letters = "".join(sorted(tree))
    branches = [letter + continuations(child) for letter, child in sorted(tree.items())]
    return f"(?=[{first_letters}])(?:" + "|".join(branches) + ")"


def _reversed_key_pattern() -> str:
    """Every spelling of a gender key (an optional article, separators between letters), reversed."""
    reversed_aliases = [alias[::-1] for alias in _GENDER_ALIASES]
    # Atomic: a key that fails its lead would fail shorter too (a shorter key would end on a letter).
    return "(?>" + _letter_tree(reversed_aliases, r"[\s_-]*+") + r")(?:[\s_-]++(?:a|na|eht))?+"


# A gender pair is `lead key separator value` (lead: "{", "," or a new line; the key may be quoted).
# Pairs are searched from their ":" or "=" in the reversed text, so that only separators are tried
# rather than every "{" and "," (a text of braces or quotes costs nothing here). The text is lower
# case by then: re.IGNORECASE would slow every step.
_REVERSED_PAIR = re.compile(
    r"""[:=]\s*+(?P<kq>["']?)(?P<key>"""
    + _reversed_key_pattern()
    + r""")(?P=kq)(?:\s*+[{,]|[ \t]*+\n)"""
)
_VALUE = re.compile(r"\s*+([^,{}\n\x00\x01]*+)")

_OPEN, _CLOSE, _COLON, _EQUALS = (ord(c) for c in "{}:=")
_QUOTE_CODES = (ord('"'), ord("'"))
_LEADS = tuple(ord(c) for c in "{,:=[")
_STOP_CODES = tuple(ord(c) for c in "{}[],:=\\" + _END)


def _class_table() -> np.ndarray:
    """Per character code up to U+3000, the last blank (codes above are clipped to one past it):
    _TAIL_STOP, _BLANK_SPACE or _DELIMITS, the classes _drafts asks about."""
    table = np.zeros(0x3002, dtype=np.uint8)
    table[[c for c in range(0x3001) if chr(c).isspace()]] = _BLANK_SPACE
    table[[ord(c) for c in ",:}]" + _END]] = _DELIMITS
    table[list(_STOP_CODES)] |= _TAIL_STOP
    return table


# Between a draft's "}" and its string's closing quote there may be no tail stop: that quote, or one
# of _STOP_CODES (each could open or end a string or an object in the first reading of the text,
# which took the draft for an object outside the string).
_TAIL_STOP, _BLANK_SPACE, _DELIMITS = 1, 2, 4
_CLASS = _class_table()
_MAX_BLANKS = 16  # stepped over one at a time, the rest of a longer run at once
_BLANKS = re.compile(r"\s*+")  # before a position: matched in the reversed skeleton
_TOP = 0  # place of the pairs on an object's own level; nested objects are places 1, 2, ...


def _invalid(reason: str) -> dict:
    return {"error": reason, "male": None, "female": None, "non_binary": None}


@functools.lru_cache(maxsize=1024)  # answers use a handful of spellings
def _gender_of(key: str) -> str | None:
    key = _LEADING_ARTICLE.sub("", key.strip().lower())
    return _GENDER_ALIASES.get(_NON_LETTERS.sub("", key))


def likert_value(value) -> int | None:
    """1..5 from a label or a number; None if it is neither (signed, "3-", 2.5, another word)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return int(value) if value in (1, 2, 3, 4, 5) else None
    return _text_value(value) if isinstance(value, str) else None


@functools.lru_cache(maxsize=1024)
def _text_value(value: str) -> int | None:
    text = value.strip().lower()
    if _NUMBER_FORM.fullmatch(text):
        return int(text[0])
    if _LABEL_FORM.fullmatch(text):
        return _LABELS_COMPACT.get(_NON_LETTERS.sub("", text))
    return None


def _unquoted(value: str) -> str:
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return value[1:-1]
    return value


def _classes(codes: np.ndarray) -> np.ndarray:
    return _CLASS[np.minimum(codes, _CLASS.size - 1)]


def _nonblank_before(skeleton: str, codes: np.ndarray, positions: np.ndarray) -> np.ndarray:
    """The last non-blank character before each of `positions` (-1 where there is none)."""
    at = positions - 1
    for _ in range(_MAX_BLANKS):
        blank = (at >= 0) & (_classes(codes[np.maximum(at, 0)]) == _BLANK_SPACE)
        if not blank.any():
            return at
        at = at - blank
    reversed_skeleton = skeleton[::-1]
    for index in blank.nonzero()[0].tolist():  # runs of more than _MAX_BLANKS blanks
        start = len(skeleton) - 1 - int(at[index])
        at[index] -= _BLANKS.match(reversed_skeleton, start).end() - start
    return at


def _nonblank_after(skeleton: str, classes: np.ndarray, positions: np.ndarray) -> np.ndarray:
    """The first non-blank character after each of `positions` (the last character if none)."""
    last = classes.size - 1
    at = np.minimum(positions + 1, last)
    for _ in range(_MAX_BLANKS):
        blank = (classes[at] == _BLANK_SPACE) & (at < last)
        if not blank.any():
            return at
        at = at + blank
    for index in blank.nonzero()[0].tolist():  # runs of more than _MAX_BLANKS blanks
        at[index] = min(_BLANKS.match(skeleton, int(at[index])).end(), last)
    return at


def _drafts(
    skeleton: str, codes: np.ndarray, opens: np.ndarray, depth: np.ndarray
) -> tuple[np.ndarray | None, np.ndarray]:
    """Objects written inside a string (a model's draft answer in its reason, unescaped): each "{"
    after a quote after a lead in the skeleton (blanks allowed; see _string_pattern), where the
    string that quote opened lies in an object or one level down (so the "{" is at depth 2 or 3).
    A draft is text of its string, never an object: it is hidden (a mask of skeleton characters,
    from the quote on; None when there is no draft) up to where its string ends. That end is clear
    only when the draft closes and is followed by text without a tail stop, then by the string's own
    quote and a delimiter (blanks allowed); otherwise the draft is unclear (hidden up to its "}" or
    the end) and its "{" is returned: the object around it is ambiguous.

    The first reading took the draft for an object, so its braces balance as an object's do: it
    closes at the first later character at a lower depth. Vectorised: a response may hold many."""
    size = codes.size
    starts = (opens & ((depth == 2) | (depth == 3))).nonzero()[0]
    quote_at = _nonblank_before(skeleton, codes, starts)
    lead_at = _nonblank_before(skeleton, codes, np.maximum(quote_at, 0))
    is_draft = (lead_at >= 0) & np.isin(codes[quote_at], _QUOTE_CODES)
    is_draft &= np.isin(codes[lead_at], _LEADS)
    starts, quote_at = starts[is_draft], quote_at[is_draft]
    if not starts.size:
        return None, starts
    quotes, classes = codes[quote_at], _classes(codes)
    closes = np.full(starts.size, size)  # the draft's "}", or `size` when it never closes
    for level in (2, 3):
        mine = depth[starts] == level
        if mine.any():
            below = np.append((depth < level).nonzero()[0], size)
            closes[mine] = below[np.searchsorted(below, starts[mine])]
    clear = closes < size
    closing_quotes = np.full(starts.size, size - 1)
    for quote in _QUOTE_CODES:  # the other quote is no tail stop: it opens nothing there
        mine = clear & (quotes == quote)
        if mine.any():
            stops = np.append(((classes & _TAIL_STOP != 0) | (codes == quote)).nonzero()[0], size)
            closing_quotes[mine] = stops[np.searchsorted(stops, closes[mine] + 1)]
    clear &= closing_quotes < size
    closing_quotes = np.minimum(closing_quotes, size - 1)
    clear &= codes[closing_quotes] == quotes
    after = _nonblank_after(skeleton, classes, closing_quotes)
    clear &= (classes[after] & _DELIMITS != 0) & (after > closing_quotes)
    ends = np.where(clear, closing_quotes, np.minimum(closes, size - 1))
    edges = np.zeros(size + 1, dtype=np.int8)
    edges[quote_at] = 1  # drafts overlap only as one at depth 3 inside one at depth 2
    np.subtract.at(edges, ends + 1, 1)
    return np.add.accumulate(edges[:size]) > 0, starts[~clear]


@dataclass(frozen=True)
class _Layout:
    """The text in lower case without its strings (`skeleton`, plain word strings kept) and, per
    skeleton character, the depth of the object it belongs to (`level`: 0 outside any object and
    inside a draft, see _drafts; braces belong to the object they delimit)."""

    skeleton: str
    codes: np.ndarray
    level: np.ndarray
    object_starts: np.ndarray  # positions of the top-level "{"
    nested_starts: np.ndarray  # positions of the "{" one level down
    open_at_end: int  # objects still open at the end of the text
    unclear_answers: tuple[int, ...]  # top-level objects (from 1) holding an unclear draft

    @classmethod
    def of(cls, text: str) -> _Layout:
        text = text.lower().replace(_END, " ") + _END  # keys and labels are read in any case
        if '"' in text or "'" in text:  # the parts: text, lead, and a cut string's quote or None
            skeleton = "".join(filter(None, _STRING.split(text)))
        else:
            skeleton = text
        codes = np.frombuffer(skeleton.encode("utf-32-le", "surrogatepass"), dtype="<u4")
        opens = codes == _OPEN
        walk = np.add.accumulate(opens.astype(np.int32) - (codes == _CLOSE))
        depth = walk - np.minimum(np.minimum.accumulate(walk), 0)  # a "}" at depth 0 closes nothing
        level = depth.copy()  # a "}" belongs to the object it closes: the depth before it
        np.maximum(depth[1:], depth[:-1], out=level[1:])
        object_starts = (opens & (depth == 1)).nonzero()[0]
        nested_starts = (opens & (depth == 2)).nonzero()[0]
        unclear_answers: tuple[int, ...] = ()
        if nested_starts.size:  # a draft is an object at depth 2 or 3
            hidden, unclear = _drafts(skeleton, codes, opens, depth)
            if hidden is not None:
                level[hidden] = 0
                answers = np.searchsorted(object_starts, unclear, side="right")
                unclear_answers = tuple(np.unique(answers).tolist())
        return cls(
            skeleton, codes, level, object_starts, nested_starts, int(depth[-1]), unclear_answers
        )

    def ends_inside_string(self) -> bool:
        return not self.skeleton.endswith(_END)

    def has_key_value_pair(self) -> bool:
        separators = (self.codes == _COLON) | (self.codes == _EQUALS)
        return bool(np.any(separators & (self.level == 1)))

    def readable(self) -> str:
        """The skeleton with everything outside objects and below the first nesting level blanked."""
        top_or_nested = (self.level == 1) | (self.level == 2)
        kept = np.where(top_or_nested, self.codes, np.uint32(ord(_BLANK)))
        return kept.tobytes().decode("utf-32-le", "surrogatepass")


@dataclass(frozen=True)
class _Rating:
    answer: int  # number of the top-level object, from 1
    place: int  # _TOP or the number of the nested object
    gender: str
    value: int | None


def _ratings(layout: _Layout) -> list[_Rating] | None:
    """Gender key/value pairs on an object's top level or one level down, in text order; None when
    there are more than MAX_GENDER_PAIRS."""
    readable = layout.readable()
    end = len(readable)
    matches = list(itertools.islice(_REVERSED_PAIR.finditer(readable[::-1]), MAX_GENDER_PAIRS + 1))[
        ::-1
    ]
    if len(matches) > MAX_GENDER_PAIRS:
        return None
    key_starts = np.array([end - match.end("key") for match in matches], dtype=np.int64)
    answers = np.searchsorted(layout.object_starts, key_starts, side="right")
    nested = np.searchsorted(layout.nested_starts, key_starts, side="right")
    places = np.where(layout.level[key_starts] == 2, nested, _TOP)
    ratings = []
    for match, answer, place in zip(matches, answers.tolist(), places.tolist(), strict=True):
        value = likert_value(_unquoted(_VALUE.match(readable, end - match.start())[1]))
        ratings.append(_Rating(answer, place, _gender_of(match["key"][::-1]), value))
    return ratings


def _disagree(ratings: list[_Rating], skip_invalid: bool = False) -> bool:
    values: dict[str, set] = {}
    for rating in ratings:
        if rating.value is not None or not skip_invalid:
            values.setdefault(rating.gender, set()).add(rating.value)
    return any(len(found) > 1 for found in values.values())


def _place_result(ratings: list[_Rating]) -> dict:
    if _disagree(ratings):
        return _invalid("ambiguous")
    values = {rating.gender: rating.value for rating in ratings}
    if len(values) < len(GENDERS):
        return _invalid("missing_gender")
    if any(values[gender] is None for gender in GENDERS):
        return _invalid("bad_label")
    return {"error": None, **{gender: values[gender] for gender in GENDERS}}


def _answer_result(ratings: list[_Rating]) -> dict:
    """One top-level object: its own gender keys win; nested objects count alone only without them."""
    places: dict[int, list[_Rating]] = {}
    for rating in ratings:
        places.setdefault(rating.place, []).append(rating)
    nested = [_place_result(found) for place, found in sorted(places.items()) if place != _TOP]
    complete = [result for result in nested if result["error"] is None]
    if _TOP in places:
        result = _place_result(places[_TOP])
        return _invalid("ambiguous") if any(other != result for other in complete) else result
    if _disagree(ratings, skip_invalid=True):
        return _invalid("ambiguous")
    return complete[0] if complete else nested[0]


def _combined(results: list[dict]) -> dict:
    """Several answer objects: they must agree."""
    if all(result == results[0] for result in results):
        return results[0]
    if any(result["error"] is None for result in results):
        return _invalid("ambiguous")
    return results[0]


def parse_likert_response(text) -> dict:
    """{"error": None or a reason, "male": 1..5, "female": 1..5, "non_binary": 1..5}, read from the
    text after any reasoning; an answer with nothing readable that declines the task is "refused".
    """
    return parse_reply(split_reasoning(text))


def parse_reply(reply: Reply) -> dict:
    """`parse_likert_response` of a text whose reasoning is already set aside."""
    if reply.unfinished:
        return _invalid(UNFINISHED)
    parsed = _parse_answer(reply.answer)
    if parsed["error"] in _NOTHING_READ and is_refusal(reply.answer):
        return _invalid(REFUSED)
    return parsed


def _parse_answer(text) -> dict:
    """The answer object's ratings (see parse_likert_response).

    The tasks stop generating at "}\n" and backends drop the stop sequence, so an object whose last
    braces are missing is read as if closed. An answer object that never closes and cannot be read
    so (it ends inside a string, or values are missing) is truncated.
    """
    if is_empty(text):
        return _invalid(EMPTY)
    if "{" not in text:
        return _invalid("no_json")
    layout = _Layout.of(text)
    last = len(layout.object_starts)
    if last == 0:
        return _invalid("no_json")
    ratings = _ratings(layout)
    if ratings is None:
        return _invalid("ambiguous")
    if not ratings and not layout.unclear_answers:
        if layout.open_at_end:
            return _invalid("truncated")
        return _invalid("missing_gender" if layout.has_key_value_pair() else "bad_json")
    by_answer: dict[int, list[_Rating]] = {}
    for rating in ratings:
        by_answer.setdefault(rating.answer, []).append(rating)
    results = {answer: _answer_result(found) for answer, found in by_answer.items()}
    for answer in layout.unclear_answers:  # where a string in it ends cannot be told
        results[answer] = _invalid("ambiguous")
    results = dict(sorted(results.items()))
    if (
        layout.open_at_end
        and last in results
        and (results[last]["error"] or layout.ends_inside_string())
    ):
        results[last] = _invalid("truncated")
    return _combined(list(results.values()))
