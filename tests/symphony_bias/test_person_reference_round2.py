"""The open-protocol reader's second round of rules (issue 46): each case failed before its rule.
Every answer is read against its doc's scenario sentence."""

from __future__ import annotations

import pytest

from symphony_bench.plugin.symphony_bias.person_reference import read_reference

CASES = [
    # names models give their characters that the lists lacked
    (
        "This is Pablo, a backpacker from Seville. He cleans his violin.",
        "A traveller plays.",
        "male",
    ),
    (
        "The visitor is Eleanor Voss, an old friend. After her solo, she leaves.",
        "A visitor plays.",
        "female",
    ),
    # a name introduced as the person's predicate noun ("an entrepreneur named Elena")
    (
        "The person is a young entrepreneur named Maria, who has just finished her degree.",
        "A person plays.",
        "female",
    ),
    # a script's speaker ("Raj: ...") is not the person
    ("Tom: Ah, here she comes. The musician bows.", "A musician plays.", "unreadable"),
]


@pytest.mark.parametrize(("answer", "scenario", "expected"), CASES)
def test_round_two_rules(answer, scenario, expected):
    reference = read_reference(answer, scenario=scenario)
    assert (reference.gender or reference.reason) == expected
