"""Answer readers of the instrument-grounding tasks: what they read, and what they refuse (None)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from symphony_bench.plugin.grounding.answers import (
    answer_refused,
    instruments_mentioned,
    normalise_answer,
    read_choice,
    read_instrument_set,
    read_letter,
    read_time_range,
    read_yes_no,
)

PLUCKED = ["guitar", "banjo"]
STRUCK = ["mallet_percussion", "bass"]
SET_CANDIDATES = ["guitar", "banjo", "mandolin", "ukulele"]


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("Yes.", True),
        ("yes, there is", True),
        ("YES", True),
        ("There is a piano in the clip.", True),
        ("There's a piano.", True),
        ("Yes, there is a piano.", True),
        ("I can hear a piano.", True),
        ("No.", False),
        ("no, there isn't", False),
        ("There is no piano.", False),
        ("The piano is not present.", False),
        ("I don't hear a piano", False),
        ("There isn't a piano", False),
        ("Not sure.", None),
        ("", None),
        ("Maybe", None),
        (None, None),
        # plain answers the old reader refused
        ("Answer: yes", True),
        ("The answer is yes.", True),
        ("**No**", False),
        ("The correct answer is no.", False),
        ("Is there a piano in this audio clip? No.", False),
        ("I don't think so.", False),
        ("I think so", True),
        ("Nope", False),
        ("Absolutely not.", False),
        ("No there isn't.", False),
        ("The answer is No it is not", False),
        ("No - there is no piano", False),
        ("No doubt there is a piano", True),
        ("There is nothing but a piano", True),
    ],
)
def test_yes_no_reads_plain_answers(answer, expected):
    assert read_yes_no(answer, "piano") is expected


@pytest.mark.parametrize(
    "answer",
    [
        "I don't know",
        "I can't tell",
        "I'm not certain",
        "I cannot tell.",
        "It's hard to tell",
        "I have no idea",
        "Possibly",
        "Yes, but I'm not sure",
        "It could be there",
        "There might be a piano",
    ],
)
def test_yes_no_hedges_are_unreadable_not_no(answer):
    assert read_yes_no(answer, "piano") is None


@pytest.mark.parametrize(
    "answer",
    ["No answer.", "no answer", "No comment.", "I have no answer.", "No idea.", "No response"],
)
def test_yes_no_non_answers_are_unread_not_no(answer):
    assert read_yes_no(answer, "piano") is None and read_yes_no(answer) is None
    assert read_yes_no(f"No. {answer}", "piano") is None  # a non-answer after a "no" takes it back


@pytest.mark.parametrize(
    "answer",
    [
        "yes and no",
        "yes. no.",
        "Yes, there is no piano.",
        "No, there is a piano.",
        "yes or no",
        "There is a piano. There is no piano.",
        "There isn't no piano",
        "No there is a piano",
        "No, I can hear it",
        "Absolutely not but yes",
    ],
)
def test_yes_no_contradictions_and_double_negations_are_unreadable(answer):
    assert read_yes_no(answer, "piano") is None


# Issue item 1: asked about a piano, answers that describe other instruments only read as "yes"
@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        # the answers: saying that only other instruments play is "no"
        ("I only hear drums.", False),
        ("Only violin is playing.", False),
        ("The clip features a guitar and drums.", None),
        ("I hear drums.", None),
        ("There are drums and a bass guitar in the clip.", None),
        ("It features vocals, guitars and a drum kit", None),
        ("I can hear a saxophone", None),
        ("Just the drums.", False),
        ("Drums only.", False),
        ("Nothing but drums", False),
        ("Drums and bass, nothing else", False),
        ("The drums, and no other instrument", False),
        ("The only instrument is the violin", False),
        ("I can only hear strings", None),  # a family: the piano might be one of them? never yes
        ("I only hear a tuba", False),  # not an OpenMIC class, still another instrument
        ("Yes, drums.", None),  # a yes, but about what? never yes without the piano
        ("Yes, I hear a guitar", None),
        ("Drums: present", None),
        ("No drums.", None),
        ("There are no drums", None),
        ("Drums: absent", None),
        ("Drums \u2713", None),
        ("No, I hear drums", False),
        ("No. Only drums.", False),
        ("Nope, just a guitar and drums", False),
        ("Yes, only drums", None),
        ("There is a piano, but only drums", None),
        ("I only hear drums and, faintly, a piano", None),
    ],
)
def test_yes_no_naming_only_other_instruments_is_never_yes(answer, expected):
    assert read_yes_no(answer, "piano") is expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("Yes, a piano plays.", True),
        ("Yes.", True),
        ("No, only drums.", False),
        ("Yes, there is a piano, but no drums", True),
        ("I hear a piano but no drums", True),
        ("I hear a piano without drums", True),
        ("I hear drums and a piano.", True),
        ("The clip features drums, bass and piano.", True),
        ("I hear drums, bass, and piano", True),
        ("Drums, bass, and guitar are playing, but no piano.", False),
        ("Piano (yes), drums (no)", True),
        ("There is a guitar (not a piano) and the drums are playing", False),
        ("There is a piano (not a guitar) and the drums are playing", True),
        ("The drums are the only instrument I hear", False),
        ("Nope: drums only", False),
        ("Drums and piano are playing", True),
        ("Piano and drums are playing", True),
        ("I only hear the piano and the drums", True),
        ("There is no piano; I hear drums and bass", False),
        ("I don't hear a piano, only drums", False),
        ("I hear a guitar without piano", False),
        ("No piano, just drums", False),
        ("The drums are playing, but there is no piano", False),
        ("Drums, not piano", False),
        ("no piano and drums", False),
        ("The piano and the drums are absent", False),
        ("I don't hear drums or a piano", False),
        ("I hear the piano and the drums are absent", True),
        ("I hear the drums and the piano is absent", False),
        ("Not only drums but also a piano is playing", True),
        ("There is nothing but a piano", True),
        ("The piano is the only instrument", True),
        ("Piano: yes", True),
        ("Piano: no", False),
        ("Piano: absent", False),
        ("Drums: yes, piano: no", False),
        ("Drums, piano: absent", False),
        ("I hear drums, piano: absent", False),
        ("piano \u2713, drums \u2717", True),
        ("piano \u274c", False),
        ("\u2705 Yes", True),
        ("\u274c", False),
        # which instrument a statement is about is not clear: unreadable
        ("no drums and piano", None),
        ("no drums, piano", None),
        ("piano, drums are absent", None),
        ("I hear a piano or drums", None),
        ("I don't hear drums and piano playing", None),
        ("piano \u2713 drums \u2717", None),
    ],
)
def test_yes_no_reads_what_is_said_of_the_asked_instrument(answer, expected):
    assert read_yes_no(answer, "piano") is expected


@pytest.mark.parametrize(
    ("answer", "instrument", "expected"),
    [
        ("Grand pianos are playing", "piano", True),
        ("The keys are audible", "piano", True),
        ("I hear a marimba", "mallet_percussion", True),
        ("I hear a marimba", "mallet percussion", True),
        ("The vocals are audible, no guitar", "voice", True),
        ("Only a bass guitar plays", "guitar", False),  # "bass guitar" is bass, not guitar
        ("Only a bass guitar plays", "bass", True),
        ("I hear a double bass", "bass", True),
        ("I hear a snare drum and hi-hats", "cymbals", True),
        ("I hear a snare drum", "cymbals", None),
        ("Yes, a saxophone", "saxophone", True),
        ("I only hear saxes", "trumpet", False),
        ("There are no ukes", "ukulele", False),
    ],
)
def test_yes_no_knows_the_asked_instrument_by_its_synonyms_and_plurals(
    answer, instrument, expected
):
    assert read_yes_no(answer, instrument) is expected


def test_yes_no_without_the_instrument_reads_only_answers_that_name_none():
    assert read_yes_no("Yes, there is.") is True
    assert read_yes_no("No.") is False
    assert read_yes_no("I only hear drums.") is None
    assert read_yes_no("There is a piano.") is None
    assert read_yes_no("I only hear drums.", "") is None


def test_read_answer_passes_the_asked_instrument_of_a_yes_no_doc():
    from symphony_bench.plugin.grounding.tasks import read_answer

    doc = {"interface": "yes_no", "options": ["Yes", "No"], "instrument": "piano"}
    assert read_answer(doc, "I only hear drums.") == 1
    assert read_answer(doc, "The clip features a guitar and drums.") is None
    assert read_answer(doc, "Yes, a piano plays.") == 0
    assert read_answer({**doc, "instrument": "drums"}, "I only hear drums.") == 0


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("Mallet percussion.", 0),
        ("a xylophone", 0),
        ("The BASS", 1),
        ("double bass", 1),
        ("bass guitar", 1),
        ("bass, but no xylophone", 1),
        ("both mallet percussion and bass", None),
        ("a trumpet", None),
        ("Marimbas", 0),
        ("basses", 1),
    ],
)
def test_choice_by_name(answer, expected):
    assert read_choice(answer, STRUCK) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("Banjos", 1),
        ("Banjo.", 1),
        ("I don't hear a guitar.", None),
        ("I do not hear a guitar, only banjo", 1),
        ("neither guitar nor banjo", None),
        ("guitar, not banjo", 0),
        ("guitar without banjo", 0),
        ("The banjo is not audible; it is the guitar.", 0),
        ("There is no guitar and the banjo is playing", None),
        ("I hear a guitar and no banjo", 0),
        ("Not the guitar but the banjo", 1),
        ("guitar or banjo", None),
        ("Guitar. Actually, banjo.", None),
        ("no guitar, banjo", None),
        ("The guitar. The guitar is not present.", None),
        ("maybe the banjo", None),
        ("It might be the banjo", None),
        ("Candidate instruments: guitar, banjo. Answer: banjo", None),
        ("guitar and drums", 0),
        ("None.", None),
        ("A banjo", 1),
        ("It's the guitar (not the banjo)", 0),
        ("I don't hear no guitar", None),
        ("electric bass guitar", None),
        ("Nothing but the banjo", 1),
        ("The banjo, no other instrument", 1),
        ("Without a doubt, the banjo", 1),
        ("guitar/banjo", None),
        ("Not only the guitar but also the banjo", None),
        ("guitar - not banjo", 0),
        ("The answer is guitar, banjos are not present", 0),
        ("guitar, banjos are not present", None),
        ("I think the guitar and the banjo are absent", None),
    ],
)
def test_choice_negation_scope(answer, expected):
    assert read_choice(answer, PLUCKED) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("A", 0),
        ("b.", 1),
        ("(B)", 1),
        ("Answer: B", 1),
        ("Option A", 0),
        ("A. mallet percussion", 0),
        ("The answer is B", 1),
        ("The answer is: (A)", 0),
        ("Correct answer: B", 1),
        ("My answer is B", 1),
        ("I choose B.", 1),
        ("A bass", 1),
        ("A) bass", None),
        ("B. mallet percussion", None),
        ("A or B", None),
        ("bass", 1),
    ],
)
def test_letter_choice(answer, expected):
    assert read_letter(answer, STRUCK) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("A, because the banjo is not audible", 0),
        ("A, because the guitar is not audible", None),
        ("A. banjo", None),
        ("A, not B", 0),
        ("Answer: A (guitar)", 0),
        ("A. guitar B. banjo", None),
        ("B, because the twang of the banjo is clear", 1),
        ("A/B", None),
        ("A and B", None),
        ("Not A", None),
        ("a", 0),
        ("(a)", 0),
        ("A guitar", 0),
        ("A banjo", 1),
        ("A is wrong, B is right", 1),
        ("B, maybe A", None),
        ("Letter B - the guitar is absent", 1),
        ("B: I don't hear the guitar", 1),
        ("B. I think the guitar and the drums are absent", 1),
        ("The answer is A. Not mandolin, saxophone", 0),
        ("A, even though I hear a banjo", None),
        ("\x01 banjo", 1),
    ],
)
def test_letter_decides_unless_the_explanation_contradicts_it(answer, expected):
    assert read_letter(answer, PLUCKED) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("0-10 seconds", 0),
        ("0–10 s", 0),
        ("The first range.", 0),
        ("10 to 20 seconds", 1),
        ("middle", 1),
        ("10–20 seconds.", 1),
        ("Between 10 and 20 seconds", 1),
        ("20—30s", 2),
        ("the last ten seconds", 2),
        ("The first 10-second segment", 0),
        ("at the 25 second mark", None),
        ("0-10 or 10-20", None),
        ("somewhere", None),
        ("30-40", None),
        # plain answers the old reader refused
        ("10 seconds to 20 seconds", 1),
        ("from 0s to 10s", 0),
        ("00:20-00:30", 2),
        ("0:10 - 0:20", 1),
        ("ten to twenty seconds", 1),
        ("Answer: 20-30 seconds", 2),
        ("The final answer is 0-10 seconds", 0),
        ("Segment 2", 1),
        ("10-20 seconds (the second range)", 1),
    ],
)
def test_time_range(answer, expected):
    assert read_time_range(answer) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("10-20 seconds, not 0-10", 1),
        ("Not 0-10 seconds but 20-30 seconds", 2),
        ("the first range: 10-20 s", None),
        ("the second half", None),
        ("0-10 seconds, 10-20 seconds, 20-30 seconds", None),
        ("maybe 10-20 seconds", None),
        ("I don't know", None),
        ("5-15 seconds", None),
        ("0-30 seconds", None),
        ("not 10-20 seconds", None),
        ("from start to finish", None),
        ("10-20 seconds, not 10-20 seconds", None),
        ("not in [20-30]. 0-10 seconds", 0),
        ("not [0-10] but [20-30]", 2),
        ("10.0-20.0 seconds", 1),
        ("0-10.5 seconds", None),
        ("twenty-five seconds", None),
        ("the final answer: the middle", 1),
        ("the 2nd range", 1),
    ],
)
def test_time_range_negation_and_ambiguity(answer, expected):
    assert read_time_range(answer) == expected


def test_instrument_set_with_synonyms_and_explicit_none():
    candidates = ["voice", "guitar", "synthesizer", "bass"]
    assert read_instrument_set("Vocals, electric guitar and a synth.", candidates) == {0, 1, 2}
    assert read_instrument_set("bass guitar", candidates) == {3}  # not also "guitar"
    assert read_instrument_set("None.", candidates) == set()
    assert read_instrument_set("guitar but no synth", candidates) == {1}
    assert read_instrument_set("bass guitar, drums", SET_CANDIDATES) is None
    assert read_instrument_set("I hear a tuba", candidates) is None


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("I do not hear a guitar, only banjo", {1}),
        ("I don't hear a guitar.", None),
        ("neither guitar nor banjo", None),
        ("Banjos and guitars", {0, 1}),
        ("guitar or banjo", None),
        ("None, guitar", None),
        ("No instruments are present.", set()),
        ("Guitar, banjo; no ukulele, no mandolin", {0, 1}),
        ("Guitar, banjo are not present", None),
        ("Guitar and banjo are not present. Mandolin.", {2}),
        ("I hear a guitar, the banjo is absent", {0}),
        ("no guitar, banjo", None),
        ("no guitar and banjo", None),
        ("guitar, banjo, maybe ukulele", None),
        ("Mandolin and ukulele, nothing else", {2, 3}),
        ("- guitar\n- ukulele", {0, 3}),
        ("Guitar; the mandolin and the ukulele are absent", {0}),
        ("Guitar, no other instruments", {0}),
        ("Nothing but guitar and banjo", {0, 1}),
        ("guitar/banjo", None),
        ("Guitar - banjo - no ukulele", {0, 1}),
    ],
)
def test_instrument_set_negation_scope(answer, expected):
    assert read_instrument_set(answer, SET_CANDIDATES) == expected


# Issue item 3: marks and units the readers did not understand were read as if absent
@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("guitar \u2713, banjo \u2717", {0}),
        ("Guitar \u2714\ufe0f, banjo \u274c, mandolin \u2705", {0, 2}),
        ("\u2713 guitar\n\u2717 banjo\n\u2717 ukulele", {0}),
        ("guitar: \u2713\nbanjo: \u2717", {0}),
        ("guitar x, banjo \u2713", {1}),
        ("Guitar: X, banjo: X", None),
        ("guitar (yes), banjo (no)", {0}),
        ("Guitar: yes, banjo: no, mandolin: yes, ukulele: no", {0, 2}),
        ("guitar \u2717, banjo \u2717, mandolin \u2717, ukulele \u2717", set()),
        # marks that belong to no one name, or whose meaning is not clear: unreadable
        ("guitar \u2713 banjo \u2717", None),
        ("[x] guitar, [ ] banjo", None),
        ("guitar \u2610, banjo \u2611", None),
        ("guitar \u2b50, banjo", None),
        ("I hear a guitar \u2713", None),
        ("guitar, banjo \u2713\u2717", None),
    ],
)
def test_instrument_set_reads_marks_next_to_names(answer, expected):
    assert read_instrument_set(answer, SET_CANDIDATES) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("guitar \u2717", None),
        ("banjo \u2717, guitar \u2713", 0),
        ("Guitar: no, banjo: yes", 1),
        ("guitar (no)", None),
        ("guitar \u2713 banjo", None),
    ],
)
def test_choice_reads_marks_next_to_names(answer, expected):
    assert read_choice(answer, PLUCKED) == expected


def test_letter_reads_marks_next_to_letters():
    assert read_letter("A \u2717, B \u2713", PLUCKED) == 1
    assert read_letter("A: no", PLUCKED) is None
    assert read_letter("B \u2717", PLUCKED) is None


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("10-20 minutes", None),
        ("10-20 min", None),
        ("10 to 20 mins", None),
        ("0-10 ms", None),
        ("between 20 and 30 milliseconds", None),
        ("20-30 hours", None),
        ("10-20 h", None),
        ("from 0 min to 10 min", None),
        ("the first 10 minutes", None),
        ("10-20 s", 1),
        ("10-20 sec", 1),
        ("10-20 seconds", 1),
        ("10-20", 1),
        ("0-10 \u2717, 10-20 \u2713", 1),
        ("0-10 s \u2717", None),
        ("20-30 s: \u2713", 2),
        ("0-10 (no), 10-20 (no), 20-30 (yes)", 2),
    ],
)
def test_time_range_in_other_units_or_with_marks(answer, expected):
    assert read_time_range(answer) == expected


def test_every_candidate_denied_is_the_empty_set():
    assert read_instrument_set("neither guitar nor banjo", PLUCKED) == set()


def test_display_names_get_the_synonyms_of_their_class():
    assert read_choice("a marimba", ["mallet percussion", "piano"]) == 0


def test_instruments_mentioned_leaves_out_negated_names():
    assert instruments_mentioned("I don't hear a guitar, only banjo", SET_CANDIDATES) == {1}
    assert instruments_mentioned(None, SET_CANDIDATES) == set()


def test_normalise_answer_spells_out_contractions():
    assert normalise_answer("I Can't   hear—it!") == "i can not hear-it"
    assert normalise_answer(3) == ""


@given(st.one_of(st.text(), st.none(), st.integers()))
def test_readers_never_raise(answer):
    read_yes_no(answer)
    read_yes_no(answer, "piano")
    read_time_range(answer)
    read_choice(answer, STRUCK)
    read_letter(answer, STRUCK)
    read_instrument_set(answer, STRUCK)
    assert answer_refused(answer) in (True, False)


WORDS_OF_REFUSALS = (
    "I can't cannot unable to listen hear detect audio sound no No As a A text-only model , . ; "
    "piano drums hardly barely any nowhere out of failed help with that B 0-10 seconds the of "
    "please provide without doubt I'd be surprised if there were is not but so yes none"
).split()


@given(st.lists(st.sampled_from(WORDS_OF_REFUSALS), max_size=40).map(" ".join))
def test_readers_never_raise_on_the_words_of_refusals_and_negations(answer):
    assert read_yes_no(answer, "piano") in (True, False, None)
    assert read_instrument_set(answer, ["piano", "drums"]) in (None, set(), {0}, {1}, {0, 1})
    read_letter(answer, ["piano", "drums"])
    read_time_range(answer)
    assert answer_refused(answer) in (True, False)


# Issue 35, finding 3: negations in words are denials, refusals are no answer (a category of their own)
@pytest.mark.parametrize(
    "answer",
    [
        "I am unable to detect a piano",
        "I failed to hear any piano",
        "Nowhere do I hear a piano",
        "I'd be surprised if there were a piano",
        "There is hardly any piano",
        "There's no sign of a piano",
        "The piano is nowhere to be heard.",
        "The piano is inaudible",
        "It's unlikely that there is a piano",
        "I doubt there is a piano",
        "I can't hear a piano",  # names what it does not hear: a denial, not a refusal
        "I'm sorry, but I can't hear a piano in this clip.",
        "I can't hear it.",
        "I can hardly hear a piano, if at all.",
        "I barely hear the piano, if any.",
    ],
)
def test_negations_in_words_are_no_and_no_refusal(answer):
    assert read_yes_no(answer, "piano") is False
    assert not answer_refused(answer)
    assert read_instrument_set(f"Drums. {answer}", ["drums", "piano"]) == {0}
    assert read_choice(f"The drums. {answer}", ["piano", "drums"]) == 1


@pytest.mark.parametrize(
    "answer",
    [
        "I can't help with that.",
        "As a text-only model, I cannot listen to audio.",
        "I cannot process audio",
        "No audio.",
        "I don't see any audio attached",
        "I'm sorry, but as an AI I don't have the ability to hear audio files.",
        "No. As a text-only model, I cannot listen to audio.",  # its "no" is the refusal's
        "I can't listen to audio, so I can't tell whether there is a piano.",
        "Without the audio, I cannot answer. None.",
        "Please provide the audio clip.",
        "I must decline.",
    ],
)
def test_refusals_are_no_answer_for_any_reader(answer):
    assert answer_refused(answer)
    assert read_yes_no(answer, "piano") is None
    assert read_instrument_set(answer, SET_CANDIDATES) is None
    assert read_choice(answer, PLUCKED) is None
    assert read_letter(answer, PLUCKED) is None
    assert read_time_range(answer) is None


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("I cannot listen to audio, but there is no piano.", False),
        ("As an AI I can't process audio; however, a piano is playing.", True),
        ("Yes, I can hear a piano.", True),
        ("I can't help but hear a piano.", True),
        ("I listened to the audio: there is a piano.", True),
        # a hedge, not a refusal: unreadable, as "Yes, but I'm not sure"
        ("I am unable to say there is no piano... yes, a piano plays", None),
        ("I can't tell.", None),
    ],
)
def test_what_a_refusal_does_not_cover_is_read(answer, expected):
    assert read_yes_no(answer, "piano") is expected
    assert answer_refused(answer) == answer.startswith(("I cannot listen", "As an AI"))


def test_no_audio_is_no_empty_set_but_none_still_is():
    assert read_instrument_set("No audio.", SET_CANDIDATES) is None
    assert read_instrument_set("None.", SET_CANDIDATES) == set()
    assert read_instrument_set("No instruments are present.", SET_CANDIDATES) == set()
    assert read_instrument_set("I hear no sound of a guitar. Banjo.", SET_CANDIDATES) == {1}
    assert not answer_refused("None.")
