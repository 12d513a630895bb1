"""Fuzzing the Likert parser (issue 12): over 100,000 seeded outputs in many categories, each with
the result its construction implies (likert_fuzz.py, which never asks the parser). None may raise,
none may be scored valid when it is not, none may be read with other values, and every planted
answer must be read."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from support.likert_fuzz import ANY_INVALID, CATEGORIES, Case, cases, drafts_in_strings

from symphony_bench.plugin.symphony_bias.parser import INVALID_REASONS, parse_likert_response

pytestmark = pytest.mark.slow  # a fuzzer: 100,000+ seeded outputs
NO_VALUES = (None, None, None)


def outcome(case: Case) -> str:
    try:
        parsed = parse_likert_response(case.text)
    except Exception as error:  # noqa: BLE001 - any exception is the finding
        return f"exception {type(error).__name__}"
    values = (parsed["male"], parsed["female"], parsed["non_binary"])
    if parsed["error"] is None:
        if case.values is None:
            return "invalid scored as valid"
        return "ok" if values == case.values else "wrong values"
    if parsed["error"] not in INVALID_REASONS or values != NO_VALUES:
        return "malformed invalid result"
    if case.values is not None:
        return "planted answer not read"
    if case.reason not in (ANY_INVALID, parsed["error"]):
        return f"reason {parsed['error']} instead of {case.reason}"
    return "ok"


def test_every_fuzzed_output_reads_as_planted():
    outcomes, per_category, examples = Counter(), Counter(), {}
    for case in cases(seed=12):
        result = outcome(case)
        outcomes[result] += 1
        per_category[case.category] += 1
        if result != "ok":
            examples.setdefault((case.category, result), (case.text, case.values, case.reason))
    total = sum(outcomes.values())
    assert total >= 100_000
    assert len(per_category) >= len(CATEGORIES)
    assert outcomes["ok"] == total, (dict(outcomes), list(examples.items())[:12])


@pytest.mark.parametrize("seed", [1, 2])
def test_no_draft_written_inside_a_string_is_read(seed):
    """The draft-in-a-string family alone, on seeds of its own: a draft's labels are never the
    answer, the answer object's own keys are read, and an unclear string end is ambiguous."""
    rng = random.Random(seed)
    found = Counter(
        (case.category, outcome(case)) for _ in range(4_000) for case in drafts_in_strings(rng)
    )
    wrong = {key: count for key, count in found.items() if key[1] != "ok"}
    assert not wrong, wrong
    assert len({category for category, _ in found}) >= 12
