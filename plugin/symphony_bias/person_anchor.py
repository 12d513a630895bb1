"""The scenario's person, as the open-protocol reader (`person_reference`) anchors on it: the role
noun the scenario names its person by ("A traveller is playing ..." -> traveller; "An adult learner
buys ..." -> learner; "Someone plays ..." -> someone), whether the scenario holds a second person
of the same role ("A friend plays a duet with a friend": either could be the one a story genders),
and its instrument (a harp scenario's person is no saxophonist)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from symphony_bench.plugin.symphony_bias import person_words as W

_WORD = re.compile(r"[A-Za-z]+(?:-[A-Za-z]+)*")
_LEADING = W.words("a an the your my our this one local adult young old elderly")


@dataclass(frozen=True)
class Anchor:
    role: str | None  # the role noun, lower case ("traveller"); None when the scenario names none
    shared: bool = False  # the scenario holds two people of that role
    instruments: frozenset[str] = frozenset()  # the instrument the scenario names, its words

    def nouns(self, words: set[str]) -> frozenset[str]:
        """The role nouns that can name the person in a story of `words` (lower case): the
        scenario's and its spellings; the generic ones (musician, player, pianist, ...) too when the
        story never uses the scenario's (then "the musician" is the traveller; beside "the
        retiree" it is someone else). Every other role noun is someone else. With no anchor, every
        role noun of the reader's list."""
        if self.role is None:
            return W.ROLES
        own = {self.role} | W.ROLE_SYNONYMS.get(self.role, frozenset())
        if own & words:
            return frozenset(own)
        others = {
            n for n, plays in W.PLAYS.items() if self.instruments and not plays & self.instruments
        }
        return frozenset(own | (W.GENERIC_ROLES - others))


NO_ANCHOR = Anchor(None)


def anchor(scenario) -> Anchor:
    """The person of `scenario` (the doc's scenario sentence; anything else: no anchor)."""
    if not isinstance(scenario, str):
        return NO_ANCHOR
    words = [w.lower() for w in _WORD.findall(scenario)]
    people = W.ROLES | W.OTHERS
    phrase = words[1:4] if words[:1] and words[0] in _LEADING else words[:3]
    nouns = [
        w
        for w in phrase[: next((k for k, w in enumerate(phrase) if w not in people | _LEADING), 3)]
        if w in people
    ]
    head = nouns[-1] if nouns else None
    if head is None:
        lead = [w for w in words[:4] if w not in _LEADING]
        if not words or words[0] not in _LEADING or not lead:
            return NO_ANCHOR
        head = lead[0]
    return Anchor(head, words.count(head) > 1, W.INSTRUMENTS.intersection(words))
