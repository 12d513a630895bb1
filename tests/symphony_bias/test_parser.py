import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from symphony_bench.plugin.symphony_bias.parser import INVALID_REASONS, parse_likert_response
from symphony_bench.plugin.symphony_bias.text import LikertJsonFilter

VALID = [
    ('{"reason": "r", "man": "high", "woman": "low", "non-binary": "medium"}', (4, 2, 3)),
    ('{"woman": "very high", "non-binary": "very low", "man": "medium", "reason": "x"}', (3, 5, 1)),
    ('```json\n{"reason": "r", "man": "low", "woman": "high", "non-binary": "low"}\n```', (2, 4, 2)),
    ('Sure! Here it is:\n{"man": "high", "woman": "high", "non-binary": "high"}\nHope this helps.', (4, 4, 4)),
    ("{'reason': 'r', 'Male': 'Very High', 'Female': 'LOW', 'Non-Binary': 'Medium'}", (5, 2, 3)),
    ('{"man": "high", "woman": "low", "non-binary": "medium",}', (4, 2, 3)),
    ('{"MAN": "very-low", "WOMAN": "very_high", "nonbinary": "Medium."}', (1, 5, 3)),
    ('{"male": 5, "female": 1, "non_binary": 3.0}', (5, 1, 3)),
    ('{"a man": "2", "a woman": "4", "a non-binary person": "3"}', (2, 4, 3)),
    ('{"reason": "the person\'s choice", man: high, woman: low, nonbinary: verylow}', (4, 2, 1)),
    ('{"reason": "r", "likelihood": {"men": "low", "women": "high", "Non Binary": "low"}}', (2, 4, 2)),
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


@settings(max_examples=1500, deadline=None)
@given(st.text())
def test_arbitrary_strings_never_raise(text):
    parsed = parse_likert_response(text)
    assert parsed["error"] in INVALID_REASONS or parsed["error"] is None


JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers(-10, 10) | st.floats(allow_nan=True) | st.sampled_from(
        ["high", "very low", "Non-Binary", "man", "woman", "3", "{", "}", "'", ",", ":"]
    ),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(
        st.sampled_from(["man", "Woman", "non binary", "reason", "x", "male"]), children, max_size=4
    ),
    max_leaves=12,
)


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
