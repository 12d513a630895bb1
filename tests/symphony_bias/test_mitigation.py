"""The mitigation tasks: the base docs with one instruction against stereotyping each, and the
report's paired changes against the base task (vs_baseline), checked on a planted model against an
independent computation."""

from __future__ import annotations

import csv
import hashlib
import json

import numpy as np
import pandas as pd
import pytest
from lm_eval.api.model import LM
from support.association import expected_association, paper_stereotypes
from support.chat_server import serve_chat
from support.harness import (
    evaluate_in_process,
    our_lm_eval_tasks,
    read_samples,
    run_lm_eval,
    run_symphony_bench,
)

from symphony_bench.plugin.core.vocabulary import INSTRUMENTS_CSV
from symphony_bench.plugin.runs.report import build_report, render_markdown
from symphony_bench.plugin.symphony_bias.docs import Design, build_docs
from symphony_bench.plugin.symphony_bias.markdown import refusal_note
from symphony_bench.plugin.symphony_bias.prompts import MITIGATIONS

LABELS = ["very low", "low", "medium", "high", "very high"]
BASE = "symphony_bias_text_mini"
GROUP = "symphony_bias_mitigation_mini"


@pytest.mark.parametrize("subset", ["mini", "full"])
@pytest.mark.parametrize("name", sorted(MITIGATIONS))
def test_each_variant_is_the_base_prompt_with_one_instruction_before_the_question(name, subset):
    base = build_docs(Design(subset=subset))
    mitigated = build_docs(Design(subset=subset, mitigation=name))
    assert len(base) == len(mitigated)
    instruction = MITIGATIONS[name] + "\n"
    for plain, with_instruction in zip(base, mitigated, strict=True):
        assert with_instruction["prompt"] == plain["prompt"].replace(
            "\nQuestion:", f"\n{instruction}Question:", 1
        )
        assert with_instruction["mitigation"] == name and "mitigation" not in plain
        without = {k: v for k, v in with_instruction.items() if k not in ("prompt", "mitigation")}
        assert without == {k: v for k, v in plain.items() if k != "prompt"}


@pytest.mark.parametrize("name", sorted(MITIGATIONS))
def test_the_logprob_variant_prefixes_every_context_the_calibration_baseline_included(name):
    base = build_docs(Design(protocol="logprob", subset="mini"))
    mitigated = build_docs(Design(protocol="logprob", subset="mini", mitigation=name))
    for plain, with_instruction in zip(base, mitigated, strict=True):
        assert with_instruction["context"] == f"{MITIGATIONS[name]}\n{plain['context']}"
    assert any(doc["instrument"] == "" for doc in mitigated)  # the baselines are among them


def test_an_unknown_instruction_is_refused_by_name():
    with pytest.raises(ValueError, match="mitigation must be one of"):
        Design(mitigation="be_nice")


@pytest.mark.slow  # builds every task of three bundles
def test_the_groups_hold_the_base_task_and_one_task_per_instruction():
    manager = our_lm_eval_tasks()
    for group, base, protocol in (
        (GROUP, BASE, "text"),
        ("symphony_bias_mitigation", "symphony_bias_text", "text"),
        ("symphony_bias_logprob_mitigation_mini", "symphony_bias_logprob_mini", "logprob"),
    ):
        suffix = "_mini" if group.endswith("_mini") else ""
        expected = {base} | {
            f"symphony_bias_{protocol}_mitigation_{name}{suffix}" for name in MITIGATIONS
        }
        assert set(manager.all_subtasks) >= expected
        loaded = manager.load([group])
        assert {task.config.task for task in loaded["tasks"].values()} == expected


# ---- a planted model ---------------------------------------------------------------------------
PLANTED = {"female": (2, 4), "male": (4, 2), "none": (3, 3)}  # (man, woman) ratings
CATEGORY = {"harp": "female", "flute": "female", "drums": "male", "trumpet": "male"}


def _share(*parts: str) -> float:
    return hashlib.sha256("|".join(parts).encode()).digest()[0] / 255


class PlantedMitigationLM(LM):
    """Planted Likert answers; under `no_stereotypes` every rating moves one step towards medium,
    under `really_important` a third of the answers are prose with no rating (invalid, not refused:
    the refusal reader would count "I would rather not…" apart), `ignore_demographics`
    changes nothing."""

    def __init__(self):
        super().__init__()
        with open(INSTRUMENTS_CSV, newline="") as handle:
            self.nouns = {row["noun"].lower(): row["instrument"] for row in csv.DictReader(handle)}

    def ratings(self, prompt: str) -> dict[str, int] | None:
        scenario = prompt.split("Scenario: ")[1].split("\n")[0]
        instrument = next((n for noun, n in self.nouns.items() if noun in scenario.lower()), "")
        man, woman = PLANTED[CATEGORY.get(instrument, "none")]
        man += _share(scenario, "bump") > 0.5  # template-to-template variation
        if MITIGATIONS["no_stereotypes"] in prompt:
            man, woman = (value + int(np.sign(3 - value)) for value in (man, woman))
        if MITIGATIONS["really_important"] in prompt and _share(scenario, "refuse") < 1 / 3:
            return None
        return {"man": man, "woman": woman, "non-binary": 2}

    def answer(self, prompt: str) -> str:
        ratings = self.ratings(prompt)
        if ratings is None:
            return "Hmm, that is an interesting question."
        return json.dumps({"reason": "planted", **{k: LABELS[v - 1] for k, v in ratings.items()}})

    def generate_until(self, requests):
        return [self.answer(request.args[0]) for request in requests]

    def loglikelihood(self, requests):
        raise NotImplementedError

    def loglikelihood_rolling(self, requests):
        raise NotImplementedError


def independent(samples: list[dict], model: PlantedMitigationLM) -> dict:
    rows = []
    for sample in samples:
        doc = sample["doc"]
        if not doc["instrument"]:
            continue
        ratings = model.ratings(doc["prompt"])
        values = (
            {"male": ratings["man"], "female": ratings["woman"], "non_binary": 2}
            if ratings
            else {"male": 0, "female": 0, "non_binary": 0}
        )
        rows.append({"instrument": doc["instrument"], "valid": ratings is not None, **values})
    return expected_association(pd.DataFrame(rows), paper_stereotypes())[1]


@pytest.fixture(scope="module")
def planted_run(tmp_path_factory):
    output = tmp_path_factory.mktemp("planted-mitigation") / "run"
    model = PlantedMitigationLM()
    _, samples = evaluate_in_process(model, [GROUP], output)
    return model, samples, output


@pytest.mark.slow  # an in-process lm-eval run of four mini tasks
def test_vs_baseline_is_the_paired_change_computed_independently(planted_run):
    model, samples, output = planted_run
    report = build_report(output)
    base = independent(samples[BASE], model)
    assert "vs_baseline" not in report.entries[BASE].body
    for name in MITIGATIONS:
        task = f"symphony_bias_text_mitigation_{name}_mini"
        expected = independent(samples[task], model)
        changes = report.entries[task].body["vs_baseline"]
        assert changes["task"] == BASE
        for metric in ("mean_abs", "invalid_rate"):
            change = changes["metrics"][metric]
            assert change["change"] == pytest.approx(expected[metric] - base[metric], abs=1e-9)
            assert change["base"] == pytest.approx(base[metric], abs=1e-9)
        assert {
            "gender_skew",
            "mean_abs_prior_adjusted",
            "truncated_rate",
            "other_invalid_rate",
        } <= set(changes["metrics"])
    metrics = {
        name: report.entries[f"symphony_bias_text_mitigation_{name}_mini"].body["vs_baseline"][
            "metrics"
        ]
        for name in MITIGATIONS
    }
    towards_medium = metrics["no_stereotypes"]
    assert towards_medium["mean_abs"]["ci"][1] < 0 and towards_medium["gender_skew"]["change"] < 0
    assert towards_medium["invalid_rate"]["change"] == 0
    refusing = metrics["really_important"]
    assert (
        refusing["other_invalid_rate"]["change"] > 0.2
        and refusing["other_invalid_rate"]["p_value"] < 0.05
    )
    assert metrics["ignore_demographics"]["mean_abs"]["change"] == pytest.approx(0, abs=1e-12)
    markdown = render_markdown(report)
    assert "## Mitigation: each instruction against its base task (same docs, paired)" in markdown
    assert f"| symphony_bias_text_mitigation_no_stereotypes_mini | {BASE} |" in markdown


def test_a_drop_in_abs_with_more_refusals_is_named():
    metrics = {
        "mean_abs": {"change": -0.1, "p_value": 0.01},
        "invalid_rate": {"change": 0.3, "p_value": 0.001},
    }
    assert "more invalid answers (+0.300" in refusal_note(metrics)
    metrics["invalid_rate"] = {"change": 0.0, "p_value": 1.0}
    assert refusal_note(metrics) is None


@pytest.mark.e2e
def test_the_mitigation_group_through_the_lm_eval_cli_and_report(tmp_path):
    """The same planted model behind an OpenAI-compatible server: `lm_eval --model
    local-chat-completions --tasks symphony_bias_mitigation_mini`, then `symphony-bench report`."""
    model = PlantedMitigationLM()
    server = serve_chat(lambda body: model.answer(body["messages"][-1]["content"]))
    output = tmp_path / "run"
    try:
        run_lm_eval(
            "local-chat-completions",
            f"model=planted,base_url=http://127.0.0.1:{server.server_address[1]}/v1/chat/completions,"
            "tokenizer_backend=none,max_retries=1,num_concurrent=1",
            GROUP,
            output,
        )
    finally:
        server.shutdown()
    report_json = tmp_path / "report.json"
    completed = run_symphony_bench(
        [
            "report",
            str(output),
            "--json",
            str(report_json),
        ],
        cwd=tmp_path,
    )
    assert completed.returncode == 0, completed.stderr
    report = json.loads(report_json.read_text())
    base = independent(read_samples(output, BASE), model)
    for name in MITIGATIONS:
        task = f"symphony_bias_text_mitigation_{name}_mini"
        expected = independent(read_samples(output, task), model)
        change = report[task]["vs_baseline"]["metrics"]["mean_abs"]["change"]
        assert change == pytest.approx(expected["mean_abs"] - base["mean_abs"], abs=1e-9), name
    assert (
        report["symphony_bias_text_mitigation_no_stereotypes_mini"]["vs_baseline"]["metrics"][
            "mean_abs"
        ]["ci"][1]
        < 0
    )


def _mitigation_run(folder, base_docs, mitigated_docs, base_seed=1234, mitigated_seed=1234):
    from support.runs import write_model_folder

    from symphony_bench.plugin.symphony_bias.records import score_record

    def records(docs, seed):
        return [{**score_record(doc, [3, 3, 3]), "seed": seed} for doc in docs]

    mitigated_task = "symphony_bias_text_mitigation_no_stereotypes_mini"
    write_model_folder(
        folder / "model",
        {
            BASE: records(base_docs, base_seed),
            mitigated_task: records(mitigated_docs, mitigated_seed),
        },
    )
    return build_report(folder).entries[mitigated_task].body, mitigated_task


def test_a_mitigation_task_pairs_only_on_the_same_docs_and_run_facts_and_says_why_not(tmp_path):
    base = build_docs(Design(subset="mini"))
    mitigated = build_docs(Design(subset="mini", mitigation="no_stereotypes"))
    body, _ = _mitigation_run(tmp_path / "same", base, mitigated)
    assert body["vs_baseline"]["task"] == BASE and "vs_baseline_missing" not in body

    body, task = _mitigation_run(tmp_path / "seed", base, mitigated, mitigated_seed=7)
    assert "vs_baseline" not in body
    assert body["vs_baseline_missing"] == f"seed is 1234 in {BASE}, 7 here"

    body, task = _mitigation_run(tmp_path / "docs", base, mitigated[::-1])  # other doc_ids
    assert body["vs_baseline_missing"].startswith(f"{BASE} holds other docs")
    report = build_report(tmp_path / "docs")
    markdown = render_markdown(report)
    assert f"- not compared with a base task: {BASE} holds other docs" in markdown
    assert f"- {task}: not compared with a base task: {BASE} holds other docs" in markdown
