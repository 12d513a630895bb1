"""Generation stops where the answer closes, and no well-formed answer is cut early: every
generated answer reads the same after a backend cuts it at the tasks' stop sequences."""

from __future__ import annotations

import pytest
import yaml
from support.likert_outputs import WELL_FORMED_STYLES, corpus, cut_at_stop

from symphony_bench.plugin.core.task_folders import tasks_path
from symphony_bench.plugin.symphony_bias.parser import parse_likert_response
from symphony_bench.plugin.symphony_bias.prompts import STOP_SEQUENCES

LIKERT_YAMLS = (
    "lm_eval/symphony_bias/_symphony_bias_common_yaml",
    "lm_eval/symphony_bias/symphony_bias_text_noreason.yaml",
    "lm_eval/symphony_bias/symphony_bias_text_noreason_mini.yaml",
    "lmms_eval/symphony_bias_multimodal/_audio_likert_yaml",
    "lmms_eval/symphony_bias_multimodal/_image_likert_yaml",
)


@pytest.mark.parametrize("relative", LIKERT_YAMLS)
def test_every_likert_task_stops_at_the_shared_stop_sequences(relative):
    config = yaml.load(
        (tasks_path().parent / relative).read_text(encoding="utf-8"), Loader=yaml.BaseLoader
    )
    assert tuple(config["generation_kwargs"]["until"]) == STOP_SEQUENCES


@pytest.mark.slow  # a seeded corpus of dressed answers
def test_no_well_formed_answer_is_cut_early_or_read_differently():
    rows = corpus(21_000, seed=5)
    assert {style for style, _, _ in rows} == set(WELL_FORMED_STYLES)
    for style, text, values in rows:
        whole, cut = (
            parse_likert_response(text),
            parse_likert_response(cut_at_stop(text, STOP_SEQUENCES)),
        )
        expected = {"error": None, **values}
        assert whole == expected, (style, text)
        assert cut == expected, (style, text, cut_at_stop(text, STOP_SEQUENCES))


def test_an_answer_cut_inside_a_string_by_the_budget_stays_truncated():
    assert (
        parse_likert_response('{"reason": "x", "man": "high", "woman": "low", "non-binary": "med')[
            "error"
        ]
        == "truncated"
    )
    assert parse_likert_response('Sure: {"reason": "The harp is')["error"] == "truncated"
