"""Parse a model's Likert JSON answer into one value (1..5) per gender, never raising.

Accepted: code fences, prose around the JSON, single quotes, trailing commas, any key order, one
level of nesting, case/spacing/hyphen variants of labels and gender keys ("Non-Binary",
"nonbinary", "a woman"), numbers 1-5. Everything else is invalid with a reason:

    empty           the response is empty or not a string
    no_json         no "{" in the response
    truncated       an object opens but never closes and cannot be closed (max_gen_toks reached
                    mid-answer: it ends inside a string)
    bad_json        an object is there but neither JSON nor a recoverable key/value list
    missing_gender  at least one of the three genders has no value
    bad_label       a gender's value is not one of the five labels nor 1..5
"""

from __future__ import annotations

import json
import re

from symphony_bench.plugin.core.vocabulary import GENDERS

LIKERT_LABELS = {"very low": 1, "low": 2, "medium": 3, "high": 4, "very high": 5}
INVALID_REASONS = ("empty", "no_json", "truncated", "bad_json", "missing_gender", "bad_label")

_GENDER_ALIASES = {
    "male": "male", "man": "male", "men": "male", "maleperson": "male",
    "female": "female", "woman": "female", "women": "female", "femaleperson": "female",
    "nonbinary": "non_binary", "nonbinaryperson": "non_binary", "nonbinaryindividual": "non_binary",
    "nonbinarypeople": "non_binary", "enby": "non_binary", "nb": "non_binary",
}
_LABELS_COMPACT = {label.replace(" ", ""): value for label, value in LIKERT_LABELS.items()}
_LEADING_ARTICLE = re.compile(r"^(?:an?|the)[\s_-]+")
_NON_LETTERS = re.compile(r"[^a-z]+")
_SEPARATORS = re.compile(r"[\s_\-]+")
_TRAILING_COMMA = re.compile(r",\s*([}\]])")
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
_KEY_VALUE = re.compile(
    r"""["']?([A-Za-z][A-Za-z _\-]{0,40}?)["']?\s*[:=]\s*["']?([A-Za-z0-9][A-Za-z0-9 ._\-]{0,20}?)["']?\s*(?=[,}\n]|$)"""
)


def _invalid(reason: str) -> dict:
    return {"error": reason, "male": None, "female": None, "non_binary": None}


def _gender_of(key: str) -> str | None:
    key = _LEADING_ARTICLE.sub("", key.strip().lower())
    return _GENDER_ALIASES.get(_NON_LETTERS.sub("", key))


def likert_value(value) -> int | None:
    """1..5 from a label or a number; None if it is neither."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return int(value) if value in (1, 2, 3, 4, 5) else None
    if not isinstance(value, str):
        return None
    text = _SEPARATORS.sub(" ", value.strip().lower()).strip(" .")
    compact = text.replace(" ", "")
    if compact in _LABELS_COMPACT:
        return _LABELS_COMPACT[compact]
    try:
        return likert_value(float(text))
    except ValueError:
        return None


def _json_object(candidate: str) -> dict | None:
    """The candidate as a dict, trying strict JSON, then common repairs."""
    repaired = _TRAILING_COMMA.sub(r"\1", candidate)
    attempts = (candidate, repaired, repaired.replace("'", '"'))
    for attempt in attempts:
        try:
            loaded = json.loads(attempt)
        except (ValueError, RecursionError):
            continue
        if isinstance(loaded, dict):
            return loaded
    return None


def _gender_entries(obj: dict) -> dict[str, object]:
    """Gender -> raw value, looking one level into nested objects."""
    entries: dict[str, object] = {}
    for key, value in obj.items():
        gender = _gender_of(str(key))
        if gender is not None:
            entries.setdefault(gender, value)
        elif isinstance(value, dict):
            for inner_key, inner_value in value.items():
                inner_gender = _gender_of(str(inner_key))
                if inner_gender is not None:
                    entries.setdefault(inner_gender, inner_value)
    return entries


def _loose_entries(candidate: str) -> dict[str, object]:
    entries: dict[str, object] = {}
    for key, value in _KEY_VALUE.findall(candidate):
        gender = _gender_of(key)
        if gender is not None:
            entries.setdefault(gender, value)
    return entries


def close_object(fragment: str) -> str | None:
    """`fragment` (which starts at its first "{") with the closing braces that a stop sequence cut
    off put back; None when it ends inside a string (cut mid-answer) or leaves nothing open."""
    outside_strings = _STRING.sub("", fragment)
    depth = outside_strings.count("{") - outside_strings.count("}")
    if '"' in outside_strings or depth <= 0:
        return None
    return fragment.rstrip().rstrip(",") + "}" * depth


def parse_likert_response(text) -> dict:
    """{"error": None or a reason, "male": 1..5, "female": 1..5, "non_binary": 1..5}.

    The tasks stop generating at "}\n" and backends drop the stop sequence, so an object whose last
    braces are missing is closed before it is read. An object that never closes and cannot be read
    once closed (it ends inside a string, or values are missing) is truncated.
    """
    if not isinstance(text, str) or not text.strip():
        return _invalid("empty")
    start, end = text.find("{"), text.rfind("}")
    if start == -1:
        return _invalid("no_json")
    candidate = text[start : end + 1] if end > start else None
    obj = _json_object(candidate) if candidate else None
    if obj is None:
        closed = close_object(text[start:])
        if closed is not None:
            candidate, obj = closed, _json_object(closed)
    if candidate is None:
        return _invalid("truncated")
    parsed = _read_entries(obj, candidate)
    never_closed = end < start
    return _invalid("truncated") if parsed["error"] and never_closed else parsed


def _read_entries(obj: dict | None, candidate: str) -> dict:
    entries = _gender_entries(obj) if obj is not None else _loose_entries(candidate)
    if not entries:
        return _invalid("missing_gender" if obj is not None else "bad_json")
    if len(entries) < len(GENDERS):
        return _invalid("missing_gender")
    values = {gender: likert_value(entries[gender]) for gender in GENDERS}
    if any(v is None for v in values.values()):
        return _invalid("bad_label")
    return {"error": None, **values}
