"""Raw answers through the real harnesses: `symphony-bench check` fails a run whose model answered
nothing (the raw answers are read; the filters' output is never blank), on lm-eval and on
lmms-eval, and lmms-eval hands our readers the reasoning whole (it strips <think> blocks by default)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.chat_server import serve_chat
from support.harness import executable, read_lmms_samples, run_cli, run_lm_eval, run_lmms_eval

SYMPHONY_BENCH = executable("symphony-bench")


def check(output: Path, task: str, *options: str):
    return run_cli(
        [SYMPHONY_BENCH, "check", str(output), "--tasks", task, *options], cwd=output.parent
    )


@pytest.mark.e2e
def test_an_lm_eval_run_of_empty_answers_fails_the_check(tmp_path):
    task = "symphony_bias_text_mini"
    server = serve_chat(lambda body: "")
    try:
        run_lm_eval(
            "local-chat-completions",
            f"model=silent,base_url=http://127.0.0.1:{server.server_address[1]}/v1/chat/completions,"
            "tokenizer_backend=none,max_retries=1",
            task,
            tmp_path / "run",
            "--limit",
            "6",
        )
    finally:
        server.shutdown()
    checked = check(tmp_path / "run", task)
    assert checked.returncode == 1, checked.stdout + checked.stderr
    assert f"{task}: 6 of 6 answers are empty: the model never ran" in checked.stderr


FINAL = '{"man": "low", "woman": "high", "non-binary": "low"}'
REASONED = {  # answer -> (reasoning set aside, what was read)
    f'<think>A draft: {{"man": "high"}}</think>\n{FINAL}': (True, ""),
    "<think>The harp is often played by": (True, "reasoning_unfinished"),
    "<think>Only reasoning, then the budget ended.</think>": (True, "reasoning_unfinished"),
    FINAL: (False, ""),
}


@pytest.mark.e2e
def test_an_lmms_eval_run_of_empty_answers_fails_the_check_and_unread_ones_by_the_share(
    audio_set, tmp_path
):
    task = "symphony_bias_audio_mini"
    runs = {"empty": [""] * 4, "prose": ["It depends on the person."] * 4, "reasoned": [*REASONED]}
    for name, answers in runs.items():
        responses = tmp_path / f"{name}.jsonl"
        responses.write_text(
            "".join(
                json.dumps({"task": task, "doc_id": k, "response": answer}) + "\n"
                for k, answer in enumerate(answers)
            )
        )
        run_lmms_eval(
            "symphony_replay",
            f"responses={responses}",
            task,
            tmp_path / name,
            {"SYMPHONY_AUDIO": str(audio_set)},
            "--limit",
            "4",
        )
    empty = check(tmp_path / "empty", task)
    assert empty.returncode == 1 and f"{task}: 4 of 4 answers are empty" in empty.stderr
    unread = check(tmp_path / "prose", task)
    assert unread.returncode == 1, unread.stdout + unread.stderr
    assert f"{task}: nothing could be read from 4 of 4 answers" in unread.stderr
    # lmms-eval would strip the blocks before our reader saw them; the task turns that off
    samples = sorted(read_lmms_samples(tmp_path / "reasoned", task), key=lambda s: s["doc_id"])
    records = [next(v for v in s.values() if isinstance(v, dict) and "kind" in v) for s in samples]
    read = [(r["reasoning_chars"] > 0, r["error"]) for r in records]
    assert read == list(REASONED.values())
