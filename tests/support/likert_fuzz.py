"""Seeded model outputs for fuzzing the Likert parser, each with the result it must parse to.

The expected result comes from the construction, never from the parser: the generator knows the
ratings it planted, which of its values are well formed, where each of its strings opens and closes,
and applies the answer rules of the parser's docstring (a value is a label or exactly 1..5; top-level
gender keys win over nested ones; a string ends at its quote followed by , : } ] or the end;
an object written inside a string is never read, and a string whose end after such an object
cannot be told is "ambiguous"; contradictions are "ambiguous"). Nothing here imports the parser.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

GENDERS = ("male", "female", "non_binary")
ANY_INVALID = "any invalid reason"

KEY_SPELLINGS = {
    "male": (
        "man",
        "Man",
        "MAN",
        "male",
        "Male",
        "men",
        "a man",
        "A Man",
        "the man",
        "male person",
    ),
    "female": (
        "woman",
        "Woman",
        "female",
        "FEMALE",
        "women",
        "a woman",
        "the woman",
        "female person",
    ),
    "non_binary": (
        "non-binary",
        "Non-Binary",
        "nonbinary",
        "non_binary",
        "Non Binary",
        "NB",
        "enby",
        "a non-binary person",
        "non-binary individual",
        "non-binary people",
    ),
}
LABEL_SPELLINGS = {
    1: ("very low", "Very Low", "VERY LOW", "very-low", "very_low", "Very-Low", "verylow"),
    2: ("low", "Low", "LOW"),
    3: ("medium", "Medium", "MEDIUM", "Medium."),
    4: ("high", "High", "HIGH"),
    5: ("very high", "Very High", "very-high", "very_high", "VERY HIGH", "veryhigh"),
}
# Not a rating: signed, padded, out of range, fractional, exponent, cut, or another word.
BAD_VALUES = (
    "-1",
    "-5",
    "- 4",
    "3-",
    "+3",
    "0",
    "6",
    "10",
    "2.5",
    "1e0",
    "03",
    "3.",
    "-3.0",
    "",
    "extreme",
    "mid",
    "very",
    "low-ish",
    "very very high",
    "-low",
    "high!",
    "true",
    "null",
    "five",
)
BAD_JSON_TOKENS = (
    "-1",
    "-5",
    "0",
    "6",
    "2.5",
    "1e0",
    "-3.0",
    "true",
    "false",
    "null",
    '["high"]',
    "{}",
)
REASONS = (
    "Harpists are often pictured as women.",
    "Nothing in the scenario points to a gender.",
    "The {instrument} slot says nothing about who plays it.",
    "A set like {man, woman} is not enough to decide.",
    "Stereotypes (e.g. 'drums -> men') are weak evidence.",
    'The word "practises" is neutral, so all three are plausible.',
    "a man: low, a woman: high, non-binary: 5 would be a stereotype, not evidence.",
    "Ünïcödé reasons 😀 and \u200b zero-width text\u2028 are fine.",
)
JSON_ONLY_REASONS = (
    'It\'s the player\'s choice; {"man": "low"} would be a guess.',
)  # see quoted()
BARE_REASONS = ("the harp is neutral", "no cue at all", "weak evidence only", "the person's choice")
PROSE_BEFORE = (
    "",
    "",
    "Sure! Here is my answer:\n\n",
    "Here are my ratings.\n",
    "My answer:\n",
    "```json\n",
    "Réponse 😀 ",
    "It's hard to say. Still:\n",
)
PROSE_WITH_QUOTES = (
    "Note: 'high' means a lot. ",
    'Answer: "see below". ',
    "Well, 'it depends'. ",
    'Key, "x: y"\n',
)
PROSE_AFTER = (
    "",
    "",
    "\n",
    "\n```",
    "\n\nI hope this helps!",
    "\nNote: {instrument} is not a cue.",
    "\nThe word \"harp\" says nothing, and 'drums' neither.",
    " {see above}",
    "\nNote: {unclosed",
)
DECOY_KEYS = ("reason", "explanation", "notes", "draft", "details")
PROSE_VALUE = "plays it often"
JUNK_WORDS = (
    "harp",
    "the",
    "plays",
    "high",
    "low",
    "medium",
    "very",
    "reason",
    "x",
    "42",
    "3",
    "-1",
    "é",
    "😀",
    "\u200b",
    "\u2028",
    "\x00",
    "\x01",
    "true",
    "null",
)
JUNK_MARKS = (
    "{",
    "}",
    "[",
    "]",
    '"',
    "'",
    ":",
    ",",
    "=",
    "\\",
    " ",
    "\n",
    "  ",
    '{"',
    '":',
    '", ',
    "'{",
    "}\n",
)
STYLES = (
    "json",
    "compact",
    "pretty",
    "python",
    "mixed",
    "bare",
)  # mixed: quoted reason, bare ratings


@dataclass(frozen=True)
class Case:
    category: str
    text: object
    values: tuple[int, int, int] | None = None  # the planted answer it must read as
    reason: str | None = None  # else: the invalid reason it must get, or ANY_INVALID


@dataclass(frozen=True)
class Raw:
    text: str  # a value written as it is: a JSON number, true, null, a list


@dataclass
class Built:
    """An output under construction, with what the oracle needs to know about its text."""

    text: str = ""
    strings: list[tuple[int, int]] = field(
        default_factory=list
    )  # offsets of opening and closing quotes
    value_ends: list[int] = field(default_factory=list)  # where each planted gender value ends
    first_brace: int = -1
    object_end: int = -1

    def add(self, fragment: str, quoted: bool = False, gender_value: bool = False) -> None:
        if quoted:
            self.strings.append((len(self.text), len(self.text) + len(fragment) - 1))
        elif self.first_brace < 0 and "{" in fragment:
            self.first_brace = len(self.text) + fragment.index("{")
        self.text += fragment
        if gender_value:
            self.value_ends.append(len(self.text))


# --- writing answer objects ----------------------------------------------------------------------


def quoted(text: str, style: str) -> str:
    # Python's repr quotes with ' when the text holds ", so a reason holding {" would end that
    # string early (the parser's documented rule): such reasons are written in JSON styles only.
    return repr(text) if style == "python" else json.dumps(text, ensure_ascii=False)


def written_value(value: object, style: str, rng: random.Random) -> tuple[str, bool]:
    """(text, is a quoted string) for a label, a bad word, a number or a Raw token."""
    bare = style in ("mixed", "bare")
    if isinstance(value, Raw):
        return value.text, False
    if isinstance(value, int):
        number = rng.choice((str(value), f"{value}.0"))
        return (number, False) if bare or rng.random() < 0.5 else (quoted(number, style), True)
    return (value, False) if bare else (quoted(value, style), True)


def write_object(
    built: Built,
    pairs: list[tuple[str, object, bool]],
    style: str,
    rng: random.Random,
    depth: int = 0,
) -> None:
    """`pairs`: (key, value, is a planted gender value); a list value is a nested object."""
    items, colon = (",", ":") if style == "compact" else (", ", ": ")
    if style == "bare":
        colon = rng.choice((": ", ":", " : ", "="))
    newline = "\n" + "  " * (depth + 1) if style == "pretty" else ""
    built.add("{")
    for index, (key, value, is_gender) in enumerate(pairs):
        built.add((items.rstrip() if newline else items) * (index > 0) + newline)
        key_quoted = style not in ("mixed", "bare") or (style == "mixed" and key == "reason")
        built.add(quoted(key, style) if key_quoted else key, quoted=key_quoted)
        built.add(colon)
        if isinstance(value, list):
            write_object(built, value, style, rng, depth + 1)
        elif key == "reason":
            built.add(quoted(value, style) if key_quoted else value, quoted=key_quoted)
        else:
            text, is_string = written_value(value, style, rng)
            built.add(text, quoted=is_string, gender_value=is_gender)
    if not newline and rng.random() < 0.15:
        built.add(",")  # a trailing comma
    built.add(("\n" + "  " * depth if newline else "") + "}")


def gender_pairs(values: dict[str, object], rng: random.Random) -> list[tuple[str, object, bool]]:
    pairs = [(rng.choice(KEY_SPELLINGS[gender]), value, True) for gender, value in values.items()]
    rng.shuffle(pairs)
    return pairs


def spelled(values: tuple[int, ...], rng: random.Random) -> dict[str, object]:
    """Each planted value as a number or one of its label spellings."""
    return {
        gender: value if rng.random() < 0.25 else rng.choice(LABEL_SPELLINGS[value])
        for gender, value in zip(GENDERS, values, strict=True)
    }


def reason_for(style: str, rng: random.Random) -> str:
    if style == "bare":
        return rng.choice(BARE_REASONS)
    return rng.choice(REASONS + (JSON_ONLY_REASONS if style != "python" else ()))


def answer_object(
    spellings: dict[str, object],
    style: str,
    rng: random.Random,
    nested: bool = False,
    built: Built | None = None,
) -> Built:
    built = built if built is not None else Built()
    pairs = gender_pairs(spellings, rng)
    if nested:
        pairs = [
            ("reason", reason_for(style, rng), False),
            (rng.choice(("ratings", "likelihood")), pairs, False),
        ]
    elif rng.random() < 0.7:
        pairs.insert(rng.randrange(len(pairs) + 1), ("reason", reason_for(style, rng), False))
    write_object(built, pairs, style, rng)
    built.object_end = len(built.text)
    return built


def dressed(
    spellings: dict[str, object],
    style: str,
    rng: random.Random,
    before: tuple[str, ...] = PROSE_BEFORE,
) -> Built:
    """An answer with prose before it (no "{" there) and after it."""
    built = Built()
    built.add(rng.choice(before))
    answer_object(spellings, style, rng, nested=rng.random() < 0.2, built=built)
    built.add(rng.choice(PROSE_AFTER))
    return built


def planted(rng: random.Random) -> tuple[int, int, int]:
    return (rng.randint(1, 5), rng.randint(1, 5), rng.randint(1, 5))


def other_than(value: int, rng: random.Random) -> int:
    return rng.choice([other for other in range(1, 6) if other != value])


def expected_for_prefix(
    category: str, built: Built, cut: int, values: tuple[int, int, int]
) -> Case:
    """What the first `cut` characters of a planted answer must read as."""
    prefix = built.text[:cut]
    if not prefix.strip():
        return Case(category, prefix, reason="empty")
    if cut <= built.first_brace:
        return Case(category, prefix, reason="no_json")
    if cut >= built.object_end:
        return Case(category, prefix, values=values)
    if any(opening < cut <= closing for opening, closing in built.strings):
        return Case(category, prefix, reason="truncated")  # cut inside a string
    if cut >= max(built.value_ends):
        return Case(
            category, prefix, values=values
        )  # every value is whole: only braces are missing
    return Case(category, prefix, reason="truncated")


def cut_at_stop(text: str) -> str:
    """What a backend returns with the tasks' stop sequences ("}\\n", "\\n\\n\\n")."""
    cuts = [found for found in (text.find("}\n"), text.find("\n\n\n")) if found != -1]
    return text[: min(cuts)] if cuts else text


# --- categories: each yields cases from one rng ----------------------------------------------------


def valid_answers(rng: random.Random) -> Iterator[Case]:
    values, style = planted(rng), rng.choice(STYLES)
    built = dressed(spelled(values, rng), style, rng)
    if rng.random() < 0.3:
        yield expected_for_prefix(
            "valid, cut at the stop sequence", built, len(cut_at_stop(built.text)), values
        )
    else:
        yield Case("valid", built.text, values=values)


def prose_quotes_before(rng: random.Random) -> Iterator[Case]:
    """A quote right after ":" or "," in the prose opens a string; it ends before the answer's {" or {'."""
    values, style = planted(rng), rng.choice(("json", "compact", "pretty"))
    yield Case(
        "valid after quotes in prose",
        dressed(spelled(values, rng), style, rng, PROSE_WITH_QUOTES).text,
        values=values,
    )


def bad_values(rng: random.Random) -> Iterator[Case]:
    values, style = planted(rng), rng.choice(STYLES)
    spellings = spelled(values, rng)
    gender = rng.choice(GENDERS)
    if rng.random() < 0.2:
        del spellings[gender]
        yield Case("missing gender", dressed(spellings, style, rng).text, reason="missing_gender")
        return
    raw = style not in ("mixed", "bare") and rng.random() < 0.4
    spellings[gender] = Raw(rng.choice(BAD_JSON_TOKENS)) if raw else rng.choice(BAD_VALUES)
    yield Case("bad value", dressed(spellings, style, rng).text, reason="bad_label")


def nested_decoys(rng: random.Random) -> Iterator[Case]:
    """A nested object rating genders, beside (or instead of) the top-level ratings."""
    values, style = planted(rng), rng.choice(("json", "compact", "pretty", "python"))
    kind = rng.choice(("partial", "same", "different", "nested only", "two nested"))
    real = dict(zip(GENDERS, values, strict=True))
    if kind in ("partial", "nested only"):
        decoy = {gender: rng.randint(1, 5) for gender in rng.sample(GENDERS, rng.randint(1, 2))}
    else:
        decoy = dict(real)
        if kind != "same":
            changed = rng.choice(GENDERS)
            decoy[changed] = other_than(decoy[changed], rng)
    decoy_spellings = {
        gender: rng.choice(LABEL_SPELLINGS[value]) if rng.random() < 0.7 else PROSE_VALUE
        for gender, value in decoy.items()
    }
    rated = {
        gender: decoy[gender]
        for gender, spelling in decoy_spellings.items()
        if spelling != PROSE_VALUE
    }
    decoy_pair = (rng.choice(DECOY_KEYS), gender_pairs(decoy_spellings, rng), False)
    real_pairs = gender_pairs(spelled(values, rng), rng)
    top_level = kind not in ("nested only", "two nested")
    pairs = [decoy_pair, *real_pairs] if top_level else [decoy_pair, ("ratings", real_pairs, False)]
    if rng.random() < 0.5:
        pairs.reverse()
    built = Built()
    write_object(built, pairs, style, rng)
    if top_level:  # the top level wins unless the nested object is a whole, different answer
        ambiguous = len(rated) == 3 and rated != real
    else:  # nested objects alone must not disagree on any gender they rate
        ambiguous = any(real[gender] != value for gender, value in rated.items())
    if ambiguous:
        yield Case(f"nested decoy, {kind}", built.text, reason="ambiguous")
    else:
        yield Case(f"nested decoy, {kind}", built.text, values=values)


def broken_quotes(rng: random.Random) -> Iterator[Case]:
    """A JSON answer whose reason holds unescaped quotes and a decoy rating."""
    values = planted(rng)
    decoy_gender, decoy_value = rng.choice(GENDERS), rng.randint(1, 5)
    decoy = f"{rng.choice(KEY_SPELLINGS[decoy_gender])}: {rng.choice(LABEL_SPELLINGS[decoy_value])}"
    exposed = rng.random() < 0.4
    if exposed:  # a quote followed by "," ends the reason: the decoy after it is read as a pair
        reason = f'He said "no", {decoy}, and left'
    else:  # its quotes are not followed by , : } ] so the decoy stays inside the reason
        reason = rng.choice(
            (
                f'The "harp" is rare, {decoy} they say',
                f'I\'d say "{decoy}" but "who knows"',
                f'Some write "{decoy}." Not me',
            )
        )
    spellings = spelled(values, rng)
    missing = not exposed and rng.random() < 0.25
    if missing:
        del spellings[decoy_gender]
    ratings = ", ".join(
        f"{json.dumps(key)}: {json.dumps(value)}" for key, value, _ in gender_pairs(spellings, rng)
    )
    text = '{"reason": "' + reason + '", ' + ratings + "}"
    if missing:
        yield Case("broken quotes, decoy for a missing gender", text, reason="missing_gender")
    elif not exposed:
        yield Case("broken quotes, decoy inside the reason", text, values=values)
    elif values[GENDERS.index(decoy_gender)] == decoy_value:
        yield Case("broken quotes, exposed decoy, same value", text, values=values)
    else:
        yield Case("broken quotes, exposed decoy, other value", text, reason="ambiguous")


def duplicates(rng: random.Random) -> Iterator[Case]:
    values, style = planted(rng), rng.choice(STYLES)
    pairs = gender_pairs(spelled(values, rng), rng)
    index = rng.randrange(3)
    conflicting = rng.random() < 0.5
    repeated = other_than(values[index], rng) if conflicting else values[index]
    spelling = repeated if rng.random() < 0.25 else rng.choice(LABEL_SPELLINGS[repeated])
    pairs.insert(
        rng.randrange(len(pairs) + 1), (rng.choice(KEY_SPELLINGS[GENDERS[index]]), spelling, True)
    )
    built = Built()
    write_object(built, pairs, style, rng)
    if conflicting:
        yield Case("duplicate key, other value", built.text, reason="ambiguous")
    else:
        yield Case("duplicate key, same value", built.text, values=values)


def several_objects(rng: random.Random) -> Iterator[Case]:
    values = planted(rng)
    count, differing = rng.randint(2, 4), rng.random() < 0.5
    odd_one = rng.randrange(count)
    parts = []
    for index in range(count):
        these = list(values)
        if differing and index == odd_one:
            changed = rng.randrange(3)
            these[changed] = other_than(these[changed], rng)
        style = rng.choice(("json", "compact", "python", "mixed"))
        parts.append(answer_object(spelled(tuple(these), rng), style, rng).text)
    if rng.random() < 0.5:
        parts.insert(
            rng.randrange(len(parts) + 1),
            rng.choice(('{"note": "not an answer"}', "{instrument}", "{}")),
        )
    text = rng.choice(("\n", "\nAgain: ", " and ", "\n\n")).join(parts)
    if differing:
        yield Case("several objects, differing", text, reason="ambiguous")
    else:
        yield Case("several objects, same values", text, values=values)


def truncations(rng: random.Random) -> Iterator[Case]:
    """One planted answer cut at every position (whole numbers and labels only: a cut "3.0" would
    still read 3, a cut "Medium." still medium)."""
    values, style = planted(rng), rng.choice(STYLES)
    spellings = {
        gender: Raw(str(value))
        if rng.random() < 0.3
        else rng.choice([s for s in LABEL_SPELLINGS[value] if not s.endswith(".")])
        for gender, value in zip(GENDERS, values, strict=True)
    }
    built = dressed(spellings, style, rng)
    for cut in range(len(built.text) + 1):
        yield expected_for_prefix("truncation", built, cut, values)


def junk(rng: random.Random) -> Iterator[Case]:
    """Random text that never holds a key of one of the genders, so it can never be an answer."""
    absent = rng.choice(GENDERS)
    words = JUNK_WORDS + tuple(
        s for gender in GENDERS if gender != absent for s in KEY_SPELLINGS[gender]
    )
    pieces = [
        rng.choice(JUNK_MARKS if rng.random() < 0.55 else words) for _ in range(rng.randint(0, 60))
    ]
    yield Case("junk", "".join(pieces), reason=ANY_INVALID)


def depth(rng: random.Random) -> Iterator[Case]:
    """The answer inside k objects (one level of nesting is read, two are not), after stray closing
    braces, or inside objects that never close."""
    values, style = planted(rng), rng.choice(("json", "compact", "python"))
    answer = answer_object(spelled(values, rng), style, rng).text
    k, kind = rng.randint(0, 3), rng.choice(("wrapped", "stray closers", "unclosed"))
    if kind == "wrapped":
        text, readable = "{" * k + answer + "}" * k, k <= 1
    elif kind == "stray closers":
        text, readable = "}" * (k + 1) + " " + answer, True
    else:
        text, readable = "{" * k + answer, k <= 1
    if readable:
        yield Case(f"depth, {kind}", text, values=values)
    else:
        yield Case(f"depth, {kind}", text, reason=ANY_INVALID)


def huge(rng: random.Random) -> Iterator[Case]:
    """Long outputs: thousands of braces or quotes around or before an answer."""
    values = planted(rng)
    answer = answer_object(spelled(values, rng), "json", rng).text
    n = rng.randint(1_000, 5_000)
    kind = rng.choice(("empty objects before", "unclosed braces before", "quoted strings before"))
    if kind == "empty objects before":
        yield Case(f"huge, {kind}", "{}" * n + answer, values=values)
    elif kind == "unclosed braces before":
        yield Case(f"huge, {kind}", "{" * n + answer, reason="truncated")
    else:
        yield Case(f"huge, {kind}", "{" + '"a", ' * n + '"b": 1}\n' + answer, values=values)


# Text around a draft answer written, unescaped, inside a string (see drafts_in_strings). None holds
# a quote followed by a delimiter, a "{" or a backslash, so the string stays open up to the draft.
DRAFT_BEFORE = (
    "",
    "I first thought ",
    "Draft: ",
    "My first answer was ",
    'At first "maybe" ',
    "I'd have said ",
    "Hmm. ",
)
# After the draft's "}": none of { } [ ] , : = \ nor the string's own quote, so its closing quote
# that follows is clear. (In a single-quoted string the tail holds no apostrophe.)
CLEAR_TAILS = (
    "",
    " at first",
    ". Then I changed my mind",
    " - wrong",
    " (a guess)",
    "!",
    " but no",
)
# After the draft's "}": the string's end cannot be told (a stop before its quote, the quote inside
# text, or a second draft; QUOTE stands for the string's quote).
UNCLEAR_TAILS = (
    ", then no",
    " then QUOTEnoQUOTE really",
    ": final",
    " [sic]",
    " = wrong",
    " and DRAFT",
)


def drafts_in_strings(rng: random.Random) -> Iterator[Case]:
    """A draft answer written inside a string of the answer object, its quotes unescaped (found by
    an adversarial tester): {"reason": "I first thought {"man": "high", ...}", "man": "low", ...}.
    The draft is never read: the answer object's own keys give the values; where the string's end
    after the draft cannot be told, the answer is ambiguous; cut inside the draft, truncated."""
    values, style = planted(rng), rng.choice(("json", "compact", "pretty", "python"))
    q = "'" if style == "python" else '"'
    item_sep, colon = (",", ":") if style == "compact" else (", ", ": ")
    if style == "pretty":
        item_sep = ",\n  "

    def key(name: str) -> str:
        return q + name + q

    def pairs_text(spellings: dict[str, object], quote: str = q) -> str:
        items = []
        for name, value, _ in gender_pairs(spellings, rng):
            text = str(value) if isinstance(value, int) else quote + value + quote
            items.append(quote + name + quote + colon + text)
        return item_sep.join(items)

    def draft() -> tuple[str, str]:
        """(the draft object, the quote its keys use)."""
        genders = rng.sample(GENDERS, rng.choice((1, 2, 3, 3, 3)))
        same = rng.random() < 0.3
        draft_values = {g: values[GENDERS.index(g)] if same else rng.randint(1, 5) for g in genders}
        quote = q if style != "python" or rng.random() < 0.5 else '"'  # a JSON draft in Python too
        spellings = {g: rng.choice(LABEL_SPELLINGS[v]) for g, v in draft_values.items()}
        return "{" + pairs_text(spellings, quote).replace("\n", " ") + "}", quote

    kind = rng.choice(
        (
            "clear, answer beside",
            "clear, answer beside",
            "clear, nested answer",
            "clear, no answer",
            "clear, answer after the object",
            "clear, answer in the next object",
            "clear, gender value",
            "unclear, answer beside",
            "unclear, no answer",
            "unclear, no closing quote",
            "unclear, then the answer object",
            "other quotes, never a draft",
            "cut inside the draft",
        )
    )
    before = rng.choice(DRAFT_BEFORE)
    the_draft, _ = draft()
    if kind == "other quotes, never a draft":  # {' does not end a double-quoted string
        style, q = "json", '"'
        the_draft = "{" + pairs_text({g: "low" for g in GENDERS}, "'") + "}"
    if kind.startswith("unclear"):
        tail = rng.choice(UNCLEAR_TAILS).replace("QUOTE", q).replace("DRAFT", draft()[0])
    else:
        tail = rng.choice([t for t in CLEAR_TAILS if q not in t])
    closing = "" if kind == "unclear, no closing quote" else q
    string = q + before + the_draft + tail + closing
    real = pairs_text(spelled(values, rng))
    reason = key(rng.choice(DECOY_KEYS)) + colon + string
    if kind == "clear, gender value":
        gender = rng.choice(GENDERS)
        rest = {g: v for g, v in spelled(values, rng).items() if g != gender}
        pairs = [key(rng.choice(KEY_SPELLINGS[gender])) + colon + string, pairs_text(rest)]
        rng.shuffle(pairs)
        yield Case(
            f"draft in a string, {kind}", "{" + item_sep.join(pairs) + "}", reason="bad_label"
        )
        return
    beside = [reason, real] if rng.random() < 0.7 else [real, reason]
    if kind == "clear, nested answer":
        beside = [reason, key("ratings") + colon + "{" + real + "}"]
    texts = {
        "answer beside": "{" + item_sep.join(beside) + "}",
        "no answer": "{" + reason + "}",
        "answer after the object": "{" + reason + "}" + item_sep + real + "}",
        "answer in the next object": "{" + reason + "}\n{" + real + "}",
        "no closing quote": "{" + reason + item_sep + real + "}",
        "then the answer object": "{" + reason + "}\n{" + real + "}",
    }
    if kind == "cut inside the draft":
        text = texts["answer beside"]
        start = text.index(string) + len(q + before)  # the draft's "{"
        cut = rng.randint(start + 1, start + len(the_draft + tail))  # before the closing quote
        yield Case(f"draft in a string, {kind}", text[:cut], reason="truncated")
        return
    if kind in ("clear, answer beside", "clear, nested answer", "other quotes, never a draft"):
        yield Case(f"draft in a string, {kind}", texts["answer beside"], values=values)
    elif kind == "clear, answer in the next object":
        yield Case(f"draft in a string, {kind}", texts["answer in the next object"], values=values)
    elif kind.startswith("clear"):  # the reason is the object's only key: no gender is rated
        text = texts[kind.removeprefix("clear, ")]
        yield Case(f"draft in a string, {kind}", text, reason="missing_gender")
    else:
        yield Case(
            f"draft in a string, {kind}", texts[kind.removeprefix("unclear, ")], reason="ambiguous"
        )


def not_text(rng: random.Random) -> Iterator[Case]:
    yield Case(
        "not a string",
        rng.choice((None, 3, 4.0, b'{"man": "high"}', ["x"], {"man": "high"})),
        reason="empty",
    )


CATEGORIES: dict[str, tuple[Callable[[random.Random], Iterator[Case]], int]] = {
    "valid": (valid_answers, 26_000),
    "prose quotes": (prose_quotes_before, 2_000),
    "bad value": (bad_values, 10_000),
    "nested decoy": (nested_decoys, 8_000),
    "broken quotes": (broken_quotes, 8_000),
    "duplicates": (duplicates, 6_000),
    "several objects": (several_objects, 6_000),
    "truncation": (truncations, 220),  # answers, each cut at every position: ~28,000 cases
    "junk": (junk, 8_000),
    "depth": (depth, 3_000),
    "huge": (huge, 60),
    "draft in a string": (drafts_in_strings, 8_000),
    "not a string": (not_text, 200),
}


def cases(seed: int = 0) -> Iterator[Case]:
    rng = random.Random(seed)
    for generate, count in CATEGORIES.values():
        for _ in range(count):
            yield from generate(rng)
