"""The words the open-protocol person reader (`person_reference`) knows: pronouns, gendered nouns
and titles, the role nouns that name the scenario's person, other people and groups, and the
function words of its noun-phrase rules. Sets of lower-case words; the reader's docstring says how
each is used."""

from __future__ import annotations

MALE, FEMALE, NEUTRAL = "male", "female", "neutral"


def words(text: str) -> frozenset[str]:
    return frozenset(text.split())


PRONOUNS = {
    **dict.fromkeys(("he", "him", "his", "himself"), MALE),
    **dict.fromkeys(("she", "her", "hers", "herself"), FEMALE),
}
THEY = words("they them their theirs themself themselves")
NEO = words(
    "xe xem xyr xyrs xemself ze zir zirs zirself hir hirs hirself ey eir eirs emself "
    "fae faer faers faerself"
)
PERSON_PRONOUNS = frozenset(PRONOUNS) | THEY | NEO
# the nouns that open a story as its person ("A young woman sat down ..."); a relational or
# occupational noun there ("As the hostess smiled ...") is someone else
GENERIC_NOUNS = words("man gentleman guy boy lad woman lady girl gal lass")
MALE_NOUNS = words(
    "man gentleman guy boy lad father dad daddy papa son brother husband boyfriend grandfather "
    "grandpa granddad grandson uncle nephew king prince sir lord monk mr mister businessman "
    "fisherman sportsman craftsman policeman chairman schoolboy widower groom bridegroom "
    "nobleman duke baron emperor sultan "
    "bachelor stepfather stepson fiance dude"
)
FEMALE_NOUNS = words(
    "woman lady girl gal lass mother mom mum mommy mummy mama daughter sister wife girlfriend "
    "grandmother grandma granny granddaughter aunt niece queen princess madam madame ma'am mrs "
    "ms nun businesswoman sportswoman craftswoman policewoman schoolgirl widow bride maiden "
    "actress waitress heroine hostess goddess stepmother stepdaughter fiancee noblewoman "
    "duchess baroness countess empress"
)
MALE_PLURALS = words(
    "men gentlemen guys boys lads fathers dads sons brothers husbands kings princes monks "
    "uncles nephews grandfathers"
)
FEMALE_PLURALS = words(
    "women ladies girls mothers moms mums daughters sisters wives aunts nieces queens "
    "princesses nuns grandmothers"
)
STRONG_NEUTRAL_WORDS = words(
    "non-binary nonbinary enby genderqueer genderfluid gender-fluid agender"
)
TITLES = {"mr": MALE, "mrs": FEMALE, "ms": FEMALE, "miss": FEMALE, "mx": NEUTRAL}
ROLES = words(
    "traveller traveler visitor student musician retiree beginner colleague resident local "
    "teenager teen volunteer learner neighbour neighbor friend person individual someone player "
    "performer artist figure youth adult busker soloist pianist guitarist violinist cellist "
    "harpist flautist flutist drummer trumpeter trombonist saxophonist bassist oboist "
    "clarinettist clarinetist bassoonist tubist percussionist keyboardist ukulelist hornist "
    "harmonicist newcomer protagonist stranger"
)
OTHERS = words(
    "teacher child kid baby toddler passer-by passerby listener customer guest patient "
    "conductor host owner shopkeeper bartender waiter partner spouse sibling parent grandparent "
    "cousin companion mentor instructor tutor coach leader boss doctor nurse officer driver "
    "vendor clerk manager judge critic fan singer vocalist dancer onlooker spectator bystander "
    "tourist villager classmate roommate bandmate chef cook priest pastor director producer "
    "journalist reporter photographer guard receptionist librarian mayor organiser organizer "
    "employee coworker co-worker composer maestro audience-member dignitary official"
)
GROUPS = (
    words(  # a plural they after these is read as theirs
        "audience crowd people couple pair everyone everybody others folks public we us our ours "
        "ourselves"
    )
    | frozenset(w + "s" for w in ROLES | OTHERS)
    | words("children kids passers-by")
)
COLLECTIVES = words(  # a they right after these (no person mentioned between) is skipped
    "band orchestra choir group team crew class community congregation ensemble quartet trio "
    "duo troupe staff family party charity organisation organization company school church "
    "club committee society council town village city nation country institution foundation "
    "association government"
)
DETERMINERS = words(
    "a an the this that these those another every each any no some one his her their my your "
    "our its"
)
POSSESSIVES = words("his her their my your our its")
COPULAS = words("is was be been being became become becomes remains remained 's")
COPULA_NEG = words("isn't wasn't aren't weren't")
BETWEEN = words(
    "not never no longer also still clearly obviously actually truly really always now once to "
    "seemed seems appeared appears turned out had has have will would might must could who "
    "certainly definitely"
)
NEGATIONS = words("not never no n't")
SUBORDINATORS = words("as when while after before once meanwhile suddenly then meet")
NOT_MODIFIERS = (
    DETERMINERS
    | COPULAS
    | BETWEEN
    | words(
        "and or but nor in on at of with by for from to into as than who which whom whose "
        "he she they it i you we him them me us named called neither"
    )
)
SINGULAR_S = words(
    "this his hers its was has does is always perhaps sometimes lens series news bass chess "
    "yes towards afterwards besides whereas unless across less thus us various numerous "
    "nervous famous anxious curious gorgeous glorious precious previous joyous drums cymbals "
    "bongos bagpipes timpani congas"
)
PLURAL_DETERMINERS = words(
    "the these those some many several few all both two three four five its their his her "
    "my our your other various countless numerous dozens hundreds"
)
NAMING = words("named called")
INDEFINITE = words("a an another one his her their my your our its some every each any other")
