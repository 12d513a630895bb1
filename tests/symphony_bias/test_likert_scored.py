"""symphony_bias_likert_scored: the Likert question read by log-likelihood. Its requests (one context
per gender, the five labels), a planted model against an independent computation, the report's
protocol agreement, and the real CLI on a tiny model."""

from __future__ import annotations

import csv
import hashlib
import json
import re

import numpy as np
import pandas as pd
import pytest
from lm_eval.api.model import LM
from lm_eval.tasks import TaskManager
from scipy import stats
from scipy.special import softmax
from support.association import expected_association, paper_stereotypes
from support.harness import (
    evaluate_in_process,
    our_lm_eval_tasks,
    read_results,
    read_samples,
    run_lm_eval,
    run_symphony_bench,
)

from symphony_bench.plugin.core.vocabulary import INSTRUMENTS_CSV
from symphony_bench.plugin.symphony_bias.docs import Design, build_docs
from symphony_bench.plugin.symphony_bias.likert_scored import process_results
from symphony_bench.plugin.symphony_bias.records import (
    LIKERT_SCORED,
    record_problem,
    records_valid,
)

TASK = "symphony_bias_likert_scored_mini"
GENDERS = ("male", "female", "non_binary")
KEYS = {"man": "male", "woman": "female", "non-binary": "non_binary"}
LABELS = ["very low", "low", "medium", "high", "very high"]


@pytest.fixture(scope="module")
def task_manager() -> TaskManager:
    return our_lm_eval_tasks()


def _task(task_manager):
    return task_manager.load([TASK])["tasks"][TASK]


def _fake_chat_template(messages: list[dict], add_generation_prompt: bool = True) -> str:
    turns = "".join(f"<{m['role']}>{m['content']}" for m in messages)
    return turns + ("<assistant>" if add_generation_prompt else "")


# ---- the requests ------------------------------------------------------------------------------


@pytest.mark.parametrize("chat", [False, True])
def test_each_doc_asks_five_labels_after_one_context_per_gender(task_manager, chat):
    task = _task(task_manager)
    task.build_all_requests(
        limit=3,
        apply_chat_template=chat,
        chat_template=_fake_chat_template if chat else None,
    )
    noreason = build_docs(Design(reasoning=False, subset="mini"))
    by_doc: dict[int, list] = {}
    for instance in task.instances:
        by_doc.setdefault(instance.doc_id, []).append(instance)
    assert sorted(by_doc) == [0, 1, 2]
    for doc_id, instances in by_doc.items():
        instances.sort(key=lambda instance: instance.idx)
        assert [i.idx for i in instances] == list(range(15))
        assert [i.arguments[1] for i in instances] == LABELS * 3
        prompt = noreason[doc_id]["prompt"]
        contexts = [instances[5 * k].arguments[0] for k in range(3)]
        for k, gender_key in enumerate(("man", "woman", "non-binary")):
            assert all(i.arguments[0] == contexts[k] for i in instances[5 * k : 5 * k + 5])
            opened = '{"' + gender_key + '": "'
            if chat:  # the prompt is the user turn; the opened answer object starts the assistant's
                assert contexts[k] == f"<user>{prompt}<assistant>{opened}"
            else:
                assert contexts[k] == f"{prompt}\n{opened}"


def test_docs_are_the_text_tasks_docs_with_the_answer_format_that_gives_no_reason(task_manager):
    docs = list(_task(task_manager).eval_docs)
    text = build_docs(Design(subset="mini"))
    noreason = build_docs(Design(reasoning=False, subset="mini"))
    assert len(docs) == len(text) == 115
    for ours, generated, plain in zip(docs, text, noreason, strict=True):
        for field in ("scenario_id", "instrument", "gender_order", "stereotype"):
            assert ours[field] == generated[field]
        assert ours["prompt"] == plain["prompt"] and "reason" not in ours["prompt"]


# ---- process_results against a hand computation ------------------------------------------------


def test_expected_values_and_most_likely_labels_from_the_log_likelihoods():
    doc = build_docs(Design(subset="mini"))[1]
    lls = np.log(
        [
            [0.1, 0.2, 0.4, 0.2, 0.1],  # expected 3.0, most likely medium
            [0.5, 0.5 - 1e-9, 1e-9, 0.0 + 1e-12, 0.0 + 1e-12],  # expected ~1.5, very low
            [0.0 + 1e-12, 0.0 + 1e-12, 0.0 + 1e-12, 0.25, 0.75],  # expected ~4.75, very high
        ]
    )
    record = process_results(doc, [(ll, False) for ll in lls.ravel()])["mean_abs"]
    assert record["kind"] == LIKERT_SCORED and record["error"] == ""
    assert record["scores"] == pytest.approx([3.0, 1.5, 4.75], abs=1e-8)
    assert record["most_likely"] == [3, 1, 5]
    assert np.array(record["label_probabilities"]).sum(axis=1) == pytest.approx([1, 1, 1])
    assert record_problem(record) is None and records_valid([record])


def test_a_non_finite_log_likelihood_is_an_invalid_doc_not_a_crash():
    doc = build_docs(Design(subset="mini"))[1]
    results = [(-1.0, False)] * 14 + [(float("nan"), False)]
    record = process_results(doc, results)["mean_abs"]
    assert record["error"] == "non_finite" and record_problem(record) is None


@pytest.mark.parametrize("scores", [[0.5, 3.0, 3.0], [1.0, 5.5, 2.0]])
def test_a_valid_scored_record_outside_one_to_five_is_refused(scores):
    doc = build_docs(Design(subset="mini"))[1]
    record = {**process_results(doc, [(-1.0, False)] * 15)["mean_abs"], "scores": scores}
    assert "expected Likert values in [1, 5]" in record_problem(record)
    assert not records_valid([record])


# ---- a planted model ---------------------------------------------------------------------------

PLANTED_CATEGORY = {
    "harp": "female",
    "flute": "female",
    "violin": "female",
    "drums": "male",
    "trumpet": "male",
    "electric guitar": "male",
    "piano": "male",
}
PEAK = {  # the planted most likely Likert value per gender key, by planted association
    "female": {"man": 2, "woman": 4, "non-binary": 2},
    "male": {"man": 4, "woman": 2, "non-binary": 2},
    "none": {"man": 3, "woman": 3, "non-binary": 2},
}
GENERATED_REVERSED = {"piano"}  # the generated answers contradict the scored ones here


def _jitter(*parts: str) -> float:
    return hashlib.sha256("|".join(parts).encode()).digest()[0] / 255 * 0.8 - 0.4


class PlantedScoredLM(LM):
    """Label log-likelihoods peaked at the planted rating; generated JSON from the same table."""

    def __init__(self):
        super().__init__()
        with open(INSTRUMENTS_CSV, newline="") as handle:
            self.nouns = {row["noun"].lower(): row["instrument"] for row in csv.DictReader(handle)}

    def instrument(self, scenario: str) -> str:
        return next((name for noun, name in self.nouns.items() if noun in scenario.lower()), "")

    def category(self, scenario: str) -> str:
        return PLANTED_CATEGORY.get(self.instrument(scenario), "none")

    def label_loglikelihood(self, scenario: str, key: str, label: str) -> float:
        peak = PEAK[self.category(scenario)][key]
        return -abs(LABELS.index(label) + 1 - peak) + _jitter(scenario, key, label)

    def loglikelihood(self, requests):
        answers = []
        for request in requests:
            context, label = request.args
            key = re.search(r'\{"([a-z-]+)": "$', context)[1]
            answers.append((self.label_loglikelihood(scenario_of(context), key, label), False))
        return answers

    def generate_until(self, requests):
        answers = []
        for request in requests:
            scenario = scenario_of(request.args[0])
            category = self.category(scenario)
            if self.instrument(scenario) in GENERATED_REVERSED:
                category = {"female": "male", "male": "female"}[category]
            answers.append(
                json.dumps(
                    {"reason": "planted", **{k: LABELS[v - 1] for k, v in PEAK[category].items()}}
                )
            )
        return answers

    def loglikelihood_rolling(self, requests):
        raise NotImplementedError


def scenario_of(context: str) -> str:
    return context.split("Scenario: ")[1].split("\n")[0]


def independent_scored(samples: list[dict], model: PlantedScoredLM) -> pd.DataFrame:
    """One row per instrument doc: the expected Likert value per gender, from the planted table."""
    rows = []
    for sample in samples:
        doc = sample["doc"]
        if not doc["instrument"]:
            continue
        scenario = scenario_of(doc["prompt"])
        values = {}
        for key, gender in KEYS.items():
            probabilities = softmax(
                [model.label_loglikelihood(scenario, key, label) for label in LABELS]
            )
            values[gender] = float(probabilities @ np.arange(1, 6))
        rows.append(
            {
                "scenario": doc["scenario_id"],
                "instrument": doc["instrument"],
                "valid": True,
                **values,
            }
        )
    return pd.DataFrame(rows)


@pytest.fixture(scope="module")
def planted_run(tmp_path_factory):
    output = tmp_path_factory.mktemp("planted-scored") / "run"
    model = PlantedScoredLM()
    results, samples = evaluate_in_process(model, [TASK, "symphony_bias_text_mini"], output)
    return model, results, samples, output


@pytest.mark.slow  # an in-process lm-eval run of two mini tasks
def test_planted_scores_match_an_independent_computation(planted_run):
    model, results, samples, _ = planted_run
    gas, headline = expected_association(
        independent_scored(samples[TASK], model), paper_stereotypes()
    )
    for metric in ("mean_abs", "non_binary_gas", "consistency_rate", "invalid_rate"):
        assert results[TASK][f"{metric},none"] == pytest.approx(headline[metric], abs=1e-9), metric
    assert headline["invalid_rate"] == 0.0
    assert results[TASK]["mean_abs_stderr,none"] > 0
    # the planted associations are recovered, in their direction
    assert gas.loc["harp", "abs"] > 0.1 and gas.loc["drums", "abs"] > 0.1


@pytest.mark.e2e
def test_report_gives_the_scored_task_its_agreement_with_the_generated_answers(
    planted_run, tmp_path
):
    model, _, samples, output = planted_run
    completed = run_symphony_bench(
        [
            "report",
            str(output),
            "--json",
            str(tmp_path / "r.json"),
            "--markdown",
            str(tmp_path / "r.md"),
        ],
        cwd=tmp_path,
    )
    assert completed.returncode == 0, completed.stderr
    report = json.loads((tmp_path / "r.json").read_text())
    stereotypes = paper_stereotypes()
    scored, _ = expected_association(independent_scored(samples[TASK], model), stereotypes)
    for name, row in report[TASK]["instruments"].items():
        assert row["gas"]["female"] == pytest.approx(scored.loc[name, "female"], abs=1e-9)
    agreement = report[TASK]["agreement"]["symphony_bias_text_mini"]
    assert agreement["protocols"] == ["likert", "likert_scored"]
    generated = pd.Series(
        {name: row["abs"] for name, row in report["symphony_bias_text_mini"]["instruments"].items()}
    )
    both = pd.concat([generated, scored["abs"]], axis=1, keys=["generated", "scored"]).dropna()
    agree = (
        np.sign(both.generated) == np.sign(both.scored)
    ).mean()  # an ABS of 0 agrees with 0 only
    assert agreement["n"] == len(both) and agreement["sign_agreement"] == pytest.approx(agree)
    assert agreement["sign_agreement"] < 1.0  # piano was planted to disagree
    assert agreement["pearson_r"] == pytest.approx(
        stats.pearsonr(both.generated, both.scored).statistic, abs=1e-9
    )
    assert (
        agreement["instruments"]["piano"]["likert"]
        < 0
        < agreement["instruments"]["piano"]["likert_scored"]
    )
    markdown = (tmp_path / "r.md").read_text()
    assert f"| {TASK} | Likert, labels scored by log-likelihood |" in markdown
    assert "| symphony_bias_text_mini | Likert, generated JSON |" in markdown
    assert f"### Agreement: {TASK} vs symphony_bias_text_mini" in markdown
    # the expected value and the most likely label both reach the report
    assert report[TASK]["most_likely"]["mean_abs"] is not None


# ---- the real CLI on a tiny random model --------------------------------------------------------


@pytest.mark.e2e
def test_tiny_model_answers_every_doc_through_the_cli(tiny_llama, tmp_path):
    output = tmp_path / "run"
    run_lm_eval(
        "hf",
        f"pretrained={tiny_llama},dtype=float32",
        TASK,
        output,
        "--device",
        "cpu",
        "--batch_size",
        "16",
        "--limit",
        "23",
    )
    samples = read_samples(output, TASK)
    assert len(samples) == 23
    for sample in samples:
        assert len(sample["arguments"]) == 15
        record = sample["mean_abs"]
        assert record["error"] == "" and all(1 <= v <= 5 for v in record["scores"])
    results = read_results(output)[TASK]
    assert results["invalid_rate,none"] == 0.0
    assert np.isfinite(results["mean_abs,none"])
    # every record is what the stored log-likelihoods give, under the installed reader
    verified = run_symphony_bench(["verify", str(output)], cwd=tmp_path)
    assert verified.returncode == 0 and "note:" not in verified.stdout, verified.stdout
