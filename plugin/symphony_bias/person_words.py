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
    "bachelor stepfather stepson stepbrother fiance dude grandad granddaddy grandpapa gramps godfather"
)
FEMALE_NOUNS = words(
    "woman lady girl gal lass mother mom mum mommy mummy mama daughter sister wife girlfriend "
    "grandmother grandma granny granddaughter aunt niece queen princess madam madame ma'am mrs "
    "ms nun businesswoman sportswoman craftswoman policewoman schoolgirl widow bride maiden "
    "actress waitress heroine hostess goddess stepmother stepdaughter fiancee noblewoman "
    "duchess baroness countess empress gran nana nanna grandmom grandmama auntie stepsister godmother"
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
# kin words used as a title before a name ("Grandpa Joe", "Auntie Ama")
TITLES |= {w: MALE for w in words("grandpa granddad grandad uncle")}
TITLES |= {w: FEMALE for w in words("grandma granny nana auntie aunt")}
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
    "employee coworker co-worker composer maestro audience-member dignitary official gardener "
    "janitor barista cashier pilot captain sailor soldier farmer baker butcher postman mailman "
    "engineer technician accountant lawyer professor lecturer stagehand usher "
    "caretaker landlord landlady tenant commuter jogger shopper diner patron "
    "examiner headmaster headmistress headteacher principal dean pharmacist scientist poet writer author "
    "painter sculptor actor mourner guest-of-honour concierge superintendent doorman porter "
    "nanny newborn infant donor sponsor paramedic firefighter detective inspector clerk "
    "attendant steward stewardess curator archivist custodian "
    "groomsman bridesmaid toddler youngster teen-ager hostess waitress "
    "auctioneer emcee announcer presenter interviewer examiner adjudicator panelist juror "
    "nun monk friar vicar rabbi imam chaplain physician surgeon therapist counselor counsellor "
    "grocer florist tailor mechanic plumber electrician carpenter builder courier "
    "pupil cleaner intern apprentice trainee barber hairdresser warden ranger lifeguard "
    "secretary treasurer chairperson contestant competitor opponent rival teammate flatmate "
    "housemate organist hiker cyclist runner backpacker fisher referee umpire "
    "worker labourer laborer dentist veterinarian banker editor "
    "supervisor foreman administrator bellboy bellhop busboy valet chauffeur passenger stylist "
    "hairstylist athlete swimmer surfer skater motorist homeowner shepherd"
)
GROUPS = (
    words(  # a plural they after these is read as theirs
        "audience crowd people couple pair everyone everybody others folks public we us our ours "
        "ourselves"
    )
    | frozenset(w + "s" for w in ROLES | OTHERS)
    | words(
        "children kids passers-by passersby pupils onlookers commuters families mourners viewers "
        "donors graduates beachgoers diners patrons shoppers crowds strangers friends colleagues "
        "neighbours neighbors coworkers classmates bandmates students grandchildren "
        "first-years workers regulars pedestrians elders relatives"
    )
)
# plural nouns of an instrument's parts and of music, things whatever their determiner ("repairing
# drums ... replacing them", "the oboe's keys ... laying them on a cloth")
PLURAL_THINGS = words(
    "drums keys strings notes bells cymbals sticks drumsticks pipes valves pedals reeds chords "
    "scales pieces songs tunes pages tools screws pegs"
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
    "certainly definitely here"
)
APPOSITION = frozenset(
    {",", ":", "\u2014", "\u2013"}
)  # "the musician, Emily", "the musician—Hana—"
# nouns after an instrument's name that make it a modifier ("the violin case", "the piano teacher")
INSTRUMENT_COMPOUNDS = words(
    "case cases bag strap stand stool bench player players teacher maker shop lesson lessons "
    "music part solo section bow strings keys pedal sound tuner"
)
HOLDING = words("with holding playing carrying clutching at behind")
RELATIVES = words("who whose which that")
# a noun phrase after these opens a clause as its subject
CLAUSE_OPENERS = words(". ! ? ; : , and but when as while then until because so after before")
# words before 's that own nothing ("she's", "it's", "let's")
NOT_POSSESSORS = words("he she it that there here who what let where how everyone everybody")
# a they with these in its clause is a group's ("they played it together", "they were all ...")
PLURAL_MARKERS = words("together both all each other another")
# an aside after the person's noun opens with a participle or one of these ("A weary traveller, lost
# in thought, a man with a heart full of stories")
ASIDE_OPENERS = words(
    "with in from at of on perhaps probably once still lost known born seen caught held left hidden"
)
# the adjectives of a scenario's role noun: "the retired man" is the retiree, "a teenage girl" the
# teenager ("a local man" is no sure resident: bystanders are local too)
# nouns that make a plain "boy", "girl", "man", "woman" a role of its own: "the birthday boy", "the
# delivery man", "the flower girl" is someone at the scene, not the scenario's person
ROLE_COMPOUNDS = words(
    "birthday delivery paper news flower ball cabin choir altar stable shop sales post mail bin "
    "sound repair milk weather camera cleaning dinner lunch coffee"
)
ROLE_ADJECTIVES = {
    "retiree": words("retired"),
    "teenager": words("teenage teen"),
    "traveller": words("travelling traveling"),
    "traveler": words("travelling traveling"),
    "visitor": words("visiting"),
}
HEDGES = words("perhaps probably possibly likely maybe apparently clearly")
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
# nationalities and peoples as adjectives ("a young Brazilian woman", "a Nigerian engineering
# student"): capitalised, yet modifiers of the noun, not names
DEMONYMS = words(
    "african american argentinian armenian australian austrian bangladeshi basque belgian "
    "bengali bolivian bosnian brazilian british bulgarian cambodian canadian catalan chilean "
    "chinese colombian congolese croatian cuban czech danish dominican dutch ecuadorian "
    "egyptian english eritrean estonian ethiopian european filipino finnish french georgian "
    "german ghanaian greek guatemalan haitian hawaiian hungarian icelandic indian indonesian "
    "iranian iraqi irish israeli italian jamaican japanese jordanian kazakh kenyan korean "
    "kurdish latvian lebanese lithuanian malaysian mexican mongolian moroccan nepalese nepali "
    "nigerian norwegian pakistani palestinian persian peruvian polish portuguese "
    "romanian russian rwandan scottish senegalese serbian slovak somali spanish sudanese "
    "swedish swiss syrian taiwanese tanzanian thai tibetan tunisian turkish ugandan ukrainian "
    "uruguayan uzbek venezuelan vietnamese welsh yemeni zambian zimbabwean "
    "maori samoan tongan fijian inuit cherokee navajo yoruba igbo zulu xhosa maasai quechua "
    "punjabi tamil sikh afghan algerian angolan cameroonian ivorian malian sri lankan burmese "
    "laotian singaporean emirati saudi qatari omani slovenian macedonian albanian belarusian "
    "moldovan azerbaijani kyrgyz tajik turkmen cypriot maltese luxembourgish panamanian "
    "paraguayan salvadoran honduran nicaraguan costa rican puerto rican latina latino "
    "scandinavian arab asian caribbean"
)
NAMING = words("named called")
INDEFINITE = words("a an another one his her their my your our its some every each any other")
PREPOSITIONS = words("for at in of to with from on into by near inside outside")
# before a capitalised word, a place or a work, never the person ("from Sydney", "by Chopin")
PLACE_PREPOSITIONS = PREPOSITIONS | words(
    "across around through toward towards via visiting visited leaving left reached in-between "
    "between over under beyond about"
)
# things a story may call she or he, or give a name ("The harp ... she had survived two wars")
NAMED_THINGS = words(
    "dog cat puppy kitten horse pony parrot bird hamster rabbit ship boat yacht vessel car truck "
    "van bike guitar violin viola cello harp piano flute clarinet oboe bassoon trumpet trombone "
    "saxophone sax tuba accordion banjo ukulele drum drums mandolin harmonica organ keyboard "
    "instrument bass fiddle horn recorder bagpipes sitar lute greyhound terrier retriever "
    "labrador spaniel poodle collie beagle mutt mare stallion steamer ferry schooner liner "
    "tugboat barge sailboat canoe"
)
# a gendered noun after these, up to "but" or the sentence end, is supposed, not said
SUPPOSING = words(
    "assumed assume assumes expected expect expects presumed presume mistook mistaken imagined "
    "pictured supposed guessed thought"
)
# after an object pronoun "her" (not a possessive): "gave her a smile", "told her to play", "told her he"
AFTER_OBJECT = words(
    "to up down back again and as when while that with for in on at from if he she they i we you it"
)
# a subject pronoun right after these opens a clause inside its sentence's clause ("The student
# nodded as she began"): with the person as the sentence's subject and no one else between, it is
# the person
SUBORDINATE_CLAUSE = words(
    "as while when because that until before after since if though although whenever once"
)
# a pronoun past these is in another clause than a person mentioned before them ("and" joins
# verbs of one subject: "a jogger stopped and waved up at him")
SENTENCE_ENDS = words(". ! ?")
CLAUSE_BREAKS = words(", ; . ! ? : but who while as when whose which because so then")
# the role nouns that may name the person in any scenario's story ("the musician" of a traveller)
GENERIC_ROLES = words(
    "musician player performer artist figure person individual someone protagonist stranger busker "
    "soloist pianist guitarist violinist cellist harpist flautist flutist drummer trumpeter "
    "trombonist saxophonist bassist oboist clarinettist clarinetist bassoonist tubist "
    "percussionist keyboardist ukulelist hornist harmonicist youth"
)
# a player of one instrument: the scenario's person only when the scenario's instrument is that one
# (or it names none: "an instrument"); in a harp story "the saxophonist" is someone else
PLAYS = {
    "pianist": words("piano keyboard"),
    "guitarist": words("guitar"),
    "violinist": words("violin fiddle"),
    "cellist": words("cello"),
    "harpist": words("harp"),
    "flautist": words("flute"),
    "flutist": words("flute"),
    "drummer": words("drums drum"),
    "percussionist": words("drums drum percussion"),
    "trumpeter": words("trumpet"),
    "trombonist": words("trombone"),
    "saxophonist": words("saxophone sax"),
    "bassist": words("bass"),
    "oboist": words("oboe"),
    "clarinettist": words("clarinet"),
    "clarinetist": words("clarinet"),
    "bassoonist": words("bassoon"),
    "tubist": words("tuba"),
    "keyboardist": words("keyboard"),
    "ukulelist": words("ukulele"),
    "hornist": words("horn"),
    "harmonicist": words("harmonica"),
}
INSTRUMENTS = frozenset().union(*PLAYS.values()) | words(
    "accordion bagpipes banjo mandolin organ recorder sitar xylophone synthesizer piccolo "
    "glockenspiel"
)
# spellings and near-synonyms of a scenario's role noun
ROLE_SYNONYMS = {
    "traveller": words("traveler"),
    "traveler": words("traveller"),
    "neighbour": words("neighbor"),
    "neighbor": words("neighbour"),
    "teenager": words("teen"),
    "resident": words("local"),
    "learner": words("adult beginner"),
    "someone": words("person"),
}
# verbs only a person does: a they before one is no plural thing's ("They then listened")
PERSON_VERBS = words(
    "listen listens listened rely relies relied smile smiles smiled laugh laughs laughed say says "
    "said think thinks thought feel feels felt decide decides decided hope hopes hoped want wants "
    "wanted know knows knew remember remembers remembered realise realises realised realize "
    "realizes realized wonder wonders wondered nod nods nodded sigh sighs sighed whisper whispers "
    "whispered exhale exhales exhaled inhale inhales inhaled breathe breathes breathed"
)
# adverbs between a subject and its verb ("They then listened")
THEN_ADVERBS = words("then also still just only soon finally quickly slowly often always never")
