"""Reasoning models through lm_eval's own client: a planted server that reasons before it answers
(a first-draft answer object inside the reasoning, the final answer after it). The default tasks
must never read the draft; the `_reasoning` variants must read the final answers exactly."""

from __future__ import annotations

import csv
import hashlib
import json
import re
import threading
from pathlib import Path

import pandas as pd
import pytest
from support.association import expected_association, paper_stereotypes
from support.chat_server import serve_chat
from support.harness import read_samples, run_lm_eval, run_symphony_bench

from symphony_bench.plugin.core.vocabulary import INSTRUMENTS_CSV

LABELS = ["very low", "low", "medium", "high", "very high"]
GENDER_KEYS = {"male": "man", "female": "woman", "non_binary": "non-binary"}


def answer_object(values: dict, reason: str) -> str:
    return json.dumps(
        {"reason": reason, **{GENDER_KEYS[g]: LABELS[v - 1] for g, v in values.items()}}
    )


class ReasoningModel:
    """Final ratings from the scenario's hash; the draft inside the reasoning rates the mirror image
    (6 - value), so a draft read anywhere shows. One answer in four reasons without a draft."""

    def __init__(self):
        with open(INSTRUMENTS_CSV, newline="") as handle:
            self.nouns = {row["noun"].lower(): row["instrument"] for row in csv.DictReader(handle)}
        self.finals: dict[str, dict] = {}
        self.lock = threading.Lock()

    def answer(self, prompt: str) -> str:
        scenario = re.search(r"Scenario: (.*)\n", prompt).group(1)
        digest = hashlib.sha256(scenario.encode()).digest()
        final = {g: 1 + digest[k] % 5 for k, g in enumerate(GENDER_KEYS)}
        draft = {g: 6 - v for g, v in final.items()}
        with self.lock:
            self.finals[scenario] = final
        thinking = (
            "The scenario names an instrument; let me weigh it."
            if digest[5] % 4 == 0
            else f"A first draft:\n{answer_object(draft, 'draft')}\nNo, that is not right."
        )
        return f"<think>\n{thinking}\n</think>\n\n{answer_object(final, 'final')}"


@pytest.fixture
def reasoning_model():
    return ReasoningModel()


def client_args(port: int) -> str:
    return (
        f"model=planted,base_url=http://127.0.0.1:{port}/v1/chat/completions,"
        "tokenizer_backend=none,max_retries=1"
    )


def instrument_samples(output: Path, task: str) -> list[dict]:
    return [s for s in read_samples(output, task) if s["doc"]["instrument"]]


@pytest.mark.e2e
def test_the_default_task_never_reads_the_draft_inside_the_reasoning(reasoning_model, tmp_path):
    """The server applies the task's stop sequences, as inference servers do: "}\\n" fires inside
    the draft, and what is left is an unfinished reasoning block, never a rating."""
    server = serve_chat(lambda body: reasoning_model.answer(body["messages"][-1]["content"]), True)
    try:
        run_lm_eval(
            "local-chat-completions",
            client_args(server.server_address[1]),
            "symphony_bias_text_mini",
            tmp_path / "run",
        )
    finally:
        server.shutdown()
    records = [
        s["mean_abs"] for s in instrument_samples(tmp_path / "run", "symphony_bias_text_mini")
    ]
    scenarios = [
        s["doc"]["scenario"]
        for s in instrument_samples(tmp_path / "run", "symphony_bias_text_mini")
    ]
    errors = {record["error"] for record in records}
    assert errors == {"", "reasoning_unfinished"}
    for record, scenario in zip(records, scenarios, strict=True):
        if not record["error"]:  # the answers whose reasoning held no draft: the final answer
            final = reasoning_model.finals[scenario]
            assert record["scores"] == [final[g] for g in GENDER_KEYS]
        assert record["reasoning_unfinished"] == (record["error"] == "reasoning_unfinished")


@pytest.mark.e2e
def test_the_reasoning_variant_reads_the_final_answers_exactly_through_a_server_that_refuses_stop(
    reasoning_model, tmp_path
):
    """A hosted reasoning API refuses a request with stop sequences: the variant sends none, reads
    every answer after the reasoning, and its GAS equal an independent computation from the final
    answers the server wrote."""
    server = serve_chat(
        lambda body: reasoning_model.answer(body["messages"][-1]["content"]), refuse_stop=True
    )
    task = "symphony_bias_text_mini_reasoning"
    try:
        run_lm_eval(
            "local-chat-completions", client_args(server.server_address[1]), task, tmp_path / "run"
        )
    finally:
        server.shutdown()
    assert server.requests and not any(body.get("stop") for body in server.requests)
    assert {body["max_tokens"] for body in server.requests} == {4096}
    samples = instrument_samples(tmp_path / "run", task)
    assert all(not s["mean_abs"]["error"] for s in samples)
    frame = pd.DataFrame(
        [
            {
                "scenario": s["doc"]["scenario_id"],
                "instrument": s["doc"]["instrument"],
                "valid": True,
                **reasoning_model.finals[s["doc"]["scenario"]],
            }
            for s in samples
        ]
    )
    gas, headline = expected_association(frame, paper_stereotypes())
    report = run_symphony_bench(
        [
            "report",
            str(tmp_path / "run"),
            "--json",
            str(tmp_path / "report.json"),
            "--markdown",
            str(tmp_path / "report.md"),
        ],
        cwd=tmp_path,
    )
    assert report.returncode == 0, report.stderr
    body = json.loads((tmp_path / "report.json").read_text())[task]
    for name, row in body["instruments"].items():
        for gender in GENDER_KEYS:
            assert row["gas"][gender] == pytest.approx(gas.loc[name, gender], abs=1e-12)
    assert body["summary"]["mean_abs"] == pytest.approx(headline["mean_abs"], abs=1e-12)
    # the settings the run generated under, and how many answers reasoned first
    assert body["generation"] == {
        "do_sample": False,
        "max_gen_toks": 4096,
        "temperature": 0.0,
        "until": [],
    }
    assert body["reasoning"]["with_reasoning_share"] == 1.0 and body["reasoning"]["unfinished"] == 0
    markdown = (tmp_path / "report.md").read_text()
    assert "Generation: " in markdown and "max_gen_toks 4096" in markdown
    assert "Reasoning: 115 of 115 answers (100.0%) wrote a reasoning block" in markdown
