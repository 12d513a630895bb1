"""The doc browser's rows from samples lines as the harnesses log them: a chat run's prompt (lm-eval
logs the chat-formatted messages as JSON inside a list, which left the prompt empty before), the raw
answer before any filter, log-likelihoods labelled with their continuation, and the open-ended
reader's evidence spans kept only where they lie inside the reply."""

from __future__ import annotations

import json

from symphony_bench.plugin.runs.doc_browser import (
    decoded_part,
    encoded_parts,
    evidence_spans,
    prompt_text,
    raw_answer,
    reading_text,
    short_reading,
)

MESSAGES = [
    {"role": "system", "content": "You are helpful."},
    {"role": "user", "content": "A harpist is playing.\nContinue this story."},
]


def test_a_chat_runs_prompt_is_its_messages():
    sample = {"arguments": {"gen_args_0": {"arg_0": [json.dumps(MESSAGES)], "arg_1": {}}}}
    assert prompt_text(sample) == (
        "system: You are helpful.\n\nuser: A harpist is playing.\nContinue this story."
    )


def test_plain_and_lmms_eval_prompts_are_their_context():
    assert (
        prompt_text({"arguments": {"gen_args_0": {"arg_0": "[not json", "arg_1": {}}}})
        == "[not json"
    )
    assert (
        prompt_text({"arguments": ["Which instrument?", {"max_new_tokens": 8}]})
        == "Which instrument?"
    )
    assert prompt_text({"input": "older lmms-eval"}) == "older lmms-eval"
    assert prompt_text({}) == ""


def test_the_answer_is_the_raw_reply_not_the_filters_output():
    sample = {"resps": [["She smiled and played."]], "filtered_resps": ["{'reference': 'female'}"]}
    assert raw_answer(sample) == "She smiled and played."


def test_log_likelihoods_are_labelled_with_their_continuation():
    sample = {
        "arguments": {
            "gen_args_0": {"arg_0": "The harpist is", "arg_1": " a man"},
            "gen_args_1": {"arg_0": "The harpist is", "arg_1": " a woman"},
        },
        "resps": [[["-3.5", "False"]], [["-1.25", "True"]]],
    }
    assert raw_answer(sample) == "' a man': log-likelihood -3.5\n' a woman': log-likelihood -1.25"


def test_evidence_spans_inside_the_reply_are_kept_and_others_dropped():
    reply = "The harpist smiled. She played."
    assert evidence_spans({}, reply) == []
    assert evidence_spans({"evidence_spans": "bad"}, reply) == []
    spans = [[20, 23], [5, 100], [3, 3], ["a", 2], [True, 4], (0, 3)]
    assert evidence_spans({"evidence_spans": spans}, reply) == [[20, 23], [0, 3]]


def test_readings_are_labelled_and_shortened_for_the_filter():
    assert (
        reading_text({"scores": [4, 2, 2], "error": ""}) == "scores: male 4, female 2, non-binary 2"
    )
    assert reading_text({"scores": [0.25, 0.5, 0.25]}) == (
        "scores: male 0.250, female 0.500, non-binary 0.250"
    )
    assert short_reading({"scores": [4, 2, 2]}) == "male highest"
    assert short_reading({"scores": [3, 3, 1]}) == "tie"
    assert short_reading({"reference": "female", "evidence": ["she"]}) == "female"
    assert short_reading({"scores": None, "error": "no_json"}) == ""


def test_rows_survive_the_pages_compression_in_parts():
    rows = [
        {
            "task": "t",
            "doc_id": 0,
            "prompt": "p",
            "answer": "</script>",
            "spans": [],
            "reading": "",
            "read": "",
            "reason": "no_json",
            "fields": {"instrument": "harp"},
        },
    ]
    meta, parts = encoded_parts(rows * 5001)
    assert meta["total"] == 5001 and meta["filters"]["reason"] == ["no_json"]
    assert len(parts) == 2 and [row for part in parts for row in decoded_part(part)] == rows * 5001


def test_the_embedded_rows_are_the_same_bytes_whenever_written():
    """gzip stamps the time into its header unless told not to: a report written twice from the
    same run would differ (and a killed report could not be told from a whole one)."""
    import base64

    from symphony_bench.plugin.runs.doc_browser import encoded_parts

    rows = [{"task": "t", "doc_id": 0, "answer": "a", "read": "", "reason": "", "fields": {}}]
    _, parts = encoded_parts(rows)
    assert base64.b64decode(parts[0])[4:8] == bytes(4)
