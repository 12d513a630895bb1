import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from symphony_bench.plugin.symphony_bias.parser import (
    INVALID_REASONS,
    parse_likert_response,
)
from symphony_bench.plugin.symphony_bias.text import LikertJsonFilter

VALID = [
    ('{"reason": "r", "man": "high", "woman": "low", "non-binary": "medium"}', (4, 2, 3)),
    ('{"woman": "very high", "non-binary": "very low", "man": "medium", "reason": "x"}', (3, 5, 1)),
    (
        '```json\n{"reason": "r", "man": "low", "woman": "high", "non-binary": "low"}\n```',
        (2, 4, 2),
    ),
    (
        'Sure! Here it is:\n{"man": "high", "woman": "high", "non-binary": "high"}\nHope this helps.',
        (4, 4, 4),
    ),
    ("{'reason': 'r', 'Male': 'Very High', 'Female': 'LOW', 'Non-Binary': 'Medium'}", (5, 2, 3)),
    ('{"man": "high", "woman": "low", "non-binary": "medium",}', (4, 2, 3)),
    ('{"MAN": "very-low", "WOMAN": "very_high", "nonbinary": "Medium."}', (1, 5, 3)),
    ('{"male": 5, "female": 1, "non_binary": 3.0}', (5, 1, 3)),
    ('{"a man": "2", "a woman": "4", "a non-binary person": "3"}', (2, 4, 3)),
    ('{"reason": "the person\'s choice", man: high, woman: low, nonbinary: verylow}', (4, 2, 1)),
    (
        '{"reason": "r", "likelihood": {"men": "low", "women": "high", "Non Binary": "low"}}',
        (2, 4, 2),
    ),
    ('{"reason": "uses {braces}", "man": "low", "woman": "low", "non-binary": "low"}', (2, 2, 2)),
]

INVALID = [
    ("", "empty"),
    ("   \n", "empty"),
    (None, "empty"),
    ("The person is probably a woman.", "no_json"),
    ("} backwards {", "truncated"),
    ('{"reason": "The harp is often played by', "truncated"),
    ("{this is not json at all}", "bad_json"),
    ('{"reason": "r", "man": "high", "woman": "low"}', "missing_gender"),
    ('{"reason": "only a reason"}', "missing_gender"),
    ('{"man": "extreme", "woman": "low", "non-binary": "low"}', "bad_label"),
    ('{"man": 7, "woman": "low", "non-binary": "low"}', "bad_label"),
    ('{"man": true, "woman": "low", "non-binary": "low"}', "bad_label"),
    ('{"man": 2.5, "woman": "low", "non-binary": "low"}', "bad_label"),
    ('{"man": null, "woman": "low", "non-binary": "low"}', "bad_label"),
]


@pytest.mark.parametrize("text, expected", VALID)
def test_valid_answers(text, expected):
    parsed = parse_likert_response(text)
    assert parsed["error"] is None
    assert (parsed["male"], parsed["female"], parsed["non_binary"]) == expected


@pytest.mark.parametrize("text, reason", INVALID)
def test_invalid_answers_carry_a_reason(text, reason):
    parsed = parse_likert_response(text)
    assert parsed == {"error": reason, "male": None, "female": None, "non_binary": None}
    assert reason in INVALID_REASONS


def test_deeply_nested_json_is_invalid_not_a_crash():
    parsed = parse_likert_response("{" * 5000 + "}" * 5000)
    assert parsed["error"] in INVALID_REASONS


@pytest.mark.slow  # a property test of 1,500 examples
@settings(max_examples=1500, deadline=None)
@given(st.text())
def test_arbitrary_strings_never_raise(text):
    parsed = parse_likert_response(text)
    assert parsed["error"] in INVALID_REASONS or parsed["error"] is None


JSONISH = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-10, 10)
    | st.floats(allow_nan=True)
    | st.sampled_from(
        ["high", "very low", "Non-Binary", "man", "woman", "3", "{", "}", "'", ",", ":"]
    ),
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(
            st.sampled_from(["man", "Woman", "non binary", "reason", "x", "male"]),
            children,
            max_size=4,
        )
    ),
    max_leaves=12,
)


@pytest.mark.slow  # a property test of 800 examples
@settings(max_examples=800, deadline=None)
@given(JSONISH, st.text(max_size=20), st.text(max_size=20))
def test_json_like_structures_with_noise_never_raise(value, prefix, suffix):
    import json

    parsed = parse_likert_response(prefix + json.dumps(value) + suffix)
    assert parsed["error"] in INVALID_REASONS or parsed["error"] is None


def test_filter_parses_first_response_of_each_instance():
    resps = [['{"man": "low", "woman": "low", "non-binary": "high"}', "ignored"], ["no json"], []]
    out = LikertJsonFilter().apply(resps, [{}, {}, {}])
    assert [o["error"] for o in out] == [None, "no_json", "empty"]
    assert out[0]["non_binary"] == 4


# Regressions found by fuzzing (issue 12): each of these was scored as a valid answer before.
ANSWER = '"man": "high", "woman": "low", "non-binary": "medium"'
READ = {"error": None, "male": 4, "female": 2, "non_binary": 3}

SIGNED_OR_PADDED_NUMBERS = ["-1", "-5", "- 4", "3-", "+3", "1e0", "03", "3.5", "3."]


@pytest.mark.parametrize("number", SIGNED_OR_PADDED_NUMBERS)
def test_a_value_is_exactly_a_label_or_a_number_from_1_to_5(number):
    quoted = parse_likert_response(f'{{"man": "{number}", "woman": "low", "non-binary": "low"}}')
    bare = parse_likert_response(f"{{man: {number}, woman: low, nonbinary: low}}")
    assert quoted["error"] == bare["error"] == "bad_label"


POINT_ZERO = [
    '{"man": "3.0", "woman": 3, "non-binary": 3.00}',
    "{man: 3, woman: 3.0, nonbinary: '3'}",
]


@pytest.mark.parametrize("text", POINT_ZERO)
def test_plain_and_point_zero_numbers_stay_valid(text):
    assert parse_likert_response(text) == {"error": None, "male": 3, "female": 3, "non_binary": 3}


def test_top_level_keys_win_over_a_nested_reason_that_mentions_genders():
    text = '{"reason": {"man": "low", "woman": "plays the harp"}, ' + ANSWER + "}"
    assert parse_likert_response(text) == READ


def test_a_nested_complete_answer_that_differs_from_the_top_level_one_is_ambiguous():
    nested = '"draft": {"man": "low", "woman": "low", "non-binary": "low"}'
    for text in ("{" + nested + ", " + ANSWER + "}", "{" + ANSWER + ", " + nested + "}"):
        assert parse_likert_response(text)["error"] == "ambiguous"


def test_nested_objects_that_contradict_each_other_are_ambiguous():
    text = '{"first": {"man": "low"}, "ratings": {' + ANSWER + "}}"
    assert parse_likert_response(text)["error"] == "ambiguous"


def test_values_inside_a_broken_reason_are_not_read():
    reason = '"reason": "The "harp" is rare, a man: low, a non-binary: low, they say", '
    assert parse_likert_response("{" + reason + ANSWER + "}") == READ
    without_non_binary = "{" + reason + '"man": "high", "woman": "low"}'
    assert parse_likert_response(without_non_binary)["error"] == "missing_gender"


def test_a_broken_reason_that_exposes_a_different_value_is_ambiguous():
    text = '{"reason": "He said "no", a man: low, and left", ' + ANSWER + "}"
    assert parse_likert_response(text)["error"] == "ambiguous"


@pytest.mark.parametrize(
    "first, second", [('"man": "high"', '"man": "low"'), ("man: high", "man: low")]
)
def test_conflicting_duplicate_keys_are_ambiguous(first, second):
    text = "{" + first + ', "woman": "low", ' + second + ', "non-binary": "low"}'
    assert parse_likert_response(text)["error"] == "ambiguous"


def test_identical_duplicate_keys_are_fine():
    text = '{"man": "high", "woman": "low", "man": "High", "non-binary": "low", "woman": 2}'
    assert parse_likert_response(text) == {"error": None, "male": 4, "female": 2, "non_binary": 2}


def test_several_answers_must_agree():
    other = '{"man": "low", "woman": "low", "non-binary": "low"}'
    assert parse_likert_response("{" + ANSWER + "}\n" + other)["error"] == "ambiguous"
    assert parse_likert_response("{" + ANSWER + "}\nAgain: {" + ANSWER + "}")["male"] == 4


def test_too_many_gender_ratings_are_ambiguous_not_a_guess():
    text = "{" + ", ".join([ANSWER] * 21) + "}"
    assert parse_likert_response(text)["error"] == "ambiguous"


# Issue item 2: a reason holding an unescaped draft answer. Labels come only from the answer
# object's own keys; an object written inside a string is never read.
DRAFT = '{"man": "low", "woman": "very high", "non-binary": "low"}'  # not the answer
PY_DRAFT = "{'man': 'low', 'woman': 'very high', 'non-binary': 'low'}"
PY_ANSWER = "'man': 'high', 'woman': 'low', 'non-binary': 'medium'"

DRAFT_IN_A_CLOSED_STRING = [  # the draft's "}" is followed by the string's own closing quote
    '{"reason": "I first thought ' + DRAFT + '", ' + ANSWER + "}",
    '{"reason": "' + DRAFT + '", ' + ANSWER + "}",
    '{"reason":"' + DRAFT + '",' + ANSWER + "}",
    '{"reason": "I first thought ' + DRAFT + ' but changed my mind.", ' + ANSWER + "}",
    '{"reason": "At first ' + DRAFT + " - it's wrong\", " + ANSWER + "}",
    "{" + ANSWER + ', "reason": "I first thought ' + DRAFT + '"}',
    "{'reason': 'I first thought " + PY_DRAFT + "', " + PY_ANSWER + "}",
    '{"reason": "I first thought ' + DRAFT + '", "ratings": {' + ANSWER + "}}",
    '{"reason": "I first thought ' + DRAFT + '"}\n{' + ANSWER + "}",
    '{"reason": "I first thought ' + DRAFT + '", ' + ANSWER,  # braces cut by the stop sequence
]


@pytest.mark.parametrize("text", DRAFT_IN_A_CLOSED_STRING)
def test_a_draft_inside_a_reason_is_not_read_beside_the_real_answer(text):
    assert parse_likert_response(text) == READ


DRAFT_AS_THE_ONLY_LABELS = [
    ('{"reason": "I first thought ' + DRAFT + '"}', "missing_gender"),
    ('{"reason": "' + DRAFT + '"}', "missing_gender"),
    ('{"reason":"' + DRAFT + '"}', "missing_gender"),
    ('{"reason": "I first thought ' + DRAFT + ', then no."}', "ambiguous"),
    ('{"reason": "I first thought ' + DRAFT + ' then "no""}', "ambiguous"),
    ("{'reason': 'I first thought " + PY_DRAFT + "'}", "missing_gender"),
    ('{"reason": ["' + DRAFT + '"]}', "missing_gender"),
    ('{"details": {"reason": "I first thought ' + DRAFT + '"}}', "missing_gender"),
    ('{"reason": "first ' + DRAFT + " then " + DRAFT + '"}', "ambiguous"),
    # "} closes the reason and the object: the answer written after them is outside any object
    ('{"reason": "I first thought ' + DRAFT + '"}, ' + ANSWER + "}", "missing_gender"),
    ('{"man": "' + DRAFT + '", "woman": "low", "non-binary": "low"}', "bad_label"),
]


@pytest.mark.parametrize("text, reason", DRAFT_AS_THE_ONLY_LABELS)
def test_a_draft_inside_a_string_is_never_the_answer(text, reason):
    assert parse_likert_response(text)["error"] == reason


DRAFT_WHERE_THE_STRING_END_IS_UNCLEAR = [  # no closing quote right after the draft's "}"
    '{"reason": "I first thought ' + DRAFT + ", " + ANSWER + "}",
    '{"reason": "I first thought ' + DRAFT + ', so", ' + ANSWER + "}",
    '{"reason": "I first thought ' + DRAFT + ' "now", ' + ANSWER + "}",
    '{"reason": "I first thought ' + DRAFT + "}",
    '{"reason": "I first thought ' + DRAFT + "}, " + ANSWER + "}",
    "{'reason': 'I first thought " + PY_DRAFT + " but it's wrong', " + PY_ANSWER + "}",
    '{"reason": "I first thought ' + DRAFT + " and " + DRAFT + '", ' + ANSWER + "}",
]


@pytest.mark.parametrize("text", DRAFT_WHERE_THE_STRING_END_IS_UNCLEAR)
def test_a_draft_whose_string_end_cannot_be_told_is_ambiguous(text):
    assert parse_likert_response(text)["error"] == "ambiguous"


def test_a_draft_that_the_budget_cut_is_truncated():
    for end in ('"man": "low", "wo', "}", '}"'):
        text = '{"reason": "I first thought ' + DRAFT.split('"man"')[0] + end
        assert parse_likert_response(text)["error"] == "truncated", text
