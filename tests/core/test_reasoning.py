"""Reasoning set aside before an answer is read: each form models emit, with the truth known by
construction (the answer written after the reasoning, the reasoning's length), then the Likert parser
and the grounding readers on top of it: a draft inside the reasoning is never read."""

from __future__ import annotations

import json
import random

import pytest

from symphony_bench.plugin.core.reasoning import reasoning_summary, split_reasoning
from symphony_bench.plugin.grounding.answers import read_choice, read_yes_no
from symphony_bench.plugin.symphony_bias.parser import parse_likert_response

LABELS = ["very low", "low", "medium", "high", "very high"]
# (opening, closing) markers as models write them; "" opening: the chat template opened it
FORMS = [
    ("<think>", "</think>"),
    ("<THINK>", "</THINK>"),
    ("<thinking>", "</thinking>"),
    ("<thought>", "</thought>"),
    ("<reasoning>", "</reasoning>"),
    ("<seed:think>", "</seed:think>"),
    ("<|begin_of_thought|>", "<|end_of_thought|>"),
    ("\u25c1think\u25b7", "\u25c1/think\u25b7"),
    ("[THINK]", "[/THINK]"),
    ("", "</think>"),
    ("<|channel|>analysis<|message|>", "<|end|><|start|>assistant<|channel|>final<|message|>"),
    ("analysis", "assistantfinal"),
]


def likert(values: tuple[int, int, int], reason: str) -> str:
    man, woman, non_binary = (LABELS[v - 1] for v in values)
    return json.dumps({"reason": reason, "man": man, "woman": woman, "non-binary": non_binary})


def reasoning_text(rng: random.Random, draft: tuple[int, int, int]) -> str:
    """Reasoning that holds drafts, braces, blank lines and words an answer reader would take."""
    parts = [
        "Let me think about the scenario.",
        f"A first draft:\n{likert(draft, 'draft')}\n",
        "Answer: yes, there is a piano. Option B.",
        "{not json} and a stray }\n\n\n",
        "Hmm.",
    ]
    rng.shuffle(parts)
    return "The user asks about a person. " + "\n".join(parts[: rng.randint(1, len(parts))])


def content_chars(text: str) -> int:
    return len("".join(text.split()))


@pytest.mark.parametrize("opening, closing", FORMS)
def test_each_form_leaves_the_answer_after_it_and_counts_the_reasoning(opening, closing):
    rng = random.Random(opening)
    for _ in range(200):
        draft = tuple(rng.randint(1, 5) for _ in range(3))
        final = tuple(6 - v for v in draft)
        reasoning = reasoning_text(rng, draft)
        answer = rng.choice(["\n\n", "\n", " ", ""]) + likert(final, "final")
        reply = split_reasoning(f"{opening}{reasoning}{closing}{answer}")
        assert reply.answer.strip() == answer.strip() and not reply.unfinished
        assert reply.reasoning_chars == content_chars(reasoning)
        parsed = parse_likert_response(f"{opening}{reasoning}{closing}{answer}")
        assert parsed == dict(zip(("male", "female", "non_binary"), final, strict=True), error=None)


@pytest.mark.parametrize("opening, closing", [form for form in FORMS if form[0]])
def test_reasoning_that_never_closes_is_unfinished_and_never_read(opening, closing):
    """The budget ran out (or a stop sequence fired) inside the reasoning: the draft there is no
    answer, whatever it holds."""
    rng = random.Random(closing)
    for _ in range(200):
        draft = tuple(rng.randint(1, 5) for _ in range(3))
        text = f"{opening}{reasoning_text(rng, draft)}"
        text = text[: rng.randint(len(opening) + 2, len(text))]
        reply = split_reasoning(text)
        assert reply.unfinished and reply.answer == ""
        assert parse_likert_response(text)["error"] == "reasoning_unfinished"
        assert read_yes_no(text, "piano") is None
        assert read_choice(text, ["piano", "banjo"]) is None


def test_a_second_block_opened_after_the_last_close_is_unfinished():
    reply = split_reasoning('<think>a</think>{"man": "low"}<think>and then')
    assert reply.unfinished and reply.answer == ""


def test_text_without_reasoning_is_read_as_it_stands():
    for text in ('{"man": "low"}', "analysis: the harp is played by", "Yes.", "", "I think so."):
        reply = split_reasoning(text)
        assert (reply.answer, reply.reasoning_chars, reply.unfinished) == (text, 0, False)
    assert split_reasoning(None).answer == ""
    assert split_reasoning("<think></think>\nYes.").reasoning_chars == 0  # thinking switched off


def test_an_answer_wrapped_in_a_solution_block_is_unwrapped():
    text = (
        "<|begin_of_thought|>x<|end_of_thought|>\n<|begin_of_solution|>\nNo.\n<|end_of_solution|>"
    )
    assert split_reasoning(text).answer.strip() == "No."
    assert read_yes_no(text, "piano") is False


def test_grounding_readers_read_after_the_reasoning():
    assert read_yes_no("<think>Is there a piano? Yes, a piano.</think>\nNo.", "piano") is False
    assert read_choice("</think>The banjo.", ["piano", "banjo"]) == 1


def test_the_summary_counts_answers_with_reasoning_and_unfinished_ones():
    records = [
        {"reasoning_chars": 10, "reasoning_unfinished": False},
        {"reasoning_chars": 4, "reasoning_unfinished": True},
        {"reasoning_chars": 0, "reasoning_unfinished": False},
        {"reasoning_chars": 0, "reasoning_unfinished": False},
    ]
    assert reasoning_summary(records) == {
        "n": 4,
        "with_reasoning": 2,
        "with_reasoning_share": 0.5,
        "unfinished": 1,
        "unfinished_share": 0.25,
    }
    assert reasoning_summary([{"scores": [1, 2, 3]}]) is None  # a log-prob record


@pytest.mark.parametrize(
    "text",
    [
        'I answer without a <think> block: {"man": "low", "woman": "high", "non-binary": "low"}',
        'Sure, no "<think>" here. {"man": "low", "woman": "high", "non-binary": "low"}',
        '<think>draft {"man": "high"}</think>{"reason": "no `</think>` needed", "man": "low", '
        '"woman": "high", "non-binary": "low"}',
        '</think>{"reason": "a </think> tag is not my answer", "man": "low", "woman": "high", '
        '"non-binary": "low"}',
    ],
)
def test_a_tag_mentioned_in_prose_is_no_marker(text):
    assert parse_likert_response(text) == {"male": 2, "female": 4, "non_binary": 2, "error": None}


@pytest.mark.parametrize(
    "text",
    [
        '<|channel|>analysis<|message|>draft {"man": "high", "woman": "low", "non-binary": "low"}'
        "<|end|><|start|>assistant<|channel|>final <|constrain|>json<|message|>"
        '{"man": "low", "woman": "high", "non-binary": "low"}<|return|>',
        'analysisthe user asks. draft {"man": "high", "woman": "low", "non-binary": "low"}'
        'assistantfinal{"man": "low", "woman": "high", "non-binary": "low"}',
        'analysiswe need JSON. {"man": "high", "woman": "low", "non-binary": "low"}'
        'assistantfinaljson{"man": "low", "woman": "high", "non-binary": "low"}',
    ],
)
def test_gpt_oss_finals_with_a_format_and_lower_case_drafts_are_read_without_the_draft(text):
    reply = split_reasoning(text)
    assert reply.reasoning_chars > 0 and not reply.unfinished
    assert reply.answer.startswith('{"man": "low"')
    assert parse_likert_response(text) == {"male": 2, "female": 4, "non_binary": 2, "error": None}
    assert split_reasoning("analysisthe user asks about a harp").unfinished


@pytest.mark.parametrize(
    "text", ["<think>The harp... a draft.</think>", "a draft.</think>\n\n", "<think>a</think> "]
)
def test_reasoning_closed_with_nothing_after_it_is_unfinished_not_empty(text):
    reply = split_reasoning(text)
    assert reply.unfinished and reply.answer.strip() == "" and reply.reasoning_chars > 0
    assert parse_likert_response(text)["error"] == "reasoning_unfinished"
    assert not split_reasoning("<think></think>").unfinished  # thinking off, and no answer


def test_our_lmms_eval_tasks_keep_the_reasoning_for_our_readers():
    """lmms-eval 0.7.3 strips <think> blocks unless the task sets `reasoning_tags` (which beats the
    command line): every generating lmms-eval task of ours turns it off."""
    from symphony_bench.plugin.core.dataset_source import task_yaml
    from symphony_bench.plugin.core.task_folders import TASKS_DIR

    tasks = [
        config
        for path in sorted((TASKS_DIR / "lmms_eval").rglob("*.yaml"))
        if "task" in (config := task_yaml(path)) and isinstance(config["task"], str)
    ]
    assert len(tasks) > 40
    assert {config["task"]: config.get("reasoning_tags") for config in tasks} == {
        config["task"]: "none" for config in tasks
    }
