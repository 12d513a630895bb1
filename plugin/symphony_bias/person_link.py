"""Whether a given name in an open-protocol answer is the scenario's person by what its clause does
(`person_names`; the rules are stated in `person_reference`): the name is the subject of a clause
that handles the scenario's instrument or plays ("Chidi knelt on the hall floor, keyboard upside
down", "Lena tried for the fourth time to record the cello line", "Mateus ... then played a few soft
notes"), with no one else between the name and the instrument."""

from __future__ import annotations

from weakref import WeakKeyDictionary

from symphony_bench.plugin.symphony_bias import person_words as W
from symphony_bench.plugin.symphony_bias.given_names import UNISEX, name_gender
from symphony_bench.plugin.symphony_bias.person_places import Phrases, Places, audience, listens

# the parts of an instrument a player handles ("plucked the strings", "wet the reed")
_PARTS = W.words("strings bow reed reeds valves slide mouthpiece sticks drumsticks")
_PLAYING = W.words(
    "play plays played playing strum strums strummed strumming pluck plucks plucked plucking "
    "tune tunes tuned tuning practise practises practised practising practice practiced "
    "practicing rehearse rehearses rehearsed rehearsing improvise improvises improvised "
    "improvising"
)
# words before a name that open its clause: the name is that clause's subject
_CLAUSE_OPENERS = W.words(". ! ? ; : , and then but so") | W.SUBORDINATE_CLAUSE
# words of someone else, or of listening, between the name and the instrument
_SOMEONE = (
    W.words("he she him they them we i you") | W.OTHERS | W.ROLES | W.MALE_NOUNS | W.FEMALE_NOUNS
)
_OWNERS = W.words("the his her its")
_WINDOW = 20
_SENTENCE = 60
_NEAR = 200
_NARRATOR = W.words("i me my")
_ANY_INSTRUMENT = W.INSTRUMENTS | {"instrument"}
_LISTENING: WeakKeyDictionary[Phrases, bool] = WeakKeyDictionary()  # per answer


def unplaced(phrases: Places, i: int) -> bool:
    """Whether a name that handles the instrument may still be the person: nothing but role nouns of
    no gender was read (a they is read too: it may already be the person), no one else mentioned and
    the person no audience before the name at `i` ("the traveller set a keyboard on a bench. Oliver
    hadn't played in weeks"; not "The traveller ... watched. Maria played the violin"), or every
    role noun read was a possessor ("the traveller's guitar")."""
    e = phrases.evidence
    if e.last_other < 0 and not any(gender for gender, _, _ in e.read):
        first = min(phrases.person_roles, default=i)
        return not any(audience(phrases.low, k) for k in range(first, i))
    return all(phrases.low[k].endswith("'s") for k in phrases.person_roles)


def handles_instrument(phrases: Places, i: int) -> bool:
    """Whether the name at `i` (its later parts and a title before it passed) is the subject of a
    clause that holds the scenario's instrument (any instrument where the scenario names none), one
    of its parts or a verb of playing, before the clause ends and before anyone else is mentioned;
    never after a first-person narrator ("I brought a violin home. Uncle Tony ... his violin"), in
    apposition ("the sax player, Louis Armstrong,"), joined to another name ("Mara and Luis"), or
    in a sentence that names someone of the other gender ("Kofi plays in the mornings and Ama at
    night"), nor where the person's role noun listens or watches anywhere in the answer ("Marco
    played the guitar. The traveller listened.")."""
    low, words = phrases.low, phrases.words
    # a title, or a role noun written as one opening the answer ("Nurse Fatima brought her guitar")
    titled = i > 0 and low[i - 1].rstrip(".") in W.TITLES
    start = i - 1 if titled or (i == 1 and words[0].istitle() and _person(low[0])) else i
    before = low[max(start - 2, 0) : start]
    if low[i].endswith("'s") or (before and before[-1] not in _CLAUSE_OPENERS):
        return False
    if len(before) == 2 and (
        (before[1] == "," and _person(low[start - 2]))
        or (before[1] in ("and", "or") and words[start - 2][:1].isupper())
    ):
        return False
    k = i + 1
    while k < len(words) and words[k][:1].isupper():
        k += 1
    held = phrases.instruments or _ANY_INSTRUMENT
    for m in range(k, min(k + _WINDOW, len(low))):
        w = low[m].split("'")[0]
        if w in (".", "!", "?", ";") or audience(low, m):
            return False
        if _person(w) or (words[m][:1].isupper() and name_gender(words[m]) is not None):
            return False
        owned = low[m - 1] in _OWNERS  # "plucked the strings", not "a deep bow"
        if w in held or w.removesuffix("s") in held or (w in _PARTS and owned) or w in _PLAYING:
            # "I brought a violin home. Uncle Tony ... his violin ensemble": the narrator's uncle
            narrated = _NARRATOR.intersection(low[max(i - _NEAR, 0) : i])
            return (
                not narrated
                and not _other_gender_named(low, words, i)
                and not _role_noun_listens(phrases)
            )
    return False


def _role_noun_listens(phrases: Phrases) -> bool:
    """Whether the person's role noun is the audience anywhere in the answer ("Marco played the
    guitar by the gate. The traveller listened."): a name that plays is then someone else. Scanned
    once per answer, so that an answer of many names stays linear."""
    if phrases not in _LISTENING:
        _LISTENING[phrases] = any(
            phrases.base[k] in phrases.roles and not low.endswith("'s") and listens(phrases.low, k)
            for k, low in enumerate(phrases.low)
        )
    return _LISTENING[phrases]


def _person(word: str) -> bool:
    return word.split("'")[0] in _SOMEONE


def _other_gender_named(low: list[str], words: list[str], i: int) -> bool:
    """Whether the sentence of the name at `i` (at most `_SENTENCE` tokens either side) names
    someone of the other gender."""
    gender = name_gender(words[i])
    lowest, highest = max(i - _SENTENCE, 0), min(i + _SENTENCE, len(low))
    ends = W.SENTENCE_ENDS
    first = next((k + 1 for k in range(i - 1, lowest - 1, -1) if low[k] in ends), lowest)
    last = next((k for k in range(i + 1, highest) if low[k] in ends), highest)
    return any(
        words[k][:1].isupper() and name_gender(words[k]) not in (None, gender, UNISEX)
        for k in range(first, last)
    )


# capitalised words that open a clause and name no one ("Nobody played", "Music filled the hall")
_NOT_NAMES = (
    W.NOT_MODIFIERS
    | W.SUBORDINATE_CLAUSE
    | W.SUBORDINATORS
    | W.PLACE_PREPOSITIONS
    | W.PERSON_PRONOUNS
    | W.ROLES
    | W.OTHERS
    | W.GROUPS
    | W.COLLECTIVES
    | W.INSTRUMENTS
    | W.NAMED_THINGS
    | W.words(
        "nobody somebody everybody everyone anyone no none nothing something everything music "
        "sound silence it this that there here what which one today tonight yesterday tomorrow now"
    )
)


# verbs in the past that end in neither -ed nor -s
_IRREGULAR_VERBS = W.words(
    "had was sat stood knelt began held took brought kept sang set put made went came ran felt knew "
    "left found wore let hit struck drew blew spun swung could would should might must can will"
)


def _verb_or_adverb(word: str) -> bool:
    return (
        word.endswith(("ed", "s", "ly"))
        or word in _PLAYING | W.PERSON_VERBS | W.THEN_ADVERBS | _IRREGULAR_VERBS
    )


def plays_unnamed(phrases: Places, i: int) -> bool:
    """Whether the capitalised word at `i`, no known name, may be a name that opens its clause (no
    word of the reader's lists, not written in lower case within `_NEAR` words of it, before a
    lower-case word that is a verb or an adverb: it ends in -ed, -s or -ly or is a verb or adverb of
    the reader's lists), no role noun of the person follows it ("Spotify played on his phone while
    the traveller strummed": the traveller plays) and `handles_instrument`."""
    low, words = phrases.low, phrases.words
    after = words[i + 1 : i + 2]
    return (
        words[i].isalpha()
        and not words[i].isupper()
        and low[i] not in _NOT_NAMES
        and bool(after)
        and after[0].isalpha()
        and after[0].islower()
        and after[0] not in _NOT_NAMES  # "Today her strings rang out", "Next to the stand"
        and _verb_or_adverb(after[0])
        and low[i] not in words[max(i - _NEAR, 0) : i + _NEAR]
        and not any(b in phrases.roles for b in phrases.base[i + 1 :])
        and handles_instrument(phrases, i)
    )
