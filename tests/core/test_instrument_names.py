import pytest

from symphony_bench.plugin.core.instrument_names import (
    instruments_named,
    recognises,
    single_instrument,
)


@pytest.mark.parametrize(
    "answer, instrument, expected",
    [
        ("This is a violin.", "violin", True),
        ("It sounds like a fiddle", "violin", True),
        ("Violins!", "violin", True),
        ("A bassoon, I think.", "bassoon", True),
        ("A bassoon, I think.", "bass guitar", False),
        ("an electric guitar with distortion", "electric guitar", True),
        ("an electric guitar with distortion", "acoustic guitar", False),
        ("a guitar", "acoustic guitar", True),
        ("a guitar", "electric guitar", True),
        ("a guitar", "bass guitar", False),
        ("a French horn", "horn", True),
        ("a synthesizer", "keyboard", True),
        ("a drum kit", "drums", True),
        ("either a flute or a piccolo", "flute", False),
        ("I hear nothing recognisable", "harp", False),
        ("", "harp", False),
    ],
)
def test_free_answers_are_mapped_with_synonyms(answer, instrument, expected):
    assert recognises(answer, instrument) is expected


def test_single_instrument_refuses_ambiguity():
    assert single_instrument("E-Guitar (2)") == "electric guitar"
    assert single_instrument("guitar 3") is None
    assert single_instrument("flute and piccolo duet") is None
    assert instruments_named("flute and piccolo duet") == {"flute", "piccolo"}
