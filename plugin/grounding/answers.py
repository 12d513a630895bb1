"""Read free-text answers of the instrument-grounding tasks; never raise, never guess.

Each reader returns what an answer means as an index (or a set of indices) into what the doc
offered, or None when the answer is unreadable: empty, hedged ("I'm not sure", "maybe", "I can't
tell"), ambiguous ("A or B", two time ranges, "no guitar, banjo") or self-contradictory ("yes. no.",
"A, the banjo" when the banjo is B). None is scored invalid, never replaced by a guess.

How an answer is read:
0. Reasoning set aside: only the text after a reasoning block is read (plugin.core.reasoning); a
   block that never closes leaves nothing to read (None).
1. Cleaning: ASCII, lower case, contractions spelled out ("don't" -> "do not"), questions the model
   echoed ("Is there a piano in this audio clip?") dropped, refusals set aside and negations in words
   reworded (refusal_reading: "I can't help with that", "No audio." are no answer, `answer_refused`
   says so; "unable to hear" -> "can not hear"), clause ends (". ; ! ? newline") and list
   separators (", : brackets, a spaced dash") kept as words.
2. Every word becomes one mark (legend below): an instrument class (any OpenMIC class, synonyms and
   plurals: "Banjos", "sax", "vocals"), an option letter, a number or time-range word, a negation, a
   verb, a clause end, a hedge, or nothing. Multi-word names ("bass guitar" is bass, not guitar),
   hedges ("not sure", "hard to tell") and time ranges ("10-20 s", "00:20-00:30", "from 0s to 10s",
   "between 10 and 20 seconds", "the middle") are resolved on the marks.
3. Negation scope: "not, no, without, neither, nor" negate what follows in their part of the clause
   ("guitar but no banjo", "guitar, not banjo"); a negated verb and "never, absent, missing" negate
   their whole part ("I do not hear a guitar", "the banjo is not audible"). Where the scope could be
   read two ways the names in question are ambiguous: a verbless list part after a negated part ("no
   guitar, banjo") or before a wholly negated part ("guitar, banjo are absent"). An "and" list that
   mixes a negation with another clause ("no guitar and banjo", "I hear a guitar and the banjo is
   absent") makes the whole answer unreadable.
4. A reader takes an answer only when it affirms exactly one option (a set: any number of them) and
   nothing in it contradicts that. A letter decides unless the explanation names the other option
   or denies its own ("A, because the banjo is not audible" is A when the banjo is B).

Speed: apart from one dict lookup per word, every pass is a str method or a regular expression that
starts at a literal character or a character class (so that `re` skips to candidate positions; in an
alternation every branch must start with a literal) and never backtracks (possessive quantifiers):
parse time grows linearly with the answer (benchmarks/bench_grounding_answers.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from itertools import repeat

from symphony_bench.plugin.core.reasoning import split_reasoning
from symphony_bench.plugin.core.vocabulary import OPENMIC_CLASSES
from symphony_bench.plugin.grounding.refusal_reading import spelled_negations, without_refusals

# class -> other ways to name it (the class name, underscores as spaces, and plurals always count)
SYNONYMS = {
    "accordion": ("accordionist",),
    "banjo": ("banjoist",),
    "bass": (
        "double bass",
        "bass guitar",
        "upright bass",
        "electric bass",
        "contrabass",
        "electric bass guitar",
        "acoustic bass guitar",
        "bassist",
    ),
    "cello": ("violoncello", "cellist"),
    "clarinet": ("bass clarinet", "clarinetist", "clarinettist"),
    "cymbals": ("cymbal", "hi hat", "hihat", "crash", "crash cymbal", "ride cymbal"),
    "drums": (
        "drum",
        "drum kit",
        "drumkit",
        "drum set",
        "drumset",
        "percussion kit",
        "bass drum",
        "snare",
        "snare drum",
        "kick drum",
        "drummer",
    ),
    "flute": ("bass flute", "flutist", "flautist"),
    "guitar": ("acoustic guitar", "electric guitar", "guitarist"),
    "mallet_percussion": (
        "mallet percussion",
        "xylophone",
        "marimba",
        "vibraphone",
        "glockenspiel",
        "glock",
        "mallets",
    ),
    "mandolin": ("mandolinist",),
    "organ": ("hammond organ", "pipe organ", "organist"),
    "piano": ("grand piano", "keys", "pianist"),
    "saxophone": ("sax", "bass saxophone", "saxophonist"),
    "synthesizer": ("synth", "synthesiser"),
    "trombone": ("bass trombone", "trombonist"),
    "trumpet": ("trumpeter",),
    "ukulele": ("uke",),
    "violin": ("fiddle", "violinist"),
    "voice": ("vocals", "vocal", "singing", "singer", "human voice", "vocalist"),
}
# Instruments that are no OpenMIC class, and families of instruments, with their other names: the
# yes/no reader must know that "I only hear a tuba" or "only strings" names something other than the
# instrument asked about. A family may hold the asked instrument ("strings" for a violin), so it never
# makes an answer "no" by itself.
OTHER_INSTRUMENTS = {
    "bassoon": ("bassoonist",),
    "harmonica": ("mouth organ",),
    "harp": ("harpist",),
    "harpsichord": (),
    "horn": ("french horn", "horn player"),
    "oboe": ("oboist",),
    "piccolo": (),
    "tuba": ("sousaphone",),
    "euphonium": (),
    "cornet": (),
    "flugelhorn": (),
    "bugle": (),
    "tambourine": (),
    "bongo": (),
    "conga": (),
    "tabla": (),
    "timpani": ("kettle drum", "kettledrum"),
    "cowbell": (),
    "gong": (),
    "castanet": (),
    "triangle": (),
    "sitar": (),
    "lute": (),
    "koto": (),
    "dulcimer": (),
    "zither": (),
    "bagpipe": (),
    "didgeridoo": (),
    "theremin": (),
    "kazoo": (),
    "steel_drum": ("steel pan", "steelpan"),
}
INSTRUMENT_FAMILIES = {
    "strings": ("string", "string section"),
    "brass": ("brass section", "horn section"),
    "woodwinds": ("woodwind",),
    "keyboard": ("keyboardist", "electronic keyboard"),
    "percussion": ("percussionist",),
    "orchestra": ("orchestral",),
}

# ---- marks -------------------------------------------------------------------------------------
# Every word of a cleaned answer becomes one mark character; the readers work on the string of marks.
#   ;  end of a clause ("." "!" "but" "only" "because")     ,  end of a list part ("," ":" brackets)
#   &  and      /  or      ~  negates what follows in its part ("not", "no", "without", "nor")
#   !  negates its whole part ("never", "absent", "missing", and a negated verb "a~")
#   a  auxiliary verb ("is", "do", "can")      S  subject ("i", "it", "there")      V  verb ("hear")
#   n  "no": the answer on its own, else a negation        #  "none", "nothing", "no instruments"
#   ?  unreadable ("maybe", "except", "half")               .  any other word
#   h, d, c  parts of hedges: "not sure" (~h), "no idea" (nh), "hard to tell" (d.h), "could be" (ca)
#   ^ "only", "just"; _ "but"; z "nothing": clause ends and "none", kept apart for the phrases "not
#      only" (~^), "nothing but" (z_), "nothing else" (zE), "no other" (nO), which mean "only"; D
#      "doubt" ("no doubt", "without a doubt" say nothing)
#   Y / N  yes / no answer words     P  a statement of presence ("there", "hear", "present")
#   private-use characters: instrument classes, option letters, time ranges (the cleaned text is
#   ASCII, so an answer cannot contain them)
_INSTRUMENT_BASE, _LETTER_BASE, _RANGE_BASE, _PART_BASE = 0xE000, 0xE100, 0xE200, 0xE300
_OPTION = r"\ue000-\ue2ff"  # instruments, letters and ranges, as a regex class range
_CAPITAL_A = "\x01"  # stands for a capital "A" (control characters are removed from answers first)
POSITIVE_MARK, NEGATIVE_MARK, UNKNOWN_MARK = "\x02", "\x03", "\x04"  # marks (see cleaning)


def _words_to(mark: str, words: str) -> dict[str, str]:
    return dict.fromkeys(words.split(), mark)


_CLAUSE_WORDS = {
    ";": ";",
    ",": ",",
    "nor": ",~",
    "no": "n",
    "none": "#",
    "nothing": "z",
    "could": "c",
    "else": "E",
    "other": "O",
    "doubt": "D",
    "but": "_",
    **_words_to(
        ";", "however although though whereas while yet because since therefore thus hence actually"
    ),
    **_words_to("^", "only just"),
    **_words_to("&", "and plus"),
    **_words_to("/", "or versus vs"),
    **_words_to("~", "not without neither lack lacks lacking instead rather absence"),
    **_words_to(
        "!",
        "never absent missing silent wrong incorrect isnt arent wasnt werent dont doesnt didnt cant wont "
        "couldnt wouldnt shouldnt hasnt havent hadnt aint",
    ),
    **_words_to(
        "a",
        "is are was were am be been being do does did can will would should shall has have had must may",
    ),
    **_words_to("?", "maybe perhaps possibly might unsure uncertain unclear dunno guess except"),
    **_words_to("h", "sure certain clear know tell determine determined say idea"),
    **_words_to("d", "hard difficult impossible unable"),
}
_STRUCTURE = {
    **_CLAUSE_WORDS,
    "so": ";",
    **_words_to("S", "i it there they we you he she this that"),
    **_words_to(
        "V",
        "hear hears heard hearing play plays playing played present audible appear appears appeared sound "
        "sounds detect detected contain contains include includes included feature features featured "
        "featuring identify identified notice noticed recognize recognized recognise recognised exist exists",
    ),
    # marks: M positive, X negative ("x" standing alone is a cross), y "yes" (a mark only as a label's
    # value: "guitar: yes")
    POSITIVE_MARK: "M",
    NEGATIVE_MARK: "X",
    "x": "X",
    UNKNOWN_MARK: "?",
    **_words_to("y", "yes yeah yep yup"),
}
_YES_NO_WORDS = {
    **_CLAUSE_WORDS,
    **_words_to("Y", "yes yeah yep yup yea true affirmative"),
    **_words_to("N", "nope nah false negative"),
    "none": "~",
    **_words_to("S", "i it we they you he she this that"),
    **_words_to(
        "P",
        "there so hear hears heard hearing play plays playing played present audible contain contains "
        "include includes feature features featured featuring exist exists detect detected",
    ),
    # marks: G positive, K negative; next to a name they belong to it ("drums \u2713"), else they are
    # the answer words yes and no
    POSITIVE_MARK: "G",
    NEGATIVE_MARK: "K",
    "x": "K",
    UNKNOWN_MARK: "?",
}
_LETTER_CUES = _words_to("o", "option letter choice")  # "option a": the letter, not the article
_NONE_CUES = _words_to("k", "instrument instruments candidate candidates")  # "no instruments"

# ---- cleaning ----------------------------------------------------------------------------------
_ASCII_OF = {
    "\u2018": "'",
    "\u2019": "'",
    "\u201c": '"',
    "\u201d": '"',
    "\u2010": "-",
    "\u2011": "-",
    "\u2013": "-",
    "\u2014": "-",
    "\u2212": "-",
    "\u00a0": " ",
}
# Marks next to a name ("guitar \u2713, banjo \u2717") become the words POSITIVE_MARK / NEGATIVE_MARK
# (control characters: an answer's own control characters are removed first); a symbol that could
# be a mark but has no clear polarity (a ballot box, a star, a circle, "[x]") becomes UNKNOWN_MARK,
# and makes the answer unreadable.
_MARK_SYMBOLS = {
    POSITIVE_MARK: "\u2713\u2714\u2611\u2705\u221a\U0001f5f8\U0001f44d",
    NEGATIVE_MARK: "\u2717\u2718\u274c\u274e\u2612\u2716\u2a2f\u00d7\U0001f5f4\U0001f5d9\U0001f44e\U0001f6ab\u26d4",
    UNKNOWN_MARK: "\u2610\u2b1c\U0001f532\U0001f533\u2b55\u271a\u2795\u2796\u2295\u2296\u2753\u2754"
    "\u2605\u2606\u2b50\U0001f7e2\U0001f534\U0001f7e9\U0001f7e5",
}
_BRACKETED_MARKS = ("[x]", "(x)", "[ ]", "[]", "( )")  # checkboxes: ticked or crossed?
_NON_ASCII = re.compile(r"[^\x00-\x7f]+")
_CONTROL_CHARACTERS = {**dict.fromkeys([*map(chr, range(32)), "\x7f"], " "), "\n": "\n", "\r": "\n"}
_CONTROL = str.maketrans(_CONTROL_CHARACTERS)
_TO_ASCII = str.maketrans(  # control characters, then marks, then the rest of non-ASCII text
    {
        **_CONTROL_CHARACTERS,
        **_ASCII_OF,
        **{symbol: f" {mark} " for mark, symbols in _MARK_SYMBOLS.items() for symbol in symbols},
    }
)
_CAPITAL_A_WORD = re.compile(r"A(?<![A-Za-z0-9_']A)(?![A-Za-z0-9_'])")
_CONTRACTIONS = (
    ("can't", "can not"),
    ("won't", "will not"),
    ("n't", " not"),
    ("cannot", "can not"),
    ("'s", " is"),
    ("'m", " am"),
    ("'re", " are"),
    ("'ve", " have"),
    ("'ll", " will"),
    ("'d", " would"),
)
# on the reversed text: a question back to its sentence start
_QUESTION_REVERSED = re.compile(r"\?[^.!?\n]*+")
_SEPARATORS = {
    **dict.fromkeys(".;!?\n\r", ";"),
    **dict.fromkeys(",:()[]{}<>", ","),
    **dict.fromkeys("-'\"*_#`~|\\=^$%@", " "),
}
_PUNCTUATION = str.maketrans(_SEPARATORS)
# yes/no: a closing bracket ends a clause ("a guitar (not a piano) and the drums"); an opening one
# stays a list separator ("piano (yes)")
_YES_NO_PUNCTUATION = str.maketrans(_SEPARATORS | dict.fromkeys(")]}>", ";"))
# "-" joins a range
_TIME_PUNCTUATION = str.maketrans(_SEPARATORS | {"-": "-", **dict.fromkeys("()[]", "|")})


def _spelled_out(text: str, capital_a: bool = False) -> str:
    """ASCII, lower case, contractions spelled out. With capital_a, a capital "A" standing alone is
    kept apart (a letter, unless an instrument name follows)."""
    if text.isascii():
        text = text.translate(_CONTROL)
    else:
        text = _NON_ASCII.sub(" ", text.translate(_TO_ASCII))
    if capital_a:
        text = _CAPITAL_A_WORD.sub(
            _CAPITAL_A, text
        )  # its neighbours are already spaces or punctuation
    text = text.lower()
    if "'" in text or "cannot" in text:
        for contraction, spelled in _CONTRACTIONS:
            text = text.replace(contraction, spelled)
    if "[" in text or "(" in text:
        for box in _BRACKETED_MARKS:
            text = text.replace(box, f" {UNKNOWN_MARK} ")
    return text


def _prepared(text, capital_a: bool = False) -> tuple[str, bool] | None:
    """The answer after any reasoning (plugin.core.reasoning) spelled out, the questions it echoes
    dropped, its refusals set aside and its negations reworded (refusal_reading), and whether it
    refused; None if it is not a string or its reasoning never closed."""
    reply = split_reasoning(text)
    if not isinstance(text, str) or reply.unfinished:
        return None
    text = _spelled_out(reply.answer, capital_a)
    text, refused = without_refusals(
        _QUESTION_REVERSED.sub(" ", text[::-1])[::-1] if "?" in text else text, _CAPITAL_A
    )
    return spelled_negations(text), refused


def _cleaned(prepared: str, punctuation=_PUNCTUATION) -> str:
    """Punctuation turned into the words ";" and ","; "&", "+", "/" into "and", "or"."""
    text = prepared.replace("&", " and ").replace("+", " and ").replace("/", " or ")
    return text.translate(punctuation).replace(";", " ; ").replace(",", " , ")


def normalise_answer(text) -> str:
    """Lower case ASCII words: dashes unified, contractions spelled out ("can't" -> "can not"),
    everything but letters, digits, '-' and spaces turned into spaces."""
    spelled = _spelled_out(text) if isinstance(text, str) else ""
    return " ".join(re.sub(r"[^a-z0-9\- ]+", " ", spelled).split())


# ---- instrument names and letters -------------------------------------------------------------
@dataclass(frozen=True)
class _Vocabulary:
    marks: dict[str, str]  # word -> mark
    # first mark -> (marks of a multi-word name, its class mark)
    phrases: dict[str, tuple[tuple[str, str], ...]]
    phrase_start: re.Pattern  # finds the first mark of any multi-word name
    options: tuple[str, ...]  # the mark of each candidate (then of each letter)


def _class_key(name: str) -> str:
    return "_".join(name.lower().replace("_", " ").split())


def _class_phrases(key: str) -> tuple[str, ...]:
    others = SYNONYMS.get(key) or OTHER_INSTRUMENTS.get(key) or INSTRUMENT_FAMILIES.get(key, ())
    return (key.replace("_", " "), *others)


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
    marks |= {
        f"{name}{plural}": mark
        for name, mark in names.items()
        if " " not in name
        for plural in ("s", "es")
        if f"{name}{plural}" not in marks
    }
    part_words = sorted(
        {word for name in names if " " in name for word in name.split()} - marks.keys()
    )
    for n, word in enumerate(
        part_words
    ):  # words that name nothing on their own: "double", "hi", "kit"
        marks[word] = chr(_PART_BASE + n)
        marks.setdefault(f"{word}s", marks[word])
    phrases = {}  # grouped by first mark, the group holding the longest name first
    for sequence, mark in sorted(
        (
            ("".join(marks[word] for word in name.split()), mark)
            for name, mark in names.items()
            if " " in name
        ),
        key=lambda pair: -len(pair[0]),
    ):
        phrases.setdefault(sequence[0], []).append((sequence, mark))
    letter_marks = {letter: chr(_LETTER_BASE + n) for n, letter in enumerate(letters)}
    if letters:
        marks |= _LETTER_CUES | letter_marks
        if "a" in letter_marks:
            marks |= {"a": "u", _CAPITAL_A: "U"}
    options = tuple(class_marks[_class_key(c)] for c in candidates) + tuple(letter_marks.values())
    phrase_start = re.compile(f"[{''.join(phrases)}]")
    return _Vocabulary(
        marks, {first: tuple(group) for first, group in phrases.items()}, phrase_start, options
    )


# "not sure", "can not tell", "no idea", "hard to tell", "could be"
_HEDGE = re.compile(r"~a?h|nh|d\.?h|ca")
_NEW_CLAUSE = re.compile(r"[&/](?=\.?[Sn~])")  # "and I hear", "and no banjo", "or not"
# a leftover part of a multi-word name ("double" alone) stays: it reads as a filler
_HELPER_MARKS = ".kohd"
_ARTICLE_BEFORE_NAME = re.compile(r"U(?=[\ue000-\ue0ff])")  # "A banjo": the article
_NO_INSTRUMENTS = re.compile(r"n(?=\.?k)")


def _without(marks: str, helpers: str) -> str:
    """The marks with the helper marks dropped (str.replace: translate is slow on non-ASCII text)."""
    for helper in helpers:
        marks = marks.replace(helper, "")
    return marks


def _marks(words: list[str], vocabulary: dict[str, str], names: _Vocabulary | None = None) -> str:
    """One mark per word, multi-word names resolved (longest first)."""
    marks = "".join(map(vocabulary.get, words, repeat(".")))
    if names is not None and names.phrase_start.search(marks):
        for first, group in names.phrases.items():
            for phrase, mark in group if first in marks else ():
                marks = marks.replace(phrase, mark)
    return marks


_MEANS_ONLY = re.compile(r"~\^|z[_E]|nO")  # "not only", "nothing but", "nothing else", "no other"
_SAYS_NOTHING = re.compile(r"[n~]\.?D")  # "no doubt", "without a doubt"


def _clauses(marks: str) -> str | None:
    """None for a hedge; else fixed phrases resolved ("not only", "nothing but", "no doubt"), "and"
    / "or" before a new clause made a clause end, negated auxiliaries ("is not", "could not") made
    whole-part negations."""
    if _HEDGE.search(marks):
        return None
    marks = _MEANS_ONLY.sub(";", marks.replace("&/", "/"))
    if "D" in marks:
        marks = _SAYS_NOTHING.sub("", marks)
    marks = _without(marks, "EOD").replace("^", ";").replace("_", ";").replace("z", "#")
    if "&" in marks or "/" in marks:
        marks = _NEW_CLAUSE.sub(";", marks)
    if "c" in marks:
        marks = marks.replace("c~", "!").replace("c", "a")
    return marks.replace("a~", "!")


def _letter_a_resolved(marks: str, a_mark: str) -> str:
    """A capital "A" is the letter unless an instrument name follows; a small "a" only when marked
    ("a.", "(a)", "option a") or last."""
    marks = _ARTICLE_BEFORE_NAME.sub("", marks).replace("U", a_mark)
    marks = (
        marks.replace("u;", f"{a_mark};").replace("u,", f"{a_mark},").replace("ou", f"o{a_mark}")
    )
    return (marks[:-1] + a_mark if marks.endswith("u") else marks).replace("u", "")


def _option_marks(
    text, candidates, letters: tuple[str, ...] = ()
) -> tuple[str, _Vocabulary, bool] | None:
    """The marks of a name or letter answer, helper marks dropped, and whether the answer refused;
    None if unreadable."""
    prepared = _prepared(text, capital_a="a" in letters)
    if prepared is None:
        return None
    vocabulary = _vocabulary(tuple(candidates), letters)
    marks = _clauses(
        _marks(
            _cleaned(prepared[0].replace(" - ", " , ").replace("--", " , ")).split(),
            vocabulary.marks,
            vocabulary,
        )
    )
    if marks is None:
        return None
    if "a" in letters:
        marks = _letter_a_resolved(marks, vocabulary.options[len(candidates) + letters.index("a")])
    if "k" in marks:
        marks = _NO_INSTRUMENTS.sub("#", marks)
    marks = _checked(_without(marks, _HELPER_MARKS))
    return None if marks is None else (marks, vocabulary, prepared[1])


# "guitar: no", "banjo (yes)", "guitar: \u2713": a part that is one option (after "it is", "the
# answer is"), then a part that is only a mark: the clause's first label, or one right after another
_LABELLED = re.compile(rf"([;,][aS]*+)([{_OPTION}]),(y|n|M++|X++)(?![^;,])")
# "guitar \u2713", "\u2717 banjo": a part that is one option and its marks
_MARKED = re.compile(rf"([;,][aS]*+)(?:(M++|X++)([{_OPTION}])|([{_OPTION}])(M++|X++))(?![^;,])")
_EMPTY_PARTS = re.compile(",,++")  # "guitar (yes), banjo": one list separator


def _label(match: re.Match) -> str:
    start, text = match.start(), match.string
    opening, option, mark = match.groups()
    before = text[start - 1] if start else ";"  # the end of the part before, if any
    if opening[0] == "," and not (
        before in "ynMX;," or (before >= "\ue000" and text[start - 2] in "MX")
    ):
        return match.group()  # "I hear a guitar, banjo: no": the list could go on past the label
    return f";~{option};" if mark[0] in "nX" else f"{opening}{option}"


def _marked(match: re.Match) -> str:
    opening, before, option_after, option_before, after = match.groups()
    mark, option = (before, option_after) if before else (after, option_before)
    return f";~{option};" if mark[0] == "X" else f"{opening}{option}"


def _checked(marks: str) -> str | None:
    """Marks next to an option resolved: a negative mark (or "no" as a label's value) denies its
    option, in a clause of its own (so that no negation reaches the names after it), a positive one
    (or "yes") affirms it; None when a mark is left that belongs to no one option ("guitar \u2713
    banjo", "[x] guitar", a mark in a sentence)."""
    if "M" not in marks and "X" not in marks and "y" not in marks and ",n" not in marks:
        return marks
    marks = _LABELLED.sub(_label, _EMPTY_PARTS.sub(",", f";{marks}"))
    if "M" in marks or "X" in marks:
        marks = _MARKED.sub(_marked, marks)
        if "M" in marks or "X" in marks:
            return None
    return marks[1:].replace("y", "")


# ---- reading the marks -------------------------------------------------------------------------
_NO_ALONE = re.compile(r"n(?<![^;,]n)(?![^;,])")  # "No." as a whole part: nothing is there
# "I don't hear no guitar", "not absent"
_DOUBLE_NEGATION = re.compile(rf"[~!][^;,~!{_OPTION}]*+[~!]")
_MIXED_AND = re.compile(
    r"~[^;,~&]*+&|&[^;,~&]*+~"  # a negation in an and-list: "no guitar and banjo"
    r"|![^;,&!]*+&[^;,Va!]*+[Va!]"  # "I don't hear a guitar and the banjo is playing"
    r"|V[^;,&Va!]*+&[^;,Va!]*+a?!|a[^;,&Va!]*+&[^;,Va!]*+a?!"  # "I hear a guitar and banjo is absent" (not "I think")
)
_TO_PART_END = {
    mark: re.compile(rf"{mark}[^;,]*+") for mark in "~W"
}  # a mark and the rest of its part
# a part with "!" in it, from the separator that opens it (the marks start with ";")
_WHOLE_NEGATED_PART = {separator: re.compile(rf"{separator}[^;,!]*+![^;,]*+") for separator in ";,"}
_ANY_WHOLE_NEGATED_PART = re.compile(r"[;,][^;,!]*+![^;,]*+")
# verbless parts after a negated one
_AFTER_NEGATION = re.compile(r"[ZW]((?:,[^;,SVaWZ]*+Z?(?![^;,]))++)")
# the same before "W", on reversed marks
_BEFORE_WHOLE_NEGATION = re.compile(r"W((?:,Z?[^;,SVaWZ]*+(?![^;,]))++)")
# "guitar or banjo"
_ALTERNATIVES = re.compile(rf"[{_OPTION}][^;/{_OPTION}]*+/[^;{_OPTION}]*+[{_OPTION}]")


@dataclass(frozen=True)
class _Reading:
    """Marks (any order, repeats allowed) of what an answer affirms, denies and leaves ambiguous."""

    affirmed: str
    denied: str
    ambiguous: str  # could be read as affirmed or as denied
    alternatives: bool  # "guitar or banjo"
    none_said: bool  # "none", "nothing", "no instruments"

    @staticmethod
    def indices(said: str, options: tuple[str, ...]) -> set[int]:
        """The options whose mark `said` holds."""
        return {k for k, mark in enumerate(options) if mark in said}


def _collapsed(marks: str) -> str:
    """Each part negated as a whole reduced to "W", the rest of a part after "not" / "no" to "Z"."""
    for separator, pattern in _WHOLE_NEGATED_PART.items():
        marks = pattern.sub(f"{separator}W", marks)
    return _TO_PART_END["~"].sub("Z", marks) if "~" in marks else marks


def _read_marks(marks: str) -> _Reading | None:
    """What the marks affirm, deny and leave ambiguous; None for a hedge, a double negation or an
    and-list that mixes a negation with another clause."""
    marks = f";{marks}"
    if "n" in marks:
        marks = _NO_ALONE.sub("#", marks).replace("n", "~")
    negated = "~" in marks or "!" in marks
    if (
        "?" in marks
        or negated
        and (_DOUBLE_NEGATION.search(marks) or "&" in marks and _MIXED_AND.search(marks))
    ):
        return None
    if not negated:
        return _Reading(
            marks, "", "", "/" in marks and _ALTERNATIVES.search(marks) is not None, "#" in marks
        )
    collapsed = _collapsed(marks)
    denied = (*_TO_PART_END["~"].findall(marks), *_ANY_WHOLE_NEGATED_PART.findall(marks))
    ambiguous = _AFTER_NEGATION.findall(collapsed)
    if "W" in collapsed:
        ambiguous += _BEFORE_WHOLE_NEGATION.findall(collapsed[::-1])
    alternatives = "/" in collapsed and _ALTERNATIVES.search(collapsed) is not None
    return _Reading(collapsed, "".join(denied), "".join(ambiguous), alternatives, "#" in marks)


def _one_affirmed(
    reading: _Reading | None, options: tuple[str, ...], letters: tuple[str, ...] = ()
) -> int | None:
    """The index of the one option affirmed (by its mark, or by the letter standing for it), when
    nothing denies it or names another. A letter is never ambiguous: it is no member of a list of
    instruments ("A, the banjo is absent")."""
    if reading is None or reading.none_said or reading.indices(reading.ambiguous, options):
        return None
    affirmed = reading.indices(reading.affirmed, options) | reading.indices(
        reading.affirmed, letters
    )
    denied = reading.indices(reading.denied, options) | reading.indices(reading.denied, letters)
    return affirmed.pop() if len(affirmed) == 1 and not affirmed & denied else None


def _letter_and_name_agree(text, candidates: list[str], letters: tuple[str, ...]) -> int | None:
    marked = _option_marks(text, candidates, letters)
    reading = None if marked is None else _read_marks(marked[0])
    if reading is None:
        return None
    options = marked[1].options[: len(candidates)]
    # letter k stands for candidate k
    letter_marks = marked[1].options[len(candidates) :][: len(candidates)]
    return _one_affirmed(reading, options, letter_marks)


# ---- time ranges -------------------------------------------------------------------------------
# Number words get marks of their own: 0 / 10 / 20 / 30 seconds are "0" "1" "2" "3" (as "10",
# "00:10", "10s", "ten"...), any other number "x", "second" "Q" (a unit after a number, else the
# ordinal), a range separator ("-", "to", "until") "t", "between" "b", "range 2" "s" + "2", "answer"
# "w" ("final answer" is no range). Units are fillers: "0 s - 10 s" reads as "0t1".
# the three ranges, then any other range
_RANGE_MARKS = tuple(chr(_RANGE_BASE + k) for k in range(4))
_OTHER_RANGE_INDEX = 3
_UNITS = ("", "s", "sec", "secs", "second", "seconds")
_TIME_WORDS = {
    **_STRUCTURE,
    **{
        word: _RANGE_MARKS[k]
        for k, words in enumerate(
            (
                "first 1st beginning start earliest opening initial",
                "second 2nd middle center centre mid",
                "third 3rd last final end ending closing finish",
            )
        )
        for word in words.split()
    },
    **_words_to("?", "half whole entire throughout"),
    # a unit other than seconds: "10-20 minutes" is no range of a 30-second clip
    **_words_to(
        "?",
        "minute minutes min mins m ms msec msecs millisecond milliseconds hour hours hr hrs h",
    ),
    **_words_to(
        "s", "segment segments range ranges part section interval window portion option choice"
    ),
    **{str(k + 1): "\u00b9\u00b2\u00b3"[k] for k in range(3)},  # "segment 2"
    **{
        f"{spelled}{unit}": str(k)
        for k, seconds in enumerate((0, 10, 20, 30))
        for spelled in {str(seconds), f"{seconds:02d}", f"0c{seconds:02d}", f"00c{seconds:02d}"}
        for unit in _UNITS
    },
    **{word: str(k) for k, word in enumerate(("zero", "ten", "twenty", "thirty"))},
    **_words_to(
        "x",
        "a an one two three four five six seven eight nine fifteen forty fifty sixty each per every split",
    ),
    "second": "Q",
    "answer": "w",
    "-": "t",
    **_words_to("t", "to until till through thru"),
    "between": "b",
    "|": "|",
}
_NUMBER_SHAPES = {
    f"{shape}{unit}": "x"
    for digits in range(1, 7)
    for shape in ("9" * digits, f"{'9' * digits}p9", f"{'9' * digits}p99", f"{'9' * digits}c99")
    for unit in _UNITS
}
_DIGIT_SHAPES = str.maketrans(dict.fromkeys("0123456789", "9"))
_DECIMAL_ZEROS = re.compile(r"\.(?<=\d\.)0+(?!\d)")  # "10.0" -> "10"
_GLUED = {
    "c": re.compile(r":(?<=\d:)(?=\d)"),
    "p": re.compile(r"\.(?<=\d\.)(?=\d)"),
}  # "00:10", "10.5": one word
_CANONICAL_RANGES = tuple(
    (re.compile(f"b{k}&{k + 1}|{k}t{k + 1}"), _RANGE_MARKS[k]) for k in range(3)
)
_ANY_RANGE = (
    re.compile("|".join(["b[0-3x]&[0-3x]", *(f"{number}t[0-3x]" for number in "0123x")])),
    _RANGE_MARKS[_OTHER_RANGE_INDEX],
)
_DURATION = re.compile(r"[0-3x]t?Q")  # "10-second", "a second": "second" is the unit
_TIME_HELPERS = "0123xtbsw.\u00b9\u00b2\u00b3"


def _time_marks(prepared: str) -> str | None:
    """The marks of a time answer with its ranges, ordinals and "segment 2" resolved."""
    text = _DECIMAL_ZEROS.sub("", prepared)
    for glue, pattern in _GLUED.items():
        text = pattern.sub(glue, text)
    text = _cleaned(
        text.replace("twenty-five", "25").replace("thirty-five", "35").replace("-", " - "),
        _TIME_PUNCTUATION,
    )
    text = text.replace("|", " | ")
    has_digits = any(digit in text for digit in "0123456789")
    shapes = (
        map(_NUMBER_SHAPES.get, text.translate(_DIGIT_SHAPES).split(), repeat("."))
        if has_digits
        else repeat(".")
    )
    marks = "".join(map(_TIME_WORDS.get, text.split(), shapes)).replace(".", "")
    for pattern, mark in (*_CANONICAL_RANGES, _ANY_RANGE):
        marks = pattern.sub(mark, marks)
    for k, number in enumerate("\u00b9\u00b2\u00b3"):
        marks = marks.replace(f"s{number}", _RANGE_MARKS[k])
    marks = _DURATION.sub("", marks).replace(f"{_RANGE_MARKS[2]}w", "")  # "final answer"
    for mark in _RANGE_MARKS:  # "[10-20]": the brackets belong to the range ("0-10 (no)": not)
        marks = marks.replace(f"|{mark}|", mark)
    marks = _clauses(_without(marks, _TIME_HELPERS).replace("Q", _RANGE_MARKS[1]).replace("|", ","))
    return None if marks is None else _checked(_without(marks, _HELPER_MARKS))


# ---- readers -----------------------------------------------------------------------------------
# "No.", "No, ...", "No there isn't", "the answer is no it is not": the answer, then a clause
_ANSWER_NO = re.compile(r"n(?<![^;,]n)(?=[;,]|$)|n(?=[SPY])")
_YES_NO_HELPERS = str.maketrans(
    {".": None, "a": None, "S": None, "h": None, "d": None, "&": ";", "/": ";"}
)
_YES_NO_CONFLICT = re.compile(
    "|".join(  # yes and a negation in one part (every branch starts with a literal: fast)
        [r"Y[^;,~!NY]*+[~!N]", *(rf"{negation}[^;,~!NY]*+Y" for negation in "~!N")]
    )
)
_TO_PART_END_NO = re.compile(r"[~!N][^;,]*+")


def _plain_yes_no(marks: str) -> bool | None:
    """An answer that names no instrument: its answer words and statements must all agree."""
    if "G" in marks or "K" in marks:
        marks = marks.replace("G", "Y").replace("K", "N")
    marks = _clauses(marks)
    if marks is None:
        return None
    # "and" always ends a clause here: each side's polarity is its own ("a piano and no drums")
    marks = (
        _ANSWER_NO.sub("N;", marks).replace("n", "~").replace("#", "~").translate(_YES_NO_HELPERS)
    )
    if "?" in marks or _DOUBLE_NEGATION.search(marks) or _YES_NO_CONFLICT.search(marks):
        return None
    # the parts without a negation
    unnegated = _TO_PART_END["W"].sub("", _TO_PART_END_NO.sub("W", marks)[::-1])
    said_yes = "Y" in unnegated or "P" in unnegated
    said_no = "~" in marks or "!" in marks or "N" in marks
    return said_yes if said_yes != said_no else None


# ---- yes / no about one instrument ---------------------------------------------------------------
# An answer that names instruments gets three more marks: T the instrument asked about, I another
# instrument, F a family that may hold the asked one ("strings"); J is "only" ("only", "just",
# "nothing but", "and nothing else", "no other"), R a list of alternatives holding T ("piano or drums").
@dataclass(frozen=True)
class _YesNoVocabulary:
    words: dict[str, str]  # every instrument name (and part of a multi-word one), the yes/no words
    names: _Vocabulary  # the multi-word names
    # (a str.translate table) instrument marks to T / I / F, parts of names to "."
    roles: dict[int, str]


@lru_cache(maxsize=64)
def _yes_no_vocabulary(instrument: str | None) -> _YesNoVocabulary:
    """Names of every OpenMIC class, of the other instruments and of the families; the asked
    instrument's names (synonyms and plurals: "keys", "grand pianos") are T. Without an instrument
    every name is F: nothing an answer says about an instrument can be read."""
    asked = () if instrument is None else (instrument,)
    names = _vocabulary((*OTHER_INSTRUMENTS, *INSTRUMENT_FAMILIES, *asked))
    target = names.options[-1] if asked else None
    families = set(names.options[len(OTHER_INSTRUMENTS) :][: len(INSTRUMENT_FAMILIES)])
    named = {word: mark for word, mark in names.marks.items() if mark >= "\ue000"}
    phrase_marks = {mark for group in names.phrases.values() for _, mark in group}
    roles = {}
    for mark in {*named.values(), *phrase_marks}:
        if mark >= chr(_PART_BASE):
            roles[ord(mark)] = "."  # "double", "kit" alone: no name
        elif mark == target:
            roles[ord(mark)] = "T"
        else:
            roles[ord(mark)] = "F" if instrument is None or mark in families else "I"
    return _YesNoVocabulary({**named, **_YES_NO_WORDS}, names, roles)


_NOT_ONLY = re.compile(r"~\.?\^")  # "not only", "not the only": a clause end (as in _clauses)
_ONLY_AFTER = re.compile(r"[&,]++(?:zE|nO)|zE|nO")  # "drums and nothing else", "drums, no other"
_NAMED_HELPERS = str.maketrans(dict.fromkeys(".aShd"))
_LIST_DOUBLE_NEGATION = re.compile(r"[~!][^;,&/~!]*+[~!]")  # "and" / "or" end a part here
_MARK_BETWEEN_NAMES = re.compile(r"[TIF][GK]++[TIF]")  # "piano \u2713 drums": whose mark?
_MARK_OF_OTHER = re.compile(r"([IF])[GK]++|[GK]++(?=[IF])")  # "drums \u2713": not about T
_JOINED_CLAUSE = re.compile(r"[&/](?=[PYN])")  # "and there is", "or not": a new clause
_NAME_LIST = re.compile(r"[TIF](?:[&/][TIF])++")  # "drums and piano", "drums or piano"
_NEGATED_LIST = re.compile(
    r"~[^;,&/T]*+(?<=[IF])(?:[&/][IF])*+&[IF&/]*+T"  # "no drums and piano": is the piano denied?
    r"|![^;,&/]*+(?<=[TIF])(?:[&/][TIF])++[^;,&/P]*+P"  # "I don't hear drums and piano playing"
)
_UNNEGATED_ALTERNATIVE = re.compile(r"[;,][^;,~!R]*+R[^;,~!]*+(?![^;,])")  # "piano or drums"
_TARGET_LABEL = re.compile(r"([;,][IF]*+T[TIF]*+),(?=[^;,TIF]*+(?![^;,]))")  # "piano: absent"
_OTHERS_LABEL = re.compile(r"([IF]),[^;,TIF]*+(?![^;,])")  # "drums: absent", "I hear drums, no"
# "piano, drums are absent": is the piano absent too?
_LIST_BEFORE_DENIAL = re.compile(r"[;,][IF]*+T[TIF]*+(?:,[TIF]++(?=,))*+,[^;,!]*+!")
# "I hear drums, bass, piano", "no drums, bass": the names share the verb or negation
_CONTINUED_LIST = re.compile(r"[;,][^;,PJ~!]*+[PJ~!][^;,]*+(?:,[TIF]++(?![^;,]))++")
_BARE_NOT = re.compile(r"~(?=[^;,TIF]*+(?![^;,]))")  # "not at all": the whole part
_NOT_OTHERS = re.compile(r"~[^;,T]*+(?![^;,])")  # "without drums": says nothing of T
_DENIES_TARGET = re.compile(r"![^;,T]*+T|T[^;,!]*+!")
_BARE_DENIAL = re.compile(r"[;,][^;,!TIF]*+![^;,TIF]*+(?![^;,])")  # "it is not there"
# "I only hear drums", "drums and nothing else"
_ONLY_OTHERS = re.compile(r"[;,][^;,!TFJI]*+(?:J[^;,!TFI]*+I|I[^;,!TFJ]*+J)[^;,!TF]*+(?![^;,])")
# "I hear a piano", "only the piano"
_AFFIRMS_TARGET = re.compile(r"[;,][^;,!PJT]*+(?:[PJ][^;,!T]*+T|T[^;,!PJ]*+[PJ])[^;,!]*+(?![^;,])")
_BARE_PRESENCE = re.compile(r"[;,][^;,!TIFP]*+P[^;,!TIF]*+(?![^;,])")  # "yes, there is"
_TARGET_ALONE = re.compile(r"[;,][IF]*+T[TIF]*+(?![^;,])")  # the piano named, nothing said of it
_SAYS_NO = re.compile("|".join(p.pattern for p in (_DENIES_TARGET, _BARE_DENIAL, _ONLY_OTHERS)))
_SAYS_YES = re.compile("|".join(p.pattern for p in (_AFFIRMS_TARGET, _BARE_PRESENCE)))


def _listed(match: re.Match) -> str:
    """A list of names as one name: T (or R, alternatives) if it holds T. An and-list in the
    middle of a part ("I hear the piano and the drums are absent") stays apart: its names belong to
    the two sides."""
    names, text = match.group(), match.string
    if (
        "/" not in names
        and text[match.start() - 1] not in ";,&/"
        and text[match.end() : match.end() + 1] not in ("", ";", ",", "&", "/")
    ):
        return names
    if "T" in names:
        return "R" if "/" in names else "T"
    return "F" if "F" in names else "I"


def _continued(match: re.Match) -> str:
    """Names listed after a part belong to it ("I hear drums, bass, piano"); after a negation it is
    not clear ("no drums, piano")."""
    separator, (head, _, tail) = match.group()[0], match.group()[1:].partition(",")
    if "T" in tail and ("~" in head or "!" in head):
        return "?"
    return separator + head + tail.replace(",", "")


def _named_yes_no(marks: str) -> bool | None:
    """An answer that names instruments: what it says about T must agree with its answer words."""
    if "^" in marks:
        marks = _NOT_ONLY.sub(";", marks).replace("^", "J")
    if "E" in marks or "O" in marks:
        marks = _ONLY_AFTER.sub("J", marks)
    if "z_" in marks:
        marks = marks.replace("z_", "J")
    marks = _clauses(marks)
    if marks is None:
        return None
    if "n" in marks:
        marks = _ANSWER_NO.sub("N;", marks).replace("n", "~")
    marks = ";" + marks.replace("#", "~").translate(_NAMED_HELPERS)
    if "?" in marks or (("~" in marks or "!" in marks) and _LIST_DOUBLE_NEGATION.search(marks)):
        return None
    if "G" in marks or "K" in marks:
        if _MARK_BETWEEN_NAMES.search(marks):
            return None
        marks = _MARK_OF_OTHER.sub(r"\1", marks).replace("G", "Y").replace("K", "N")
    if "&" in marks or "/" in marks:
        marks = _JOINED_CLAUSE.sub(";", marks.replace(",&", "&").replace(",/", "/"))
        if ("~" in marks or "!" in marks) and _NEGATED_LIST.search(marks):
            return None
        marks = _NAME_LIST.sub(_listed, marks).replace("&", ";").replace("/", ";")
    if "R" in marks:
        if _UNNEGATED_ALTERNATIVE.search(marks):
            return None
        marks = marks.replace("R", "T")
    if "," in marks:  # labels and lists: only after a name
        if "T," in marks:
            marks = _TARGET_LABEL.sub(r"\1", marks)
        if "I," in marks or "F," in marks:
            marks = _OTHERS_LABEL.sub(r"\1", marks)
        if ",T" in marks or ",I" in marks or ",F" in marks:
            marks = _CONTINUED_LIST.sub(_continued, marks)
            if "?" in marks:
                return None
        if "T," in marks and "!" in marks and _LIST_BEFORE_DENIAL.search(marks):
            return None
    if "~" in marks:
        marks = _NOT_OTHERS.sub("I", _BARE_NOT.sub("!", marks)).replace("~", "!")
    if "Y" in marks and _YES_NO_CONFLICT.search(marks):
        return None
    if "J" in marks and _ONLY_OTHERS.search(marks) and _TARGET_ALONE.search(marks):
        return None  # "I only hear drums and, faintly, a piano"
    said_no = "N" in marks or (
        ("!" in marks or "J" in marks) and _SAYS_NO.search(marks) is not None
    )
    said_yes = "Y" in marks or (
        ("P" in marks or "J" in marks) and _SAYS_YES.search(marks) is not None
    )
    if "T" not in marks:  # only other instruments named: never a yes
        return False if said_no and not said_yes else None
    return said_yes if said_yes != said_no else None


def read_yes_no(text, instrument: str | None = None) -> bool | None:
    """True for yes, False for no, about `instrument` (the OpenMIC class asked about: "piano",
    "mallet_percussion"; its synonyms and plurals count). Answer words ("yes", "no", "nope", a mark
    such as \u2713 / \u274c) and statements ("there is a piano", "I do not hear one", "it is absent")
    must all agree; a hedge, a double negation or a part that says both makes the answer unreadable.

    What an answer says of other instruments does not count: "Yes, a piano, but no drums" is yes,
    "No, only drums." no. An answer that names instruments but never the asked one is never yes:
    it is no when it says so ("No, I hear drums.") or says that only other instruments play ("I only
    hear drums.", "Only violin is playing.", "nothing but drums"), else unreadable ("I hear drums.",
    "The clip features a guitar and drums.", "Yes, drums." - the yes may be about the drums). Where
    it is not clear which instrument a statement is about, the answer is unreadable: "no drums and
    piano", "piano, drums are absent"... Without `instrument` no name can be attributed: only
    answers that name no instrument ("Yes.", "No, there isn't.") are read."""
    prepared = _prepared(text)
    if prepared is None:
        return None
    if not isinstance(instrument, str) or not instrument.strip():
        instrument = None
    vocabulary = _yes_no_vocabulary(instrument)
    marks = _marks(
        _cleaned(
            prepared[0].replace(" - ", " , ").replace("--", " , "), _YES_NO_PUNCTUATION
        ).split(),
        vocabulary.words,
        vocabulary.names,
    )
    if not marks.isascii():
        marks = marks.translate(vocabulary.roles)
        if "T" in marks or "I" in marks or "F" in marks:  # after a refusal, only the asked one
            return _named_yes_no(marks) if "T" in marks or not prepared[1] else None
    return None if prepared[1] else _plain_yes_no(marks)  # "I can't listen to audio, so no."


def instruments_mentioned(text, candidates: list[str]) -> set[int]:
    """Indices of the candidates the text names and does not deny (nor leaves ambiguous). Every
    OpenMIC class is matched, longest name first, so "bass guitar" is bass and not guitar."""
    marked = _option_marks(text, candidates)
    reading = None if marked is None else _read_marks(marked[0])
    if reading is None:
        return set()
    options = marked[1].options
    return reading.indices(reading.affirmed, options) - reading.indices(
        reading.denied + reading.ambiguous, options
    )


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
    marks = None if prepared is None else _time_marks(prepared[0])
    chosen = None if marks is None else _one_affirmed(_read_marks(marks), _RANGE_MARKS)
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
    affirmed, denied = (
        reading.indices(reading.affirmed, options),
        reading.indices(reading.denied, options),
    )
    if (
        reading.indices(reading.ambiguous, options)
        or reading.alternatives
        or affirmed & denied
        or (affirmed and reading.none_said)
    ):
        return None
    if affirmed:
        return affirmed
    if marked[2] and not denied:  # "I can't listen to audio. None.": the refusal's words
        return None
    return set() if reading.none_said or len(denied) == len(candidates) else None


def answer_refused(text) -> bool:
    """Whether the answer declines the task or says the audio never reached the model
    (refusal_reading): a reader that reads nothing from it counts it as refused, not unreadable."""
    prepared = _prepared(text)
    return prepared is not None and prepared[1]
