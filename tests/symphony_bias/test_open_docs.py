"""The open-ended protocol's docs: the Likert tasks' scenarios, instruments, units and control docs,
with a prompt that asks for a story and never names gender."""

from __future__ import annotations

import re

import pytest

from symphony_bench.plugin.symphony_bias.docs import Design, build_docs
from symphony_bench.plugin.symphony_bias.prompts import OPEN_WORDINGS

IDENTITY = ("scenario_id", "template_id", "instrument", "stereotype", "scenario")
GENDER_WORDS = re.compile(
    r"\b(gender|man|woman|men|women|male|female|he|she|his|her|they|them|binary)\b", re.IGNORECASE
)


@pytest.mark.parametrize("subset", ["mini", "full"])
def test_open_docs_are_the_likert_docs_with_a_story_prompt(subset):
    likert = build_docs(Design(subset=subset))
    for variant in range(len(OPEN_WORDINGS)):
        docs = build_docs(Design(protocol="open", subset=subset, prompt_variant=variant))
        assert [tuple(d[k] for k in IDENTITY) for d in docs] == [
            tuple(d[k] for k in IDENTITY) for d in likert
        ]
        for doc in docs:
            assert doc["prompt"] == OPEN_WORDINGS[variant].format(scenario=doc["scenario"])
            assert doc["prompt_variant"] == variant
            assert not GENDER_WORDS.search(doc["prompt"]), doc["prompt"]


def test_the_open_protocol_has_its_own_wordings_and_no_mitigation():
    with pytest.raises(ValueError, match="prompt_variant must be in 0..2"):
        Design(protocol="open", prompt_variant=3)
    with pytest.raises(ValueError, match="no mitigation"):
        Design(protocol="open", mitigation="no_stereotypes")
