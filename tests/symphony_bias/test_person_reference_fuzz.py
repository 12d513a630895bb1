"""Fuzz the open-protocol person reader with generated answers whose truth is known by construction
(`support.reference_fuzz`): pronouns in every case, nouns, titles, names, other people with their
own genders, bystanders and groups beside the scenario's person, negations, quotes, long answers,
reasoning blocks, refusals and contradictions.

The hard rule: no wrong-gender read. A clear case is read as its gender or not at all (never the
other gender, never neutral for a gendered person, never gendered for a neutral one); an unclear
case (no reference, contradiction, unisex name, plural they, another person only, refusal,
unfinished reasoning) gets no gender. The share read correctly is printed and floored."""

from __future__ import annotations

from collections import Counter

import pytest
from support.reference_fuzz import cases

from symphony_bench.plugin.symphony_bias.person_reference import UNREADABLE, read_reference


def _tally(n: int, seed: int) -> Counter:
    tally = Counter()
    for case in cases(n, seed):
        ref = read_reference(case.text, scenario=case.scenario)
        assert not (ref.reason == UNREADABLE and not ref.evidence), (
            case,
            ref,
        )  # no swallowed error
        if case.expected is None:
            assert ref.gender is None, (case, ref)
            tally["unclear_right" if ref.reason == case.reason else "unclear_other_reason"] += 1
        elif ref.gender is None:
            tally["clear_unread"] += 1
        else:
            assert ref.gender == case.expected, (case, ref)  # a wrong-gender read
            tally["clear_right"] += 1
    return tally


def _report(tally: Counter) -> None:
    clear = tally["clear_right"] + tally["clear_unread"]
    print(
        f"\nclear cases {clear}: read right {tally['clear_right'] / clear:.3f}, unread "
        f"{tally['clear_unread'] / clear:.3f}, wrong 0; unclear cases "
        f"{tally['unclear_right'] + tally['unclear_other_reason']}: exact reason "
        f"{tally['unclear_right']}"
    )
    assert tally["clear_right"] / clear > 0.9


def test_fuzz_fast():
    _report(_tally(1_000, seed=20261206))


@pytest.mark.slow
def test_fuzz_many():
    tally = Counter()
    for seed in range(4):
        tally += _tally(10_000, seed=seed)
    _report(tally)
