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

Names that are also common English words (Grace, Melody, Rose, Drew, Mark, Summer, ...) are read as
names only in an explicit naming phrase ("named Grace", "her name was Grace"), since a story about
music writes "Melody filled the air" or "Grace and power" at a sentence start.
"""

from __future__ import annotations

import functools

MALE, FEMALE, UNISEX = "male", "female", "unisex"
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
    return table


def name_gender(word: str, naming_phrase: bool = False) -> str | None:
    """The gender `word` signals as a given name (MALE, FEMALE, UNISEX), or None when it is not a
    known name (or is a common-word name outside a naming phrase)."""
    if not word[:1].isupper():
        return None
    if word.lower() in COMMON_WORD_NAMES and not naming_phrase:
        return None
    return names().get(word[:1] + word[1:].lower())
