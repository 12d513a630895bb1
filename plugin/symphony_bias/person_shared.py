"""Whether an answer shares the playing between people (`person_reference`'s precision check): two
who take turns or pass the instrument back and forth, one of whom plays while the other (or "one of
them") does something else, who both stand up, or who split a set. Where the scenario's role noun
is never written (the person is a name or a pronoun) and someone of the other gender than the one
read shares the playing, either could be the scenario's person, so the reading is UNREADABLE ("Nadia
and her husband had been taking turns on the bass ... one of them plucked ...; the other hummed",
"Emma and her brother Lucas ... they both stood up", "The twins had agreed to split the set — Noah
would play the first half, Nora the second").
"""

from __future__ import annotations

import re

_SHARED = re.compile(
    r"\b(?:(?:take|takes|took|taking|taken)\s+turns|in\s+turns|turn\s+about|split\s+the|"
    r"one\s+of\s+them\b.{0,200}?\b(?:the\s+other|one\s+of\s+them)|(?:they|we)\s+both|both\s+of\s+them|"
    r"(?:passing|passed|handing|handed|swapping|swapped)\s+(?:\w+\s+){1,3}?back\s+and\s+forth|"
    r"and\s+(?:\w+\s+){1,3}?both(?!\s+(?:hands|arms|feet|eyes|sides|ends)\b)|neither\s+of\s+them)\b",
    re.IGNORECASE | re.DOTALL,
)


def shares_playing(text: str) -> bool:
    """Whether `text` (quoted speech blanked) says the people in it share or take turns."""
    return _SHARED.search(text) is not None
