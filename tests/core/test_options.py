"""One name and one parser per option: metadata key, else SYMPHONY_<NAME>, else the default."""

import json
from pathlib import Path

import pytest

from symphony_bench.plugin.core.options import (
    Option,
    given_options,
    integer,
    options_table,
    read_options,
)
from symphony_bench.plugin.grounding.options import OPTIONS as GROUNDING_OPTIONS
from symphony_bench.plugin.symphony_bias.options import ALL_OPTIONS

SEED = Option("symphony_seed", 1234, "seed", integer)
SCENARIOS = Option("scenarios", None, "file")


def test_variable_names_follow_the_option_names():
    assert SEED.variable == "SYMPHONY_SEED" and SCENARIOS.variable == "SYMPHONY_SCENARIOS"
    assert {option.variable for option in ALL_OPTIONS + GROUNDING_OPTIONS} >= {
        "SYMPHONY_AUDIO",
        "SYMPHONY_GROUNDING",
    }


def test_metadata_wins_over_the_environment_which_wins_over_the_default():
    assert read_options((SEED, SCENARIOS), {}, {}) == {"symphony_seed": 1234, "scenarios": None}
    assert read_options((SEED,), {}, {"SYMPHONY_SEED": "7"}) == {"symphony_seed": 7}
    assert read_options((SEED,), {"symphony_seed": 9}, {"SYMPHONY_SEED": "7"}) == {
        "symphony_seed": 9
    }


@pytest.mark.parametrize(
    "metadata, environ, message",
    [
        ({"symphony_seed": "x"}, {}, "--metadata key 'symphony_seed': must be an integer"),
        ({}, {"SYMPHONY_SEED": "1.5"}, "environment variable SYMPHONY_SEED: must be an integer"),
    ],
)
def test_bad_values_are_one_clear_error(metadata, environ, message):
    with pytest.raises(ValueError, match=message):
        read_options((SEED,), metadata, environ)


def test_the_docs_hold_the_table_of_every_option():
    """docs/reasoning-models-and-caches.md, "Task options": the one place the table is kept."""
    docs = Path(__file__).resolve().parents[2] / "docs" / "reasoning-models-and-caches.md"
    page = docs.read_text(encoding="utf-8")
    for row in options_table(ALL_OPTIONS + GROUNDING_OPTIONS):
        assert row in page


def test_given_options_name_what_was_given_and_where_the_metadata_wins():
    seed, folder = Option("symphony_seed", 1234, "seed"), Option("audio", None, "set")
    environ = {"SYMPHONY_SEED": " 7 ", "SYMPHONY_AUDIO": ""}
    assert json.loads(given_options((seed, folder), {}, environ)) == {
        "symphony_seed": "7",
        "audio": None,
    }
    assert json.loads(given_options((seed, folder), {"symphony_seed": 99}, environ)) == {
        "symphony_seed": "99",
        "audio": None,
    }
