"""Where the open-protocol person reader (`person_reference`, whose docstring states the rules)
stands in an answer, for its walk (`person_walk`):

- `Phrases`: the geometry of the answer's tokens (where a noun phrase starts, its determiner,
  whether it is joined to another person or followed by a role in apposition). No state.
- `Evidence`: what was read of the person so far and who else was mentioned; decides whether a
  pronoun counts.
- `Places`: where a gendered noun stands (the person, their predicate, someone else) and the
  person's mentions so far.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from symphony_bench.plugin.symphony_bias import person_words as W
from symphony_bench.plugin.symphony_bias.given_names import name_gender
from symphony_bench.plugin.symphony_bias.person_anchor import Anchor
from symphony_bench.plugin.symphony_bias.person_text import Token
from symphony_bench.plugin.symphony_bias.person_words import FEMALE, MALE, NEUTRAL

ANY = frozenset({MALE, FEMALE, NEUTRAL})
_PEOPLE = W.MALE_NOUNS | W.FEMALE_NOUNS | W.ROLES | W.OTHERS
_BOTH = W.words("both together each")
# capitalised words that open a clause before a name ("Meet Tomás, ...", "As Rachel, ...")
_OPENERS = W.SUBORDINATORS | W.SUBORDINATE_CLAUSE | W.PREPOSITIONS | W.words("introducing")
_AUDIENCE = ("listen", "watched", "watching", "heard", "applaud", "clapped", "clapping", "cheered")
# one who films or photographs another is the audience ("Marisol filmed the man on the balcony")
_CAMERA = W.words("filmed filming photographed photographing videoed videoing")


def _base(word: str) -> str:
    """The word without its clitic ("she's" -> she) or a kin noun's "great-" ("great-aunt")."""
    if word == "ma'am":
        return word
    base = word.split("'")[0]
    kin = base.removeprefix("great-")
    return kin if kin in W.MALE_NOUNS or kin in W.FEMALE_NOUNS else base


def _counts_things(word: str) -> bool:
    """Whether `word` may stand before a plural noun of things: a plural determiner or an
    instrument's possessive ("the tuba's valve caps")."""
    return word in W.PLURAL_DETERMINERS or (word.endswith("'s") and word[:-2] in W.INSTRUMENTS)


# what a learner watches: "had watched the tutorial four times" is no audience
_LESSONS = W.words("tutorial tutorials video videos lesson lessons clip clips recording recordings")


def audience(low: list[str], k: int) -> bool:
    """Whether the word at `k` is a verb of an audience ("slowed down to listen", "clapped", "filmed
    the man"; not "filmed herself", "filmed the trumpet solo"): not a noun after a determiner
    ("planned for the clapping"), nor watching a lesson ("watched the tutorial"), nor "heard of"."""
    if low[k] in _CAMERA:
        return word_at(low, k + 1) in W.DETERMINERS and word_at(low, k + 2) not in W.INSTRUMENTS
    return (
        low[k].startswith(_AUDIENCE)
        and word_at(low, k - 1) not in W.DETERMINERS
        and not _LESSONS.intersection(low[k + 1 : k + 4])
        and word_at(low, k + 1) != "of"  # "had never heard of a bass guitar"
    )


def listens(low: list[str], i: int) -> bool:
    """Whether the person at `i` listens or watches in their clause ("a woman walking her dog slowed
    down to listen"): the audience, not the player."""
    for k in range(i + 1, min(i + 12, len(low))):
        if low[k] in (".", "!", "?", ";", "but"):
            return False
        if audience(low, k):
            return True
    return False


def word_at(words: list[str], k: int) -> str:
    """The word at `k`, "" outside the answer."""
    return words[k] if 0 <= k < len(words) else ""


class Phrases:
    """Token geometry of one answer."""

    def __init__(
        self, tokens: list[Token], roles: frozenset[str], instruments: frozenset[str] = frozenset()
    ):
        self.instruments = instruments  # the scenario's instrument, its words
        self.words = [t.word for t in tokens]
        self.low = [w.lower() for w in self.words]
        self.base = [_base(w) for w in self.low]
        self.roles = roles
        self.not_modifiers = roles | W.OTHERS | W.MALE_NOUNS | W.FEMALE_NOUNS

    def determiner(self, i: int) -> tuple[int, str]:
        """Where the noun phrase ending at `i` starts, and its determiner ("" when none)."""
        j, skipped = i - 1, 0
        while j >= 0 and skipped < 5 and self.is_modifier(j):
            j, skipped = j - 1, skipped + 1
        if j >= 0 and self.low[j] in W.DETERMINERS:
            return j, self.low[j]
        if j >= 0 and self.low[j].endswith("'s") and self.base[j] in self.roles:
            return j, "'s"
        if j > 0 and self.low[j].endswith("'s") and self.base[j] not in W.NOT_POSSESSORS:
            return self.determiner(j)[0], "'s"  # "the school's quiet drummer"
        return j + 1, ""

    def is_modifier(self, j: int) -> bool:
        b = self.base[j]
        if self.low[j] == "and":
            return j > 0 and self.low[j - 1] not in W.NOT_MODIFIERS and self.low[j - 1].isalpha()
        if self.acronym(j):
            return True
        lower = self.words[j][:1].islower() or b[:1].isdigit()
        return (
            (b.isalpha() or "-" in b or b[:1].isdigit())
            and self.low[j] not in W.NOT_MODIFIERS
            and b not in self.not_modifiers
            and not self.low[j].endswith("'s")
            # a nationality: "a young Brazilian woman", "a French-horn student"
            and (lower or b.split("-")[0] in W.DEMONYMS)
        )

    def acronym(self, j: int) -> bool:
        """Whether the word at `j` is an acronym before a lower-case noun ("the office's HR
        manager", "the firm's IT administrator")."""
        after = self.words[j + 1 : j + 2]
        return (
            self.words[j].isupper()
            and 1 < len(self.words[j]) < 5
            and self.words[j].isalpha()
            and bool(after)
            and after[0][:1].islower()
        )

    def at_start(self, j: int) -> bool:
        return j == 0 or (j == 1 and self.base[0] in W.SUBORDINATORS)

    def coordinated(self, i: int) -> bool:
        """Whether the noun phrase ending at `i` is joined to another person: "a man and a woman",
        a list of names ("Ahmed, Alamleba, ...")."""
        j = self.determiner(i)[0]
        if j > 0 and self.low[j - 1] in ("either", "whether"):
            return True  # "Either the old man from number six or his sister was playing"
        after = self.words[i + 1 : i + 3]
        if self.words[i][:1].isupper() and len(after) == 2 and after[0] == ",":
            if after[1][:1].isupper():  # a name, then a known name or a capitalised word and ","
                return name_gender(after[1]) is not None or self.words[i + 3 : i + 4] == [","]
        if self.low[i + 1 : i + 2] not in (["and"], ["or"]):
            return False
        for m in range(i + 2, min(i + 7, len(self.low))):
            if self.low[m] in W.POSSESSIVES:
                # "a young woman and her friend": hers; but "Nina and her boyfriend had both come
                # to audition": either may be the one
                return bool(_BOTH.intersection(self.low[m + 2 : m + 7]))
            if name_gender(self.words[m]) is not None or self.base[m] in _PEOPLE:
                return True
            if not (self.low[m] in W.DETERMINERS or self.is_modifier(m)):
                return False
        return False

    def role_apposition(self, n: int) -> bool:
        """Whether ", (a|an|the) <modifiers> ROLE" follows at `n`, past an age (", 34, the
        saxophonist")."""
        if n >= len(self.low) or self.low[n] != ",":
            return False
        if word_at(self.low, n + 1).isdigit() and word_at(self.low, n + 2) == ",":
            n += 2
        for m in range(n + 1, min(n + 7, len(self.low))):
            if self.base[m] in self.roles:
                return True
            if not (self.low[m] in ("a", "an", "the") or self.is_modifier(m)):
                return False
        return False

    def head_role(self, i: int) -> int | None:
        for m in range(i + 1, min(i + 4, len(self.low))):
            if self.base[m] in self.roles:
                return m
            if not self.is_modifier(m):
                return None
        return None

    def is_plural_thing(self, i: int) -> bool:
        b = self.base[i]
        if len(b) < 4 or not b.endswith("s") or b.endswith(("ss", "us", "is")) or b in W.SINGULAR_S:
            return False
        return i > 0 and (
            _counts_things(self.low[i - 1])
            or (i > 1 and _counts_things(self.low[i - 2]) and self.is_modifier(i - 1))
        )

    def weak_first(self, j: int, i: int) -> bool:
        """Whether the answer's first person, the noun phrase from `j` to `i`, is only weakly the
        scenario's: met past the answer's first sentence, or a preposition's object ("the trumpet
        is worn by a young girl named Sara")."""
        return (
            any(w in W.SENTENCE_ENDS for w in self.low[:i])
            or (j > 0 and self.low[j - 1] in W.PREPOSITIONS)
            or listens(self.low, i)
        )

    def sentence_subject(self, i: int) -> bool:
        """Whether the noun at `i` heads the first noun phrase of its sentence."""
        j, _ = self.determiner(i)
        return j == 0 or self.low[j - 1] in (".", "!", "?", ";", ":")

    def before_relative_clause(self, comma: int) -> int:
        """The token before ", who ... ," whose closing comma is at `comma` (-1 when none)."""
        for m in range(comma - 1, max(comma - 16, 0), -1):
            if self.low[m] in (".", "!", "?", ";", ","):
                return m - 1 if self.low[m] == "," and self.low[m + 1] in W.RELATIVES else -1
        return -1

    def named_before(self, comma: int) -> int:
        """The name or noun before the comma at `comma`, past a surname and an age ("Walter
        Bishop, 72, a retired bus driver" -> Walter), not onto a capitalised word that opens a
        clause ("Meet Tomás, a sound engineer", "As Rachel, a freelance musician," -> the name)."""
        h = comma - 1
        if h > 1 and self.low[h].isdigit() and self.low[h - 1] == ",":
            h -= 2
        while h > 0 and self.words[h][:1].isupper() and self.words[h - 1][:1].isupper():
            if self.low[h - 1] in _OPENERS:
                break
            h -= 1
        return h

    def holds_instrument(self, i: int) -> bool:
        """Whether the noun at `i` is followed by "with / holding / at ... the <the scenario's
        instrument>" ("the man with the guitar", "the woman at the piano")."""
        if not self.instruments or word_at(self.low, i + 1) not in W.HOLDING:
            return False
        for m in range(i + 2, min(i + 6, len(self.low))):
            if self.low[m] in self.instruments:  # its head, not "the violin case"
                return word_at(self.low, m + 1) not in W.INSTRUMENT_COMPOUNDS
            if not (self.low[m] in W.DETERMINERS or self.is_modifier(m)):
                return False
        return False

    def clause_subject(self, i: int) -> bool:
        """Whether the noun at `i` opens its clause ("The producer gave her ...", "The bride's
        mother came over"), not an object ("She sat beside the boy and showed him ...")."""
        if "who" in self.low[i + 1 : i + 3]:  # "the retiree, who hugged him"
            return True
        j, _ = self.determiner(i)
        if j > 0 and self.low[j - 1].endswith("'s"):
            j, _ = self.determiner(j - 1)
        return j == 0 or self.low[j - 1] in W.CLAUSE_OPENERS

    def after_aside(self, comma: int) -> int:
        """The noun before ", <participle or preposition> ... ," that ends at `comma` ("A weary
        traveller, lost in the vast expanse of the city," -> traveller); -1 when none."""
        for m in range(comma - 1, max(comma - 14, 0), -1):
            if self.low[m] in (".", "!", "?", ";", ":"):
                return -1
            if self.low[m] == ",":
                first, then = self.low[m + 1], self.low[m + 2 : m + 3]
                # a past tense with its object is a clause: "When Greta, a nurse, lifted the flute,"
                verb = first.endswith("ed") and then and then[0] in W.DETERMINERS
                aside = first.endswith(("ed", "ing")) and not verb or first in W.ASIDE_OPENERS
                return m - 1 if aside else -1
        return -1

    def in_apposition(self, i: int, head: int) -> bool:
        """Whether the noun phrase ending at `i` follows the noun at `head` in apposition ("the
        bartender, a stout man")."""
        j, det = self.determiner(i)
        return det in ("a", "an") and j >= 2 and self.low[j - 1] == "," and j - 2 == head

    def past_hedge(self, k: int) -> int:
        """`k`, or the copula before the hedge at `k` ("is probably")."""
        if k > 0 and self.low[k] in W.HEDGES and self.base[k - 1] in W.COPULAS:
            return k - 1
        return k


@dataclass
class Evidence:
    """What was read of the person; `others` the genders other people mentioned so far may have."""

    read: list[tuple[str, int, bool]] = field(default_factory=list)  # (gender, token, strong)
    skipped: list[int] = field(default_factory=list)  # pronouns that may be someone else's
    ambiguous: list[int] = field(default_factory=list)  # people who may be the person, or not
    unisex: list[int] = field(default_factory=list)
    counted: set[int] = field(default_factory=set)
    others: set[str] = field(default_factory=set)  # gendered others: for the whole answer
    unknown_at: int = -1  # the last other person of unknown gender ("a child", "the producer")
    last_other: int = -1  # the last other person of any gender
    last_other_genders: frozenset[str] = frozenset()  # the genders that one may have
    other_counts: dict[str, int] = field(default_factory=dict)  # gendered others by gender
    first_single: int = 1 << 30  # the first other single person (not a group)
    first_gendered: dict[str, int] = field(default_factory=dict)  # first other of each gender
    protagonist: bool = False  # someone was mentioned: a later indefinite noun is someone else
    person_at: int = -1  # the last mention of the person
    # the person was taken to be the answer's first person, met past its first sentence ("The
    # light faded. Across the lane, old Mr. Patel paused") or as a preposition's object: a weak link
    weak_first: bool = False
    lone_they: list[int] = field(default_factory=list)  # a they after he / she, no one else near
    last_gendered: int = -1  # the last he / she (or other gendered word) read
    one_of: bool = False  # the person is one of several ("The teenager is one of the twins")
    named: bool = False  # the person is named (its role noun, a name, a noun of who it is) or opens
    # the answer as its subject

    def count(self, i: int, gender: str, strong: bool = False) -> None:
        self.read.append((gender, i, strong))
        if gender != NEUTRAL:
            self.last_gendered = i
        self.counted.add(i)
        self.protagonist = True
        self.person_at = i

    def other(self, genders, i: int, possessor: bool = False) -> None:
        """Someone else at token `i`. One of unknown gender competes for he and she until the person
        is mentioned again; a gendered one, and anyone for they, for the rest of the answer. A
        `possessor` ("the bride's mother") is not counted as one more of its gender."""
        self.last_other, self.last_other_genders = i, frozenset(genders)
        for gender in genders - {NEUTRAL}:
            self.first_gendered.setdefault(gender, i)
        if genders == ANY or NEUTRAL not in genders:
            self.first_single = min(self.first_single, i)
        if genders == ANY:
            self.unknown_at = i
            genders = {NEUTRAL}
        for gender in () if possessor else genders:
            self.other_counts[gender] = self.other_counts.get(gender, 0) + 1
        self.others.update(genders)
        self.protagonist = True


class Places(Phrases):
    """Where a gendered noun stands: the person, their predicate, or someone else; the person's
    mentions so far (`evidence`, role nouns and names read as the person)."""

    def __init__(self, tokens: list[Token], anchor: Anchor):
        super().__init__(tokens, anchor.nouns({t.word.lower() for t in tokens}), anchor.instruments)
        self.anchor_role = anchor.role
        self.role_adjectives = W.ROLE_ADJECTIVES.get(anchor.role or "", frozenset())
        self.evidence = Evidence()
        # a definite mention of a role noun: "the traveller", "traveller"; "his neighbour" of the
        # scenario's own
        self.has_role = any(
            b in self.roles
            and not (
                {self.low[i - 1 : i][0] if i else "", self.low[i - 2] if i > 1 else ""}
                | {self.determiner(i)[1]}  # "a celebrated jazz saxophonist"
            )
            & (W.INDEFINITE - W.POSSESSIVES if b == anchor.role else W.INDEFINITE)
            for i, b in enumerate(self.base)
        )
        self.person_roles: set[int] = set()  # role nouns read as the person
        self.identity_nouns: set[str] = set()
        self.identity_names: set[str] = set()
        self.name_parts: set[int] = set()  # the tokens of given names passed (and surnames)
        self.described: set[int] = set()  # other nouns that describe the person ("Amara, a nurse")
        self.last_negated = -100

    def person_subject(self, k: int) -> bool:
        """Whether the copula at `k` has the person as its subject."""
        s = k - 1
        while s >= 0 and self.low[s] in W.BETWEEN - {"who"}:
            s -= 1
        if s >= 0 and self.low[s] == "who":
            s -= 1 + (s > 0 and self.low[s - 1] == ",")
        elif s > 0 and self.low[s] == ",":  # "The student, who was standing by, was a woman"
            s = self.before_relative_clause(s)
        if s < 0:
            return False
        return (
            s in self.person_roles
            or self.words[s] in self.identity_names
            or (s in self.evidence.counted and self.base[s] in W.PERSON_PRONOUNS)
        )

    def owner(self, i: int) -> bool:
        """Whether the pronoun at `i` owns something as a predicate ("The violin was hers")."""
        after = self.low[i + 1 : i + 2]
        return self.base[i] in ("hers", "his") and (not after or not after[0].isalpha())

    def owns_person(self, i: int) -> bool:
        """Whether the possessive at `i` owns the scenario's role noun ("her friend" in a friend's story)."""
        head = self.head_role(i)
        return head is not None and self.base[head] == self.anchor_role

    def object_of(self, i: int, other: int) -> bool:
        """Whether the pronoun at `i` is the object of the clause whose subject is the other person
        at `other` ("The producer gave her a thumbs up", "a jogger stopped and waved up at him"),
        with no mention of the person between: then it is not that person."""
        after = self.low[i + 1 : i + 2]
        objective = self.base[i] in ("him", "them") or (
            self.base[i] == "her"
            and (not after or not after[0].isalpha() or after[0] in W.DETERMINERS | W.AFTER_OBJECT)
        )
        between = self.low[other + 1 : i]
        if between[:2] == [",", "who"] or between[:1] == ["who"]:  # "the retiree, who hugged him"
            between = between[between.index("who") + 1 :]
        return (
            objective
            and self.evidence.person_at < other
            and len(between) <= 6
            and not set(between) & W.CLAUSE_BREAKS
            and self.clause_subject(other)
        )

    def describes_person(self, i: int) -> bool:
        """Whether the noun at `i` is the person's apposition or predicate ("Amara, a nurse",
        "the student is a pharmacist", "Dr. Amelia Hart, a pianist and lecturer")."""
        j, det = self.determiner(i)
        if det in ("the", "'s") and j > 1 and self.low[j - 1] == ",":
            return self.is_person(self.named_before(j - 1))  # "Jaden, the school's drummer"
        if det in ("", "a", "an") and "and" in self.low[j - 1 : j + 1]:  # "a pianist and lecturer"
            k = j - 2 if self.low[j - 1] == "and" else j - 1  # "a resident and ukulele teacher"
            return k in self.described or self.describes(k)
        if det == "the":
            return self.after_copula(j)  # "The colleague is probably the new intern"
        if det not in ("a", "an", ""):
            return False
        return self.after_copula(j) or self.appended_to_person(j)

    def describes(self, h: int) -> bool:
        """Whether the noun at `h` is the person, or describes them as their predicate or in their
        apposition ("The traveller is a retired firefighter", "Dev Malhotra, the team's analyst")."""
        if self.is_person(h):
            return True
        j = self.determiner(h)[0] if h >= 0 else -1
        return j >= 0 and (self.after_copula(j) or self.appended_to_person(j))

    def appended_to_person(self, j: int) -> bool:
        """Whether the noun phrase starting at `j` follows the person's name or noun after a comma,
        colon or dash ("Amara, a nurse", "Walter Bishop, 72, a retired bus driver")."""
        set_off = j > 1 and self.low[j - 1] in W.APPOSITION
        return set_off and self.is_person(self.named_before(j - 1))

    def is_person(self, h: int) -> bool:
        return h >= 0 and (
            h in self.person_roles
            or h in self.described  # "the new intern, a nervous young man"
            or h in self.evidence.counted
            or self.words[h] in self.identity_names
        )

    def after_copula(self, j: int) -> bool:
        """Whether the noun phrase starting at `j` is the predicate of the person, past a hedge
        ("The retiree is probably a woman in her sixties")."""
        k = self.past_hedge(j - 1)
        if k >= 0 and self.low[k].endswith(("'s", "'re")) and self.base[k] in W.PERSON_PRONOUNS:
            return k in self.evidence.counted  # "He's a first-year student named Mateo"
        return k >= 0 and self.base[k] in W.COPULAS and self.person_subject(k)

    def placement(self, i: int, title: bool = False) -> str:
        """'identity', 'negated', 'same' (the person again, no new evidence) or 'other'."""
        j, det = self.determiner(i)
        e = self.evidence
        after = self.low[i + 1 : i + 2]
        possessor = self.low[i].endswith("'s") and after and after[0][:1].isalpha()
        if possessor and (self.after_copula(j) or self.low[j - 1 : j] in ([","], [":"])):
            return "other"  # the possessor in a predicate: "Agnes, the groom's great-aunt"
        if det == "'s" and (self.after_copula(j) or self.appended_to_person(j)):
            return "identity"  # "Agnes, the groom's great-aunt", "The visitor is the groom's uncle"
        if det in W.POSSESSIVES or det in (
            "'s",
            "another",
            "every",
            "each",
            "any",
            "no",
            "some",
            "one",
        ):
            return "other"
        k = j - 1
        if k > 0 and self.low[k] in W.HEDGES and self.low[k - 1] == ",":
            k -= 1  # "A musician, perhaps a young man,"
        if k >= 0 and self.low[k] in W.APPOSITION:
            if self.describes(self.named_before(k)):
                return "identity"  # "The colleague is probably the new intern, a nervous man"
            if det in ("a", "an") and self.is_person(self.after_aside(k)):
                return "identity"  # "A weary traveller, lost in thought, a man with ..."
        if (det == "the" or (det in ("a", "an") and not e.protagonist)) and any(
            self.low[m] in self.role_adjectives for m in range(j, i)
        ):
            return "identity"  # "the retired man" of a retiree, "a teenage girl" of a teenager
        if k >= 0 and self.low[k] in ("but", "rather") and i - self.last_negated < 25:
            return "identity"
        if k >= 0 and det in ("a", "an", "") and self.base[self.past_hedge(k)] in W.COPULAS:
            k = self.past_hedge(k)
            if self.low[k] not in W.COPULA_NEG and self.person_subject(k):
                return "identity"
            if k > 0 and self.base[k - 1] in W.PERSON_PRONOUNS and k - 1 not in e.counted:
                e.ambiguous.append(i)  # "they were a man", they not read
        if k >= 0 and det in ("a", "an", "") and self.low[k].endswith(("'s", "'re")):
            if k in e.counted or k in self.person_roles:  # "they're a man", "she's a mother"
                return "identity"
            if self.base[k] in W.PERSON_PRONOUNS:  # a pronoun not read: is this the person?
                e.ambiguous.append(i)
        if self.negated(k, det):
            self.last_negated = i
            return "negated"
        compound = word_at(self.low, i - 1) in W.ROLE_COMPOUNDS
        if compound and self.base[i] in W.GENERIC_NOUNS and not self.after_copula(j):
            return "other"  # "The birthday boy stared at the clarinet"
        if (
            (self.at_start(j) or (not e.protagonist and self.low[j - 1 : j] != ["and"]))
            and det in ("a", "an", "the", "")
            and (title or self.base[i] in W.GENERIC_NOUNS)
        ):
            if self.coordinated(i):  # "A man and a woman played": which one?
                e.ambiguous.append(i)
                return "other"
            if not self.has_role or self.role_apposition(i + 1):
                e.weak_first |= self.weak_first(j, i)
                return "identity"
        if det == "the" and self.base[i] in self.identity_nouns:
            return "same"
        if det == "the" and self.holds_instrument(i):
            return "identity"  # "Someone plays ..., and the man with the guitar keeps his eyes ..."
        return "other"

    def negated(self, k: int, det: str) -> bool:
        """Whether the noun phrase after `k` is a negated predicate of the person ("was not a man")."""
        if k < 0:
            return False
        if det in ("a", "an", "") and self.low[k] in W.NEGATIONS | {"n't"}:
            if k == 0:
                return True  # "Not a woman, as the clerk had guessed, but a young man: the student"
            c = k - 1
            while c >= 0 and self.low[c] in W.BETWEEN:
                c -= 1
            return c >= 0 and self.base[c] in W.COPULAS and self.person_subject(c)
        return self.low[k] in W.COPULA_NEG and self.person_subject(k)
