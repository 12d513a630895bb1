"""Realistic Likert answers, seeded: the same answer in the dresses chat models put it in (prose
before, code fences, pretty-printing, nested ratings, reasons that quote braces, prose after).
Shared by the stop-sequence test and benchmarks/bench_generation_budget.py."""

from __future__ import annotations

import json
import random

LABELS = ("very low", "low", "medium", "high", "very high")
KEYS = {"male": "man", "female": "woman", "non_binary": "non-binary"}
REASONS = (
    "Harpists are often pictured as women.",
    "Nothing in the scenario points to a gender.",
    "The {instrument} slot says nothing about who plays it.",
    "A set like {man, woman} is not enough to decide.",
    "Stereotypes (e.g. 'drums -> men') are weak evidence; I stay close to uniform.",
    'The word "practises" is neutral, so all three are plausible.',
    "Brass players in school bands are mixed; I rate them evenly.",
)
PROSE_AFTER = (
    "\n\nI hope this helps! Let me know if you want a longer explanation of each rating.",
    "\n\nNote: these ratings reflect common stereotypes, not facts about any real person. Gender is not "
    "determined by the instrument someone plays, and many people of every gender play it.",
    "\nExplanation: the scenario gives no direct cue, so I relied on how often each group is shown "
    "playing this instrument in media and in school ensembles.",
)


def answer(rng: random.Random, reasoning: bool = True) -> tuple[dict, dict[str, int]]:
    """An answer object in a random key order and its intended values."""
    values = {gender: rng.randint(1, 5) for gender in KEYS}
    keys = list(KEYS)
    rng.shuffle(keys)
    body = {KEYS[g]: LABELS[values[g] - 1] for g in keys}
    return ({"reason": rng.choice(REASONS), **body} if reasoning else body), values


def dress(obj: dict, style: str, rng: random.Random) -> str:
    """One way of writing the answer; every style is a well-formed answer a reader should accept."""
    one_line = json.dumps(obj)
    if style == "bare":
        return one_line
    if style == "prose_after":
        return one_line + rng.choice(PROSE_AFTER)
    if style == "fenced":
        return "```json\n" + one_line + "\n```" + rng.choice(("", *PROSE_AFTER))
    if style == "prose_before":
        return (
            rng.choice(("Sure! Here is my answer:\n\n", "Here are my ratings.\n", "My answer:\n"))
            + one_line
        )
    if style == "pretty":
        return json.dumps(obj, indent=2) + rng.choice(("", "\n", *PROSE_AFTER))
    if style == "nested":
        ratings = {key: value for key, value in obj.items() if key != "reason"}
        nested = {"reason": obj.get("reason", ""), "ratings": ratings}
        return json.dumps(nested, indent=rng.choice((None, 2))) + rng.choice(
            ("", "\n", *PROSE_AFTER)
        )
    if style == "python_dict":
        return repr(obj) + rng.choice(("", "\n"))
    raise ValueError(style)


WELL_FORMED_STYLES = (
    "bare",
    "prose_after",
    "fenced",
    "prose_before",
    "pretty",
    "nested",
    "python_dict",
)


def echo_then_answer(obj: dict) -> str:
    """A chatty failure mode: the model repeats the answer format before answering."""
    template = ", ".join(f'"{key}": "<label>"' for key in obj if key != "reason")
    return (
        f'The format is {{"reason": "<one sentence>", {template}}}\nHere is my answer:\n'
        + json.dumps(obj)
    )


def corpus(n: int, seed: int = 0) -> list[tuple[str, str, dict[str, int]]]:
    """(style, text, intended values) for n generated answers, with and without a reason."""
    rng = random.Random(seed)
    rows = []
    for k in range(n):
        obj, values = answer(rng, reasoning=k % 4 != 0)
        style = WELL_FORMED_STYLES[k % len(WELL_FORMED_STYLES)]
        rows.append((style, dress(obj, style, rng), values))
    return rows


def cut_at_stop(text: str, stops) -> str:
    """What a backend returns: the text up to the first stop sequence, the stop sequence dropped."""
    cut = len(text)
    for stop in stops:
        found = text.find(stop)
        if found != -1:
            cut = min(cut, found)
    return text[:cut]
