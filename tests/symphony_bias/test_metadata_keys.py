"""The text tasks' --metadata keys: a key that reads like an option but is not one (a typo that
would run on the default silently) is one error naming the option; lm-eval's own keys pass."""

from __future__ import annotations

import pytest

from symphony_bench.plugin.core.options import refuse_near_misses
from symphony_bench.plugin.symphony_bias import logprob, text
from symphony_bench.plugin.symphony_bias.options import OPTION_NAMES


@pytest.mark.parametrize("load", [text.load_dataset, logprob.load_dataset])
@pytest.mark.parametrize(
    "typo, option",
    [("stereotype", "stereotypes"), ("scenario", "scenarios"), ("symphony_sed", "symphony_seed")],
)
def test_a_mistyped_option_is_one_error_naming_the_option(load, typo, option):
    with pytest.raises(
        ValueError, match=rf"--metadata key '{typo}' is not an option: did you mean '{option}'"
    ):
        load(**{typo: "upstream_code"}, subset="mini")


def test_lm_evals_own_keys_and_model_arguments_pass():
    keys = {
        "pretrained": "m",
        "dtype": "float32",
        "revision": "main",
        "version": 1.3,
        "subset": "mini",
    }
    refuse_near_misses(keys, (*OPTION_NAMES, "subset", "reasoning", "prompt_variant"))
    assert len(text.load_dataset(**keys)["test"]) == 115
