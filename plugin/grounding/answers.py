"""Read free-text answers of the instrument-grounding tasks; never raise, never guess.

Each reader returns what an answer means as an index (or a set of indices) into what the doc
offered, or None when the answer is unreadable: empty, hedged ("I'm not sure", "maybe", "I can't
tell"), ambiguous ("A or B", two time ranges, "no guitar, banjo") or self-contradictory ("yes. no.",
"A, the banjo" when the banjo is B). None is scored invalid, never replaced by a guess.

How an answer is read:
1. Cleaning: ASCII, lower case, contractions spelled out ("don't" -> "do not"), questions the model
   echoed ("Is there a piano in this audio clip?") dropped, clause ends (". ; ! ? newline brackets")
   and list separators (", :") kept as words.
2. Every word becomes one mark (legend below): an instrument class (any OpenMIC class, synonyms and
   plurals: "Banjos", "sax", "vocals"), an option letter, a time range ("10-20 s", "00:20-00:30",
   "from 0s to 10s", "the middle"), a negation, a verb, a clause end, or nothing. Multi-word names
   ("bass guitar" is bass, not guitar) are resolved on the marks, longest first.
3. Negation scope: "not, no, without, neither, nor" negate what follows in their part of the clause
   ("guitar but no banjo", "guitar, not banjo"); a negated verb and "never, absent, missing" negate
   their whole part ("I do not hear a guitar", "the banjo is not audible"). Where the scope could be
   read two ways, the names in question are ambiguous: a verbless list part after a negated part ("no
   guitar, banjo"), a verbless list part before a wholly negated part ("guitar, banjo are absent"),
   "and" after a negation ("no guitar and banjo"), two clauses joined by "and" with a negation in one.
4. A reader takes an answer only when it affirms exactly one option (a set: any number of them) and
   nothing in it contradicts that. A letter decides unless the explanation names the other option
   or denies its own ("A, because the banjo is not audible" is A when the banjo is B).

Every pass is a str method, a dict lookup per word, or a regular expression that never backtracks
(possessive or anchored at a part's start): parse time grows linearly with the answer's length
(benchmarks/bench_grounding_answers.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from itertools import repeat

from symphony_bench.plugin.core.vocabulary import OPENMIC_CLASSES

# class -> other ways to name it (the class name, underscores as spaces, and plurals always count)
SYNONYMS = {
    "accordion": ("accordionist",),
    "banjo": ("banjoist",),
    "bass": ("double bass", "bass guitar", "upright bass", "electric bass", "contrabass", "electric bass guitar",
             "acoustic bass guitar", "bassist"),
    "cello": ("violoncello", "cellist"),
    "clarinet": ("bass clarinet", "clarinetist", "clarinettist"),
    "cymbals": ("cymbal", "hi hat", "hihat", "crash", "crash cymbal", "ride cymbal"),
    "drums": ("drum", "drum kit", "drumkit", "drum set", "drumset", "percussion kit", "bass drum", "snare drum",
              "kick drum", "drummer"),
    "flute": ("bass flute", "flutist", "flautist"),
    "guitar": ("acoustic guitar", "electric guitar", "guitarist"),
    "mallet_percussion": ("mallet percussion", "xylophone", "marimba", "vibraphone", "glockenspiel", "mallets"),
    "mandolin": ("mandolinist",),
    "organ": ("hammond organ", "pipe organ", "organist"),
    "piano": ("grand piano", "keys", "pianist"),
    "saxophone": ("sax", "bass saxophone", "saxophonist"),
    "synthesizer": ("synth", "synthesiser"),
    "trombone": ("bass trombone", "trombonist"),
    "trumpet": ("trumpeter",),
    "violin": ("fiddle", "violinist"),
    "voice": ("vocals", "vocal", "singing", "singer", "human voice", "vocalist"),
}

# ---- marks -------------------------------------------------------------------------------------
# Every word of a cleaned answer becomes one mark character; the readers work on the string of marks.
#   ;  end of a clause ("." "!" "but" "only" "because" ...)     ,  end of a list part ("," ":")
#   &  and      /  or      ~  negates what follows in its part ("not", "no", "without", "nor")
#   !  negates its whole part ("never", "absent", "missing", and a negated verb "a~")
#   a  auxiliary verb ("is", "do", "can")      S  subject ("i", "it", "there")      V  verb ("hear")
#   n  "no": the answer on its own, else a negation        #  "none", "nothing", "no instruments"
#   ?  unreadable ("maybe", "except", "half")               .  any other word
#   Y / N  yes / no answer words     P  a statement of presence ("there", "hear", "present")
#   private-use characters: instrument classes, option letters, time ranges (the cleaned text is
#   ASCII, so an answer cannot contain them)
_INSTRUMENT_BASE, _LETTER_BASE, _RANGE_BASE, _PART_BASE = 0xE000, 0xE100, 0xE200, 0xE300
_OPTION = r"\ue000-\ue2ff"  # instruments, letters and ranges, as a regex class range
_CAPITAL_A = "\ue1ff"  # stands for a capital "A" until the marks decide: letter or article?


def _words_to(mark: str, words: str) -> dict[str, str]:
    return dict.fromkeys(words.split(), mark)


_CLAUSE_WORDS = {
    ";": ";", ",": ",", "nor": ",~", "no": "n", "none": "#", "nothing": "#",
    **_words_to(";", "but however although though whereas while yet only just because since therefore thus hence actually"),
    **_words_to("&", "and plus"),
    **_words_to("/", "or versus vs"),
    **_words_to("~", "not without neither lack lacks lacking instead rather absence"),
    **_words_to("!", "never absent missing silent wrong incorrect isnt arent wasnt werent dont doesnt didnt cant wont "
                     "couldnt wouldnt shouldnt hasnt havent hadnt aint"),
    **_words_to("a", "is are was were am be been being do does did can could will would should shall has have had must may"),
    **_words_to("?", "maybe perhaps possibly unsure uncertain unclear dunno except"),
}
_STRUCTURE = {
    **_CLAUSE_WORDS,
    "so": ";",
    **_words_to("S", "i it there they we you he she this that"),
    **_words_to("V", "hear hears heard hearing play plays playing played present audible appear appears appeared sound "
                     "sounds detect detected contain contains include includes included feature features featured "
                     "featuring identify identified notice noticed recognize recognized recognise recognised exist exists"),
}
_YES_NO_WORDS = {
    **_CLAUSE_WORDS,
    **_words_to("Y", "yes yeah yep yup yea true affirmative"),
    **_words_to("N", "nope nah false negative"),
    **_words_to("~", "none nothing"),
    **_words_to("P", "there so hear hears heard hearing play plays playing played present audible contain contains "
                     "include includes feature features featured featuring exist exists detect detected"),
}
_LETTER_CUES = _words_to("o", "option letter choice")  # "option a": the letter, not the article
_NONE_CUES = _words_to("k", "instrument instruments candidate candidates")  # "no instruments"
_ORDINALS = (
    "first 1st beginning start earliest opening initial",
    "second 2nd middle center centre mid",
    "third 3rd last final end ending closing finish",
)
_TIME_WORDS = {
    **_STRUCTURE,
    **{word: chr(_RANGE_BASE + k) for k, words in enumerate(_ORDINALS) for word in words.split()},
    **_words_to("?", "half whole entire throughout"),
    **_words_to("s", "segment segments range ranges part section interval window portion option choice"),
    **{str(k + 1): str(k + 1) for k in range(3)},  # "segment 2"
    **{chr(_RANGE_BASE + k): chr(_RANGE_BASE + k) for k in range(4)},  # put in by _ranges_marked
}

# ---- cleaning ----------------------------------------------------------------------------------
_TO_ASCII = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"', "\u2010": "-", "\u2011": "-",
                           "\u2013": "-", "\u2014": "-", "\u2212": "-", "\u00a0": " "})
_NON_ASCII = re.compile(r"[^\x00-\x7f]+")
_CAPITAL_A_WORD = re.compile(r"(?<![A-Za-z0-9_'])A(?![A-Za-z0-9_'])")
_CONTRACTIONS = (("can't", "can not"), ("won't", "will not"), ("n't", " not"), ("cannot", "can not"), ("'s", " is"),
                 ("'m", " am"), ("'re", " are"), ("'ve", " have"), ("'ll", " will"), ("'d", " would"))
_ECHOED_QUESTION = re.compile(r"(?:^|(?<=[.!?\n]))[^.!?\n]*+\?")
_PUNCTUATION = str.maketrans(
    {**dict.fromkeys(".;!?()[]{}<>\n\r", " ; "), ",": " , ", ":": " , ", "&": " and ", "+": " and ", "/": " or ",
     **dict.fromkeys("-'\"*_#`~|\\=^$%@\t", " ")}
)
_REWRITES = ((" and or ", " or "), (" not only ", " "), (" no doubt ", " "), (" without a doubt ", " "),
             (" without doubt ", " "), (" at all ", " "), (" nothing but ", " only "), (" nothing else ", " only "),
             (" no other ", " only "),
             (" correct answer ", " answer "), (" final answer ", " answer "))
_HEDGE = re.compile(r"\bnot (?:be )?(?:sure|certain|clear|know|tell|determine|determined|say)\b|\bno idea\b"
                    r"|\b(?:hard|difficult|impossible|unable) to (?:tell|say|determine|know)\b|\bcould be\b|\bi guess\b")


def _spelled_out(text: str, capital_a: bool = False) -> str:
    """ASCII, lower case, contractions spelled out. With capital_a, a capital "A" standing alone is
    kept apart (a letter, unless an instrument name follows)."""
    text = _NON_ASCII.sub(" ", text.translate(_TO_ASCII))
    if capital_a:
        text = _CAPITAL_A_WORD.sub(f" {_CAPITAL_A} ", text)
    text = text.lower()
    for contraction, spelled in _CONTRACTIONS:
        text = text.replace(contraction, spelled)
    return text


def _prepared(text, capital_a: bool = False) -> str | None:
    """The answer spelled out, with the questions it echoes dropped; None if it is not a string."""
    return _ECHOED_QUESTION.sub(" ", _spelled_out(text, capital_a)) if isinstance(text, str) else None


def _words(prepared: str) -> list[str] | None:
    """The words and punctuation marks of a prepared answer; None if it hedges."""
    text = f" {' '.join(prepared.translate(_PUNCTUATION).split())} "
    for phrase, replacement in _REWRITES:
        text = text.replace(phrase, replacement)
    return None if _HEDGE.search(text) else text.split()


def normalise_answer(text) -> str:
    """Lower case ASCII words: dashes unified, contractions spelled out ("can't" -> "can not"),
    everything but letters, digits, '-' and spaces turned into spaces."""
    spelled = _spelled_out(text) if isinstance(text, str) else ""
    return " ".join(re.sub(r"[^a-z0-9\- ]+", " ", spelled).split())


# ---- time ranges -------------------------------------------------------------------------------
_NUMBER_WORDS = {0: "zero", 10: "ten", 20: "twenty", 30: "thirty"}
_UNIT = r"(?:\s*(?:s|secs?|seconds?)\b)?"
_ANY_TIME = (r"(?:(?:\d{1,2}:)?\d{1,3}(?:\.\d+)?|zero|one|two|three|four|five|ten|fifteen|twenty(?:[ -]five)?|thirty"
             r"|forty|fifty|sixty)")
_DURATION = re.compile(r"(?<![\w.:])(?:\d+(?:\.\d+)?\s*-?\s*(?:s|secs?|seconds?)|(?:a|an|one|two|three|five|ten|fifteen"
                       r"|twenty|thirty|each|per|every|split)\s+(?:seconds?|secs?))\b")


def _range_pattern(start: str, end: str) -> re.Pattern:
    """start-end in the ways answers write it: "10-20 s", "10 to 20 seconds", "from 10s to 20s",
    "between 10 and 20 seconds", "00:10-00:20"."""
    separator = r"\s*(?:-|to|until|till|through|thru)\s*"
    return re.compile(rf"(?<![\w.:])(?:between\s+{start}{_UNIT}\s+and\s+{end}{_UNIT}"
                      rf"|(?:from\s+)?{start}{_UNIT}{separator}{end}{_UNIT})(?![\w:]|\.\d)")


def _time(seconds: int) -> str:
    return rf"(?:(?:0{{0,2}}:)?0*{seconds}(?:\.0+)?|{_NUMBER_WORDS[seconds]})"


_RANGES = tuple((_range_pattern(_time(start), _time(start + 10)), f" {chr(_RANGE_BASE + k)} ")
                for k, start in enumerate((0, 10, 20)))
_OTHER_RANGE = (_range_pattern(_ANY_TIME, _ANY_TIME), f" {chr(_RANGE_BASE + 3)} ")
_SEGMENT_NUMBERS = tuple((f"s{k + 1}", chr(_RANGE_BASE + k)) for k in range(3))
_RANGE_MARKS = tuple(chr(_RANGE_BASE + k) for k in range(4))  # the three ranges, then any other
_OTHER_RANGE_INDEX = 3
_TIME_HELPERS = str.maketrans(dict.fromkeys(".s123"))


def _ranges_marked(prepared: str) -> str:
    """Time ranges replaced by their marks (one of the three, or another range), durations
    ("10-second", "ten seconds") dropped so that "second" is left only as an ordinal."""
    for pattern, mark in (*_RANGES, _OTHER_RANGE):
        prepared = pattern.sub(mark, prepared)
    return _DURATION.sub(" ", prepared)


# ---- instrument names and letters -------------------------------------------------------------
@dataclass(frozen=True)
class _Vocabulary:
    marks: dict[str, str]  # word -> mark
    phrases: tuple[tuple[str, str], ...]  # marks of a multi-word name -> its class mark, longest first
    options: tuple[str, ...]  # the mark of each candidate (then of each letter)


def _class_key(name: str) -> str:
    return "_".join(name.lower().replace("_", " ").split())


def _class_phrases(key: str) -> tuple[str, ...]:
    return (key.replace("_", " "), *SYNONYMS.get(key, ()))


@lru_cache(maxsize=512)
def _vocabulary(candidates: tuple[str, ...], letters: tuple[str, ...] = ()) -> _Vocabulary:
    """Marks of every OpenMIC class (so that a longer name blocks a shorter one) and of the
    candidates; a candidate's own name wins over a synonym of another class."""
    candidate_keys = list(dict.fromkeys(map(_class_key, candidates)))
    keys = [key for key in OPENMIC_CLASSES if key not in candidate_keys] + candidate_keys
    class_marks = {key: chr(_INSTRUMENT_BASE + n) for n, key in enumerate(keys)}
    names = {phrase: class_marks[key] for key in keys for phrase in _class_phrases(key)}
    marks = {**_STRUCTURE, **_NONE_CUES}
    marks |= {name: mark for name, mark in names.items() if " " not in name}
    marks |= {f"{name}{plural}": mark for name, mark in names.items() if " " not in name for plural in ("s", "es")
              if f"{name}{plural}" not in marks}
    part_words = sorted({word for name in names if " " in name for word in name.split()} - marks.keys())
    for n, word in enumerate(part_words):  # words that name nothing on their own: "double", "hi", "kit"
        marks[word] = chr(_PART_BASE + n)
        marks.setdefault(f"{word}s", marks[word])
    phrases = sorted((("".join(marks[word] for word in name.split()), mark) for name, mark in names.items() if " " in name),
                     key=lambda pair: -len(pair[0]))
    letter_marks = {letter: chr(_LETTER_BASE + n) for n, letter in enumerate(letters)}
    if letters:
        marks |= _LETTER_CUES | letter_marks
        if "a" in letter_marks:
            marks |= {"a": "u", _CAPITAL_A: "U"}
    options = tuple(class_marks[_class_key(c)] for c in candidates) + tuple(letter_marks.values())
    return _Vocabulary(marks, tuple(phrases), options)


_HELPER_MARKS = str.maketrans(dict.fromkeys([".", "k", "o", *map(chr, range(_PART_BASE, _PART_BASE + 0x100))]))
_ARTICLE_BEFORE_NAME = re.compile(r"U(?=[\ue000-\ue0ff])|(?<!o)u(?![;,]|$)")  # "A banjo", "is a banjo"
_NEW_CLAUSE = re.compile(r"[&/](?=\.?[Sn~])")  # "and I hear", "and no banjo", "or not"


def _marks(words: list[str], vocabulary: dict[str, str], phrases=()) -> str:
    """One mark per word, multi-word names resolved, "and" / "or" before a new clause made a clause
    end, negated auxiliaries ("is not", "do not") made whole-part negations."""
    marks = "".join(map(vocabulary.get, words, repeat(".")))
    for phrase, mark in phrases:
        marks = marks.replace(phrase, mark)
    return _NEW_CLAUSE.sub(";", marks).replace("a~", "!")


def _option_marks(text, candidates, letters: tuple[str, ...] = ()) -> tuple[str, _Vocabulary] | None:
    """The marks of a name or letter answer, fillers dropped; None if unreadable."""
    prepared = _prepared(text, capital_a="a" in letters)
    words = None if prepared is None else _words(prepared)
    if words is None:
        return None
    vocabulary = _vocabulary(tuple(candidates), letters)
    marks = _marks(words, vocabulary.marks, vocabulary.phrases)
    if letters:
        a_mark = vocabulary.options[len(candidates) + letters.index("a")] if "a" in letters else ""
        marks = _ARTICLE_BEFORE_NAME.sub("", marks).replace("U", a_mark).replace("u", a_mark)
    marks = re.sub(r"n(?=\.?k)", "#", marks)  # "no instruments"
    return marks.translate(_HELPER_MARKS), vocabulary


# ---- reading the marks -------------------------------------------------------------------------
_NEGATED = re.compile(r"(?<![^;,])[^;,!]*+![^;,]*+|~[^;,]*+")
_NEGATED_TAIL = re.compile(r"~[^,]*+")
_DOUBLE_NEGATION = re.compile(rf"[~!][^;,~!{_OPTION}]*+[~!]")  # "I don't hear no guitar", "not absent"
_LIST_AFTER_NEGATION = re.compile(r"(?<![^;,])[^;,~!]*+[~!][^;,]*+((?:,[^;,SVa!]*+(?![^;,]))++)")
_LIST_BEFORE_WHOLE_NEGATION = re.compile(r"(?<![^;,])[^;,!]*+![^;,]*+((?:,[^;,SVa!]*+(?![^;,]))++)")  # on reversed marks
_AMBIGUOUS_AND = re.compile(
    r"(?<![^;,])(?:[^;,~&]*+~[^;,&]*+&|[^;,~&]*+&[^;,~]*+~"  # a negated name in an and-list: "no guitar and banjo"
    r"|[^;,&!]*+![^;,&]*+&[^;,SVa]*+[SVa]"  # "I don't hear a guitar and the banjo is playing"
    r"|[^;,&SVa]*+[SVa][^;,&]*+&[^;,!]*+!"  # "I hear a guitar and banjo is absent"
    r")[^;,]*+"
)
_ALTERNATIVES = re.compile(rf"[{_OPTION}][^;/{_OPTION}]*+/[^;{_OPTION}]*+[{_OPTION}]")  # "guitar or banjo"


@dataclass(frozen=True)
class _Reading:
    affirmed: frozenset[str]
    denied: frozenset[str]
    ambiguous: frozenset[str]  # could be read as affirmed or as denied
    alternatives: bool  # "guitar or banjo"
    none_said: bool  # "none", "nothing", "no instruments"


def _options_in(*texts: str) -> frozenset[str]:
    return frozenset(mark for text in texts for mark in set(text) if mark >= "\ue000")


def _read_marks(marks: str) -> _Reading | None:
    """What the marks affirm, deny and leave ambiguous; None for a hedge or a double negation."""
    marks = re.sub(r"(?<![^;,])n(?![^;,])", "#", marks).replace("n", "~")
    if "?" in marks or _DOUBLE_NEGATION.search(marks):
        return None
    affirmed = _NEGATED.sub("", marks)
    after = "".join(_LIST_AFTER_NEGATION.findall(marks))
    before = "".join(_LIST_BEFORE_WHOLE_NEGATION.findall(marks[::-1]))[::-1]
    ambiguous = _NEGATED_TAIL.sub("", after + "," + before) + "".join(_AMBIGUOUS_AND.findall(marks))
    return _Reading(_options_in(affirmed), _options_in(*_NEGATED.findall(marks)), _options_in(ambiguous),
                    _ALTERNATIVES.search(affirmed) is not None, "#" in marks)


def _one_affirmed(reading: _Reading | None, options: tuple[str, ...]) -> int | None:
    """The index of the one option affirmed, when nothing denies it or names another."""
    if reading is None or reading.none_said or reading.ambiguous & set(options):
        return None
    affirmed = {k for k, mark in enumerate(options) if mark in reading.affirmed}
    denied = {k for k, mark in enumerate(options) if mark in reading.denied}
    return affirmed.pop() if len(affirmed) == 1 and not affirmed & denied else None


def _letter_and_name_agree(text, candidates: list[str], letters: tuple[str, ...]) -> int | None:
    marked = _option_marks(text, candidates, letters)
    if marked is None:
        return None
    marks, vocabulary = marked
    n = len(candidates)
    # a letter stands for its candidate: fold the two kinds of marks together
    folded = marks.translate({ord(vocabulary.options[n + k]): vocabulary.options[k] for k in range(min(n, len(letters)))})
    return _one_affirmed(_read_marks(folded), vocabulary.options[:n])


# ---- readers -----------------------------------------------------------------------------------
_YES_NO_CONFLICT = re.compile(r"(?<![^;,])(?:[^;,Y]*+Y[^;,~!N]*+[~!N]|[^;,~!N]*+[~!N][^;,Y]*+Y)")
_YES_NO_HELPERS = str.maketrans({".": None, "a": None, "&": ";", "/": ";"})
_PRESENCE_PART = re.compile(r"(?<![^;,])[^;,~!NYP]*+[YP][^;,~!N]*+(?![^;,])")


def read_yes_no(text) -> bool | None:
    """True for yes, False for no. Answer words ("yes", "no", "nope") and statements ("there is a
    piano", "I do not hear one", "it is absent") must all agree; a hedge, a double negation or a
    part that says both makes the answer unreadable. A "no" about another instrument ("yes, but no
    drums") counts as a no: the reader does not know which instrument was asked about."""
    prepared = _prepared(text)
    words = None if prepared is None else _words(prepared)
    if words is None:
        return None
    # "and" always ends a clause here: each side's polarity is its own ("a piano and no drums")
    marks = _marks(words, _YES_NO_WORDS).translate(_YES_NO_HELPERS)
    marks = re.sub(r"(?<![^;,])n", "N", marks).replace("n", "~")
    if "?" in marks or _YES_NO_CONFLICT.search(marks) or re.search(r"[~!][^;,~!]*+[~!]", marks):
        return None
    said_yes = _PRESENCE_PART.search(marks) is not None
    said_no = re.search(r"[~!N]", marks) is not None
    return said_yes if said_yes != said_no else None


def instruments_mentioned(text, candidates: list[str]) -> set[int]:
    """Indices of the candidates the text names and does not deny (nor leaves ambiguous). Every
    OpenMIC class is matched, longest name first, so "bass guitar" is bass and not guitar."""
    marked = _option_marks(text, candidates)
    reading = None if marked is None else _read_marks(marked[0])
    if reading is None:
        return set()
    sure = reading.affirmed - reading.denied - reading.ambiguous
    return {k for k, mark in enumerate(marked[1].options) if mark in sure}


def read_choice(text, candidates: list[str]) -> int | None:
    """The one candidate an instrument-name answer names and does not deny."""
    marked = _option_marks(text, candidates)
    return None if marked is None else _one_affirmed(_read_marks(marked[0]), marked[1].options)


def read_letter(text, candidates: list[str], letters: tuple[str, ...] = ("a", "b")) -> int | None:
    """An option letter ("B", "(b)", "The answer is B.", "A) banjo") or else the one candidate
    named. The letter decides unless the rest names the other candidate or denies its own; "A"
    before an instrument name ("A banjo") is the article."""
    return _letter_and_name_agree(text, candidates, tuple(letter.lower() for letter in letters))


def read_time_range(text) -> int | None:
    """0, 1 or 2 for the first, second, third 10-second range ("10-20 s", "00:10-00:20", "the
    middle", "segment 2"); None when unreadable, when several are affirmed, or for another range."""
    prepared = _prepared(text)
    words = None if prepared is None else _words(_ranges_marked(prepared))
    if words is None:
        return None
    marks = _marks(words, _TIME_WORDS)
    for segment, mark in _SEGMENT_NUMBERS:
        marks = marks.replace(segment, mark)
    chosen = _one_affirmed(_read_marks(marks.translate(_TIME_HELPERS)), _RANGE_MARKS)
    return None if chosen == _OTHER_RANGE_INDEX else chosen


def read_instrument_set(text, candidates: list[str]) -> set[int] | None:
    """The candidates a multi-label answer names. "None" (or every candidate denied) is the empty
    set; an answer that affirms nothing else, offers alternatives ("guitar or banjo"), leaves a
    candidate ambiguous or both names and denies it is unreadable."""
    marked = _option_marks(text, candidates)
    reading = None if marked is None else _read_marks(marked[0])
    if reading is None:
        return None
    options = marked[1].options
    affirmed = {k for k, mark in enumerate(options) if mark in reading.affirmed}
    denied = {k for k, mark in enumerate(options) if mark in reading.denied}
    if reading.ambiguous & set(options) or reading.alternatives or affirmed & denied or (affirmed and reading.none_said):
        return None
    if affirmed:
        return affirmed
    return set() if reading.none_said or len(denied) == len(candidates) else None
