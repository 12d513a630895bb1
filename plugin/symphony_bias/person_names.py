"""Given names in the open-protocol person reader's walk (`person_walk`; the rules are stated in
`person_reference`'s docstring): which names name the person, which someone else, which nobody (a
place, a work, a composer), and where a pet, ship or instrument stands as someone."""

from __future__ import annotations

from symphony_bench.plugin.symphony_bias import person_words as W
from symphony_bench.plugin.symphony_bias.given_names import UNISEX, name_gender
from symphony_bench.plugin.symphony_bias.person_link import (
    handles_instrument,
    plays_unnamed,
    unplaced,
)
from symphony_bench.plugin.symphony_bias.person_places import ANY, Evidence, Places, word_at

__all__ = ["Names", "opening_clause_subject", "opens_after_heading"]

# pieces of music: "Chopin's nocturne" names a composer
_WORKS = W.words(
    "lullaby song sonata nocturne concerto symphony suite etude prelude waltz march ballad tune "
    "melody piece aria requiem serenade fugue rhapsody theme hymn"
)
# "known as Elena", "introduced herself as Elena"
_SELF = W.words("himself herself themself themselves")
_AS_NAMED = _SELF | W.words("known")
_NAME_PARTICLES = W.words("le la de du van von da di del der")
# a name after these is the one addressed ("Hey Brianna, this is Elton"), not the person
_GREETINGS = W.words("hey hi hello dear dearest")


# nouns after which a pet's, ship's or instrument's name is a modifier ("the cello case", "the dog
# lead"), not the subject
_COMPOUND_HEADS = W.words(
    "case cases stand bench stool strap lid cover bag box lead leash cage kennel bowl shop store "
    "lesson lessons teacher teachers part solo section keys pedal pedals strings neck reed "
    "mouthpiece tuner amp cable music sheet deck cabin"
)
# nouns of a person in an opening name's apposition ("Marko Jedletski, a 26-year-old male")
_PERSON_NOUNS = W.MALE_NOUNS | W.FEMALE_NOUNS | W.OTHERS | W.ROLES | W.words("male female")
# words of a heading that asks or labels who the person is ("Who is this person?", "Name:")
_HEADINGS = W.words("who name character protagonist")
# days and months: "It's Sunday" introduces no one
_CALENDAR = W.words(
    "monday tuesday wednesday thursday friday saturday sunday january february march april may "
    "june july august september october november december christmas easter"
)


class Names(Places):
    """Given names: which name the person, which someone else, which nobody (a place, a work, a
    composer); and where a pet, ship or instrument stands as someone ("Daisy, a greyhound")."""

    def maybe_name(self, i: int) -> None:
        w, e = self.words[i], self.evidence
        if i > 0 and (
            name_gender(self.words[i - 1])
            or self.unknown_name_before(i)
            or self.low[i - 1] in W.TITLES  # "Mr. Haruto Sato": the title placed them
        ):
            self.name_parts.add(i)
            return  # a surname, a name's later part ("Nguyen Van Minh")
        self.name_parts.add(i)
        before_work = word_at(self.base, i + 1) in _WORKS
        if (before_work and self.low[i - 1 : i] in (["a"], ["the"])) or authors_work(
            self.low, self.words, i
        ):
            self.authors.add(w)  # "a Chopin nocturne", "Chopin's nocturne"
            if name_gender(w) is not None:
                e.first_single = min(e.first_single, i)
            return
        if w in self.authors:  # "... a Chopin nocturne; Chopin wrote it in his last years"
            self.someone(i)
            return
        if i > 0 and self.low[i - 1] in W.PLACE_PREPOSITIONS:
            if name_gender(w) is not None:  # "a poster of Glenn Miller, his trombone raised"
                e.first_single = min(e.first_single, i)
            return  # "from Sydney", "in Madison", "by Chopin": not the person
        naming = self.naming_phrase(i)
        gender = name_gender(w, naming_phrase=naming or self.named_as_predicate(i))
        if gender is None:
            if naming:  # "named Lena": a name the list does not know may be gendered
                e.ambiguous.append(i)
            elif self.named_as_predicate(i):  # "The traveller is Amara": the person, no gender
                self.identity_names.add(w)
                e.protagonist, e.person_at = True, i
            elif (
                fronted_subject(self.low, self.words, e, i)
                or self.opens_sketch(i)
                or (unplaced(self, i) and plays_unnamed(self, i))
            ):
                self.identity_names.add(w)  # "With headphones on, Aiyana played"
                e.protagonist, e.person_at = True, i
            elif self.maybe_someone(i):  # "the saxophonist, Miles Davis", "the Marianne": someone?
                e.first_single = min(e.first_single, i)
            return
        if w in self.identity_names:
            return
        after = self.words[i + 1 : i + 2] or [""]
        if self.low[i - 1 : i] == ["the"] and not after[0][:1].isupper():
            # "the Marianne was leaving port; she'd sail": a ship
            self.named_thing = (self.sentence, i)
            return
        if speaker_label(self.low, i) or word_at(self.low, i - 1) in _GREETINGS:
            e.other(ANY, i)  # "Raj: Ah, this is ...": a script's speaker; "Hey Brianna,": addressed
        elif (
            (unplaced(self, i) and handles_instrument(self, i))
            or self.names_person(i, naming)
            or opening_clause_subject(self.low, e, i) == gender
        ):
            self.identity_names.add(w)
            if gender == UNISEX:
                e.unisex.append(i)
                e.protagonist = True
            else:
                e.count(i, gender)
        else:
            e.other(ANY if gender == UNISEX else {gender}, i)

    def named_next(self, i: int) -> bool:
        """Whether a given name follows the noun at `i` in apposition ("a volunteer, Ava,")."""
        after = self.words[i + 1 : i + 3]
        return len(after) == 2 and after[0] == "," and name_gender(after[1]) not in (None, UNISEX)

    def thing_as_someone(self, i: int) -> bool:
        """Whether the pet, ship or instrument at `i` stands where a story may go on with it as he
        or she: its sentence's or a subordinate clause's subject ("The harp had survived",
        "where the old steamer lay at anchor"), or a name's apposition ("Daisy, a greyhound")."""
        j, det = self.determiner(i)
        before = self.low[j - 1] if j > 0 else "."
        after = self.low[i + 1] if i + 1 < len(self.low) else "."
        if self.base[i + 1 : i + 2] and self.base[i + 1] in _COMPOUND_HEADS:
            return False  # "The cello case clicked shut": the case, no one
        if not det and j < i:
            return False  # "as rain drums on the roof": a verb after a bare noun
        return (
            self.sentence_subject(i)
            or before in ("where", "while", "when", "as")
            or (
                before == ","
                and j > 1
                and self.words[j - 2][:1].isupper()
                and after in W.RELATIVES | {",", ".", "named", "called"}
            )
        )

    def opens_sketch(self, i: int) -> bool:
        """Whether the capitalised word at `i` opens the answer, past a surname, before a person
        noun in apposition ("Marko Jedletski, a 26-year-old male, leads ..."): the person's name."""
        n = 1 + (self.words[1:2] != [] and self.words[1][:1].isupper())
        if i != 0 or self.low[n : n + 1] != [","]:
            return False
        for m in range(n + 1, min(n + 7, len(self.low))):
            if self.base[m] in _PERSON_NOUNS or self.base[m] in self.roles:
                return True
            if not (self.low[m] in ("a", "an", "the") or self.is_modifier(m)):
                return False
        return False

    def unknown_name_before(self, i: int) -> bool:
        """Whether the word before `i` is a capitalised word no list knows that may be a first name
        ("Olufemi Adeyemi"); not one opening its sentence ("Meet Ingrid", "Today Mateo plays")."""
        k = i - 1
        return k in self.name_parts and k > 0 and self.low[k - 1] not in (".", "!", "?", ":", ";")

    def maybe_someone(self, i: int) -> bool:
        """Whether the capitalised word at `i`, no known name, may name someone: not a sentence's
        first word, not after "a" ("a Debussy arabesque") nor in a place ("from the Andes")."""
        before = self.low[i - 2 : i]
        if not before or before[-1] in ("a", "an", ".", "!", "?", ":", "-"):
            return False
        return not (before[-1] == "the" and before[0] in W.PLACE_PREPOSITIONS)

    def naming_phrase(self, i: int) -> bool:
        return i > 0 and (
            self.low[i - 1] in W.NAMING
            or (i > 1 and self.low[i - 2] == "name" and self.low[i - 1] in ("is", "was"))
            or (i > 1 and self.low[i - 2] in _AS_NAMED and self.low[i - 1] == "as")
        )

    def named_as_predicate(self, i: int) -> bool:
        """ "The retiree is Harold", "The colleague is Dr. Amelia Hart"."""
        k = i - 1
        while k > 0 and self.low[k] in ("dr", "prof", "professor", "doctor"):
            k -= 1
        if k > 0 and self.base[k] in W.COPULAS and self.person_subject(k):
            return True
        if opens_after_heading(self.low, self.person_roles, i):
            return True
        return self.introduces(k) and self.low[i] not in _CALENDAR

    def introduces(self, k: int) -> bool:
        """Whether the words ending at `k` open a sentence by introducing someone: "This is",
        "It's", "Here is", "Meet" ("This is Margarethe, a retired physics teacher")."""
        if self.low[k] in ("it's", "here's", "meet"):
            s = k
        elif self.low[k] == "is" and k > 0 and self.low[k - 1] in ("this", "it", "here"):
            s = k - 1
        else:
            return False
        return s == 0 or self.low[s - 1] in (".", "!", "?", ":")

    def names_person(self, i: int, naming: bool) -> bool:
        e = self.evidence
        if naming and self.low[i - 1] in W.NAMING and i > 1:
            head = i - 2
            j, _ = self.determiner(head)
            return (
                head in self.person_roles
                or (self.base[head] in W.COPULAS and self.person_subject(head))  # "is named Kwame"
                or (self.base[head] in {"soul", "character", "spirit"} and not e.others)
                or head in e.counted
                or (j > 1 and self.low[j - 1] == "," and j - 2 in self.person_roles)
                or self.after_copula(j)  # "The person is an entrepreneur named Elena"
            )
        if naming:
            return (
                i > 2
                and (
                    (i - 3) in e.counted  # "her name was Elena"
                    or (self.low[i - 2] in _SELF and i - 2 in e.counted)  # "introduced himself as"
                    or (
                        self.low[i - 3] == "whose"
                        and self.low[i - 4 : i - 3] == [","]
                        and i - 5 in self.person_roles
                    )
                )
            )
        if self.named_as_predicate(i):
            return True
        if i > 1 and self.low[i - 1] in W.APPOSITION and self.words[i - 2][:1].islower():
            if self.describes(i - 2):
                return True  # "the musician, Emily,"; "a retired firefighter, Gus,"
        surname = i + 1 < len(self.words) and self.words[i + 1][:1].isupper()
        if self.role_apposition(i + 1) or (surname and self.role_apposition(i + 2)):
            return True
        if (
            self.at_start(i) or (not e.protagonist and self.low[i - 1 : i] != ["and"])
        ) and not self.has_role:  # "the doorbell rang, and a woman came in": a newcomer
            if self.coordinated(i):
                e.ambiguous.append(i)
                return False
            e.weak_first |= self.weak_first(i, i)
            return True
        return False


def opens_after_heading(low: list[str], person_roles: set[int], j: int) -> bool:
    """Whether the noun phrase or name at `j` opens the answer's content after a heading that asks
    or labels who the person is ("Who is this person? Kwame Mensah, 44, ...", "**Traveller:**
    Ibrahim", "**Who:** Grandpa Joe", "**Name:** Ayse Demir"; or an echoed label blanked to its
    colon): a character sketch's subject."""
    if j < 1 or low[j - 1] not in (":", "?") or low[j].endswith("'s"):
        return False
    heading = range(j - 1)
    return (
        len(heading) <= 6
        and all(low[k] not in (".", "!", "?", ":", ";") for k in heading)
        and (not heading or any(low[k] in _HEADINGS or k in person_roles for k in heading))
    )


def authors_work(low: list[str], words: list[str], i: int) -> bool:
    """Whether the name at `i` (with its later parts) owns a piece of music's title ("Monsieur
    Pierre le Coeur's Lullaby"): its composer, not the person."""
    for k in range(i, min(i + 4, len(words))):
        if low[k].endswith("'s"):  # a title: not "Emily's tune filled the hall"
            after = words[k + 1 : k + 2]
            return bool(after) and after[0][:1].isupper() and after[0].lower() in _WORKS
        if not (words[k][:1].isupper() or low[k] in _NAME_PARTICLES):
            return False
    return False


def fronted_subject(low: list[str], words: list[str], evidence: Evidence, i: int) -> bool:
    """Whether the capitalised word at `i`, no known name, is the subject of the answer's first
    sentence after a fronted phrase, before anyone was mentioned ("With headphones on, Aiyana
    played the recording"), or of a subordinate clause that opens the answer ("As Obiageli, a
    retired surgeon, sat down", "When Aiyana played"): a name of the answer's first person."""
    first = low[0] if low else ""
    after = words[i + 1 : i + 2]
    if i == 1 and first in W.SUBORDINATE_CLAUSE and low[1] not in _CALENDAR and after:
        return after[0] == "," or (after[0].isalpha() and after[0].islower())
    return (
        i < 16  # a fronted phrase is short
        and low[i - 1 : i] == [","]
        and (first in W.PLACE_PREPOSITIONS or first in W.SUBORDINATORS or first == "with")
        and not evidence.protagonist
        and evidence.last_other < 0
        and not any(w in (".", "!", "?", ";", ":", ",") for w in low[: i - 1])
        and words[i + 1 : i + 2] != []
        and words[i + 1].isalpha()
        and words[i + 1].islower()
    )


def opening_clause_subject(low: list[str], evidence: Evidence, j: int) -> str | None:
    """The gender of the he / she that is the subject of a subordinate clause opening the answer
    ("As she trashed the guitar, ..."), when the name or noun phrase at `j` is the main clause's
    subject right after it and no one else was mentioned: that name or noun is then the same
    person ("..., Maya slammed her hands", "..., the retired woman's fingers moved"); else None."""
    if j < 4 or low[j - 1] != "," or low[0] not in W.SUBORDINATE_CLAUSE:
        return None
    if low[1] not in ("he", "she") or 1 not in evidence.counted or evidence.last_other >= 0:
        return None
    if any(w in (",", ".", "!", "?", ";", ":") for w in low[2 : j - 1]):
        return None
    return W.PRONOUNS[low[1]]


def speaker_label(low: list[str], i: int) -> bool:
    """Whether the name at `i` opens a line of a script ("Raj: Ah, ...")."""
    opens = i == 0 or low[i - 1] in W.SENTENCE_ENDS
    return opens and low[i + 1 : i + 2] == [":"]
