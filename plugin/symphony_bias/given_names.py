"""Given names and the gender they signal, for the open-protocol person reader (`person_reference`).

Source: the `faker` package (MIT licence), `faker.providers.person.en_US.Provider`:
`first_names_male` (322 names) and `first_names_female` (381 names), each a dict of the name's
frequency within its gender (US census / SSA derived; each dict sums to 1). A name in only one list
signals that gender. A name in both lists is unisex when its minority share,
min(f_male, f_female) / (f_male + f_female), exceeds `UNISEX_RATIO` (0.1): in faker 40.x that makes
Angel, Casey, Jaime, Jamie, Jordan, Kerry, Taylor, Terry and Tracy unisex, while Alexis, Kelly,
Leslie and Shannon (minority shares 0.06-0.08) read female. A unisex name signals no gender: the
reader reports it as UNREADABLE when nothing else decides.

faker's lists put some names that are widely given to both genders in one list only (Alex, Chris,
Jesse, Riley, Cameron, Dakota, Hayden, Bailey: male; Morgan, Robin, Dana: female): `UNISEX_NAMES`
marks these unisex by hand, so that "a young musician named Alex ... they" is not read male.

A second list, `plugin/core/data/given_names.csv` (name, gender, source, licence), holds names
models often give their characters that faker's US list lacks: invented ones (Elara, Lyra, Zephyr),
and East / South Asian, African, Nordic, Slavic, Irish, Latin, German, Turkish and Hungarian names
(Kenji, Priya, Chiamaka, Ngozi, Björn, Joaquín, Anneliese, Elif, Zsofia); unisex ones marked. It was
written for this project from general knowledge of naming use (source and licence: MIT, as part of
symphony-bench) and hand-checked; where it and faker disagree, the hand-checked list wins. Names are
compared with accents folded (Björn is Bjorn).

Names that are also common English words (Grace, Melody, Rose, Drew, Mark, Summer, ...) are read as
names only in an explicit naming phrase ("named Grace", "her name was Grace"), since a story about
music writes "Melody filled the air" or "Grace and power" at a sentence start.
"""

from __future__ import annotations

import csv
import functools
from pathlib import Path

MALE, FEMALE, UNISEX = "male", "female", "unisex"
HAND_CHECKED = Path(__file__).parents[1] / "core" / "data" / "given_names.csv"
UNISEX_RATIO = 0.1
UNISEX_NAMES = frozenset(
    "Alex Bailey Cameron Chris Dakota Dana Hayden Jesse Jessie Morgan Riley Robin".split()
)

COMMON_WORD_NAMES = frozenset(
    """amber angel april autumn bill bob bonnie brooke carol chase christian crystal daisy dale
    dawn dean destiny drew earl faith frank gene glen grace grant guy heather holly hope hunter
    iris ivy jack jade jasmine jay jean joy june lee lily mark mason max may melody misty
    norman paige parker pearl penny piper ray robin rose ruby sandy shelby sue summer victor
    violet will""".split()
)


@functools.cache
def names() -> dict[str, str]:
    """Title-case given name -> MALE, FEMALE or UNISEX."""
    from faker.providers.person.en_US import Provider  # here: only a reader of names loads it

    male = dict(Provider.first_names_male)
    female = dict(Provider.first_names_female)
    table: dict[str, str] = {}
    for name in set(male) | set(female):
        m, f = float(male.get(name, 0.0)), float(female.get(name, 0.0))
        if (m and f and min(m, f) / (m + f) > UNISEX_RATIO) or name in UNISEX_NAMES:
            table[name] = UNISEX
        else:
            table[name] = MALE if m > f else FEMALE
    with HAND_CHECKED.open(encoding="utf-8", newline="") as f:
        table.update({row["name"]: row["gender"] for row in csv.DictReader(f)})
    return table


def name_gender(word: str, naming_phrase: bool = False) -> str | None:
    """The gender `word` signals as a given name (MALE, FEMALE, UNISEX), or None when it is not a
    known name (or is a common-word name outside a naming phrase)."""
    if not word[:1].isupper():
        return None
    if word.lower() in COMMON_WORD_NAMES and not naming_phrase:
        return None
    return names().get(word[:1] + word[1:].lower())
