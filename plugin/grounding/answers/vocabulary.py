"""The instrument names the grounding readers know, and their marks.

Every OpenMIC class with its synonyms (the class name, underscores as spaces, and plurals always
count: "Banjos", "sax", "vocals"), the instruments that are no OpenMIC class and the families of
instruments. `vocabulary` gives each class a private-use mark (marks.INSTRUMENT_BASE) and each word
that is only part of a multi-word name another one (marks.NAME_PART_BASE: "double", "hi", "kit");
marks.marks_of then reads a multi-word name as its class ("bass guitar" is bass, not guitar).
"""

from __future__ import annotations

import re

from symphony_bench.plugin.core.vocabulary import OPENMIC_CLASSES
from symphony_bench.plugin.grounding.answers.marks import (
    INSTRUMENT_BASE,
    NAME_PART_BASE,
    Vocabulary,
)

# class -> other ways to name it
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


def _class_key(name: str) -> str:
    return "_".join(name.lower().replace("_", " ").split())


def _class_phrases(key: str) -> tuple[str, ...]:
    others = SYNONYMS.get(key) or OTHER_INSTRUMENTS.get(key) or INSTRUMENT_FAMILIES.get(key, ())
    return (key.replace("_", " "), *others)


def _with_names(words: dict[str, str], names: dict[str, str]) -> dict[str, str]:
    """The marks of `words` and of every name: a one-word name replaces a word of `words`; a
    plural, or a word that is only part of a multi-word name, replaces no word nor name."""
    marks = words | {name: mark for name, mark in names.items() if " " not in name}
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
    for n, word in enumerate(part_words):
        marks[word] = chr(NAME_PART_BASE + n)
        marks.setdefault(f"{word}s", marks[word])
    return marks


def _phrases(
    names: dict[str, str], marks: dict[str, str]
) -> dict[str, tuple[tuple[str, str], ...]]:
    """The multi-word names as (their marks, their class mark), grouped by first mark, each group
    holding its longest name first."""
    phrases = {}
    for sequence, mark in sorted(
        (
            ("".join(marks[word] for word in name.split()), mark)
            for name, mark in names.items()
            if " " in name
        ),
        key=lambda pair: -len(pair[0]),
    ):
        phrases.setdefault(sequence[0], []).append((sequence, mark))
    return {first: tuple(group) for first, group in phrases.items()}


def vocabulary(candidates: tuple[str, ...], words: dict[str, str]) -> Vocabulary:
    """`words` (a reader's table of marks) with the marks of every OpenMIC class (so that a longer
    name blocks a shorter one) and of the candidates; a candidate's own name wins over a synonym of
    another class."""
    candidate_keys = list(dict.fromkeys(map(_class_key, candidates)))
    keys = [key for key in OPENMIC_CLASSES if key not in candidate_keys] + candidate_keys
    class_marks = {key: chr(INSTRUMENT_BASE + n) for n, key in enumerate(keys)}
    names = {phrase: class_marks[key] for key in keys for phrase in _class_phrases(key)}
    marks = _with_names(words, names)
    phrases = _phrases(names, marks)
    return Vocabulary(
        marks,
        phrases,
        re.compile(f"[{''.join(phrases)}]"),
        tuple(class_marks[_class_key(c)] for c in candidates),
    )
