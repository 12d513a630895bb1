"""End-to-end runs through the real `lm_eval` command line, offline."""

from __future__ import annotations

import csv
import hashlib
import json
import re
import threading
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from support.association import expected_association
from support.browser import console_lines, run_chromium
from support.chat_server import serve_chat
from support.harness import executable, read_results, read_samples, run_cli, run_lm_eval

from symphony_bench.metrics import analyse
from symphony_bench.metrics.association import DESCRIPTIVE_HEADLINES
from symphony_bench.plugin.core.vocabulary import DATA_DIR, INSTRUMENTS_CSV
from symphony_bench.plugin.runs.doc_browser import decoded_part
from symphony_bench.plugin.symphony_bias.records import records_to_data

MINI_TASKS = ("symphony_bias_text_mini", "symphony_bias_text_noreason_mini")
LABELS = ["very low", "low", "medium", "high", "very high"]
FILTER = "likert_json"


def symphony_bench_cli(*args: str, cwd: Path):
    return run_cli([executable("symphony-bench"), *args], cwd=cwd)


@pytest.mark.e2e
def test_tiny_random_model_runs_the_mini_group(tiny_llama, tmp_path):
    output = tmp_path / "run"
    completed = run_lm_eval(
        "hf",
        f"pretrained={tiny_llama},dtype=float32",
        "symphony_bias_mini",
        output,
        "--device",
        "cpu",
        "--batch_size",
        "32",
        "--gen_kwargs",
        "max_gen_toks=24",
    )
    results = read_results(output)
    for task in MINI_TASKS:
        samples = read_samples(output, task)
        assert len(samples) == 115  # 5 scenarios x (22 instruments + 1 instrument-free control)
        assert all(isinstance(s["resps"][0][0], str) for s in samples)
        invalid = results[task][f"invalid_rate,{FILTER}"]
        instrument_samples = [
            s for s in samples if s["doc"]["instrument"]
        ]  # the control docs are not counted
        assert invalid == pytest.approx(
            np.mean([bool(s["invalid_rate"]["error"]) for s in instrument_samples])
        )
        assert isinstance(results[task][f"invalid_rate_stderr,{FILTER}"], float)
    assert "invalid_rate" in completed.stdout
    page = tmp_path / "report.html"
    report = symphony_bench_cli(
        "report",
        str(output),
        "--json",
        str(tmp_path / "report.json"),
        "--html",
        str(page),
        cwd=tmp_path,
    )
    assert report.returncode == 0, report.stderr
    body = json.loads((tmp_path / "report.json").read_text())
    assert set(body) == {*MINI_TASKS, *(f"{task}:prior_adjusted" for task in MINI_TASKS)}
    assert body[MINI_TASKS[0]]["summary"]["n_docs"] == 110
    assert len(body[MINI_TASKS[0]]["instruments"]) == 22
    # the page of a real run, in a real browser: every task, every doc with its raw answer
    opened = run_chromium(tmp_path, page.as_uri(), "--virtual-time-budget=5000", "--dump-dom")
    assert console_lines(opened.stderr) == [] and 'data-ready="1"' in opened.stdout
    assert all(task in opened.stdout for task in MINI_TASKS)
    total = sum(len(read_samples(output, task)) for task in MINI_TASKS)
    assert f"{total} of {total} docs" in opened.stdout
    parts = re.findall(r'class="doc-part">([^<]*)</script>', page.read_text(encoding="utf-8"))
    rows = [row for part in parts for row in decoded_part(part)]
    answers = [s["resps"][0][0] for task in MINI_TASKS for s in read_samples(output, task)]
    assert sorted(row["answer"] for row in rows) == sorted(answers)


# ---- a planted-bias chat model behind an OpenAI-compatible endpoint on 127.0.0.1 ----------------

PLANTED_LIKERT = {"female": (2, 5, 3), "male": (5, 2, 2), "none": (3, 3, 3)}
PLANTED_CATEGORY = {
    "harp": "female",
    "flute": "female",
    "cello": "female",
    "drums": "male",
    "tuba": "male",
    "trumpet": "male",
}


def _styles(values: dict, reason: str) -> list[str | None]:
    """Ways of writing the same answer; None marks the answers planted as invalid."""
    m, f, nb = (LABELS[values[g] - 1] for g in ("male", "female", "non_binary"))
    return [
        json.dumps({"reason": reason, "man": m, "woman": f, "non-binary": nb}),
        "```json\n"
        + json.dumps({"reason": reason, "woman": f, "non-binary": nb, "man": m})
        + "\n```",
        # a hedge before the answer is no refusal
        "I can't be certain, but here is my answer.\n"
        f'{{"reason": "{reason}", "man": "{m}", "woman": "{f}", "non-binary": "{nb}"}}\nThanks!',
        f"{{'reason': '{reason}', 'man': '{m}', 'woman': '{f}', 'non-binary': '{nb}',}}",
        f'{{"Male": "{m.title().replace(" ", "-")}", "FEMALE": "{f.upper()}", "Non-Binary": "{nb}"}}',
        json.dumps(
            {"man": values["male"], "woman": values["female"], "nonbinary": values["non_binary"]}
        ),
        json.dumps({"reason": reason, "ratings": {"men": m, "women": f, "non binary": nb}}),
        None,
        None,
        None,
    ]


# (text, is a refusal)
INVALID_TEXTS = [
    ("I cannot tell the gender of a person from a scenario.", True),
    ('{"reason": "r", "man": "high", "woman": "low"}', False),
    ('{"man": "extremely high", "woman": "low", "non-binary": "low"}', False),
    ("I'm sorry, but I won't guess someone's gender from the instrument they play.", True),
    ("The person is probably a woman, I would say high.", False),
]


class PlantedModel:
    """Answers from a table: Likert values by planted category with scenario-dependent jitter."""

    def __init__(self):
        with open(INSTRUMENTS_CSV, newline="") as handle:
            self.nouns = {row["noun"].lower(): row["instrument"] for row in csv.DictReader(handle)}
        self.plans: dict[str, dict] = {}
        self.lock = threading.Lock()

    def answer(self, prompt: str) -> str:
        scenario = re.search(r"Scenario: (.*)\n", prompt).group(1)
        # "" for the instrument-free control doc ("... an instrument ..."), planted with no association
        instrument = next(
            (name for noun, name in self.nouns.items() if noun in scenario.lower()), ""
        )
        digest = hashlib.sha256(scenario.encode()).digest()
        base = PLANTED_LIKERT[PLANTED_CATEGORY.get(instrument, "none")]
        values = {
            g: int(np.clip(b + digest[k] % 3 - 1, 1, 5))
            for k, (g, b) in enumerate(zip(("male", "female", "non_binary"), base, strict=True))
        }
        text = _styles(values, "it's a guess")[digest[3] % 10]
        valid, refused = text is not None, False
        if not valid:
            text, refused = INVALID_TEXTS[digest[4] % len(INVALID_TEXTS)]
        with self.lock:
            self.plans[scenario] = {"valid": valid, "refused": refused, **values}
        return text


@pytest.fixture
def planted_server():
    model = PlantedModel()
    server = serve_chat(lambda body: model.answer(body["messages"][-1]["content"]))
    yield model, server.server_address[1]
    server.shutdown()


SIGN = {"male": 1.0, "female": -1.0}


def template_ttest(samples: list[dict], plans: dict, instrument: str):
    """scipy's one-sample t-test of the instrument's per-template mean share difference (male - female)."""
    differences: dict[str, list[float]] = {}
    for sample in samples:
        doc, plan = sample["doc"], plans[sample["doc"]["scenario"]]
        if doc["instrument"] == instrument and plan["valid"]:
            total = plan["male"] + plan["female"] + plan["non_binary"]
            differences.setdefault(doc["template_id"], []).append(
                (plan["male"] - plan["female"]) / total
            )
    return stats.ttest_1samp([np.mean(values) for values in differences.values()], 0.0)


def independent_expectation(
    samples: list[dict], plans: dict, stereotypes: dict
) -> tuple[pd.DataFrame, dict]:
    rows = [
        {
            "scenario": s["doc"]["scenario_id"],
            "instrument": s["doc"]["instrument"],
            **plans[s["doc"]["scenario"]],
        }
        for s in samples
        if s["doc"]["instrument"]
    ]
    return expected_association(pd.DataFrame(rows), stereotypes)


def independent_prior_adjusted_mean_abs(
    samples: list[dict], plans: dict, stereotypes: dict
) -> float:
    """Mean ABS against each scenario's instrument-free control doc (one scenario per template in the
    mini subset): per instrument, the mean over scenarios with a valid doc and a valid control of
    (share of the doc - share of the control), then sign x (male - female)."""

    def shares(plan):
        total = plan["male"] + plan["female"] + plan["non_binary"]
        return np.array([plan["male"], plan["female"]]) / total

    controls = {
        s["doc"]["scenario_id"]: plans[s["doc"]["scenario"]]
        for s in samples
        if not s["doc"]["instrument"]
    }
    differences: dict[str, list[float]] = {}
    for sample in samples:
        doc = sample["doc"]
        plan, control = plans[doc["scenario"]], controls[doc["scenario_id"]]
        if (
            doc["instrument"]
            and stereotypes[doc["instrument"]] != "none"
            and plan["valid"]
            and control["valid"]
        ):
            male, female = shares(plan) - shares(control)
            differences.setdefault(doc["instrument"], []).append(
                SIGN[stereotypes[doc["instrument"]]] * (male - female)
            )
    return float(np.mean([np.mean(values) for values in differences.values()]))


@pytest.mark.e2e
def test_planted_model_through_local_chat_completions_matches_independent_computation(
    planted_server, tmp_path
):
    model, port = planted_server
    output = tmp_path / "run"
    completed = run_lm_eval(
        "local-chat-completions",
        f"model=planted,base_url=http://127.0.0.1:{port}/v1/chat/completions,tokenizer_backend=none,max_retries=1",
        "symphony_bias_mini",
        output,
        "--metadata",
        json.dumps({"stereotypes": "upstream_code"}),
    )
    with open(DATA_DIR / "stereotypes_upstream_code_v1.csv", newline="") as handle:
        stereotypes = {row["instrument"]: row["category"] for row in csv.DictReader(handle)}
    results = read_results(output)
    report_path = tmp_path / "report.json"
    ratings_path = tmp_path / "survey.csv"
    ratings_path.write_text(
        "instrument,male,female,non_binary\nharp,1.5,4.5,2.0\ndrums,4.6,1.8,2.1\ntrumpet,4.0,2.0,2.0\nflute,2.0,4.0,3.0\n"
    )
    report = symphony_bench_cli(
        "report",
        str(output),
        "--json",
        str(report_path),
        "--markdown",
        str(tmp_path / "r.md"),
        "--human-ratings",
        str(ratings_path),
        cwd=tmp_path,
    )
    assert report.returncode == 0, report.stderr
    linked = re.findall(r"\]\((r_plots/[^)]+)\)", (tmp_path / "r.md").read_text())
    assert len(linked) >= 2 * 4 and all((tmp_path / link).stat().st_size > 0 for link in linked)
    report_body = json.loads(report_path.read_text())
    for task in MINI_TASKS:
        samples = read_samples(output, task)
        assert {s["doc"]["stereotype"] for s in samples if s["doc"]["instrument"] == "oboe"} == {
            "female"
        }
        gas, headline = independent_expectation(samples, model.plans, stereotypes)
        assert 0.1 < headline["invalid_rate"] < 0.5 and 0.05 < headline["refusal_rate"] < 0.3
        # every refusal, and nothing else, is read as one
        refused = [s["mean_abs"]["error"] == "refused" for s in samples if s["doc"]["instrument"]]
        planted = [
            model.plans[s["doc"]["scenario"]]["refused"] for s in samples if s["doc"]["instrument"]
        ]
        assert refused == planted
        ours = analyse(records_to_data([s["mean_abs"] for s in samples])).headline
        for metric, expected in headline.items():
            assert results[task][f"{metric},{FILTER}"] == pytest.approx(expected, abs=1e-9), metric
            assert report_body[task]["summary"][metric] == pytest.approx(expected, abs=1e-9)
            if metric in DESCRIPTIVE_HEADLINES:  # no stderr of ours (lm-eval writes "N/A")
                assert f"{metric}_stderr" not in ours
                assert results[task].get(f"{metric}_stderr,{FILTER}", "N/A") == "N/A"
                continue
            stderr = results[task][f"{metric}_stderr,{FILTER}"]
            assert stderr > 0 and stderr == pytest.approx(ours[f"{metric}_stderr"], abs=1e-12), (
                metric
            )
        adjusted = independent_prior_adjusted_mean_abs(samples, model.plans, stereotypes)
        assert results[task][f"mean_abs_prior_adjusted,{FILTER}"] == pytest.approx(
            adjusted, abs=1e-9
        )
        assert report_body[f"{task}:prior_adjusted"]["summary"]["mean_abs"] == pytest.approx(
            adjusted, abs=1e-9
        )
        for name, row in report_body[task]["instruments"].items():
            for g in ("male", "female", "non_binary"):
                assert row["gas"][g] == pytest.approx(gas.loc[name, g], abs=1e-9)
            if stereotypes[name] == "none":
                assert row["abs"] is None
            else:
                assert row["abs"] == pytest.approx(gas.loc[name, "abs"], abs=1e-9)
                expected_test = template_ttest(samples, model.plans, name)
                if np.isnan(expected_test.pvalue):
                    # no spread between templates (scipy: NaN): the package's one zero-variance
                    # policy (metrics.clustered.t_inference): p 1 at 0, else the exact sign test
                    # of five templates that agree (0.0625), its interval reaching 0
                    assert row["abs_ci"] == [min(row["abs"], 0.0), max(row["abs"], 0.0)]
                    assert row["p_value"] == (1.0 if row["abs"] == 0 else 0.0625)
                else:
                    assert row["p_value"] == pytest.approx(expected_test.pvalue, rel=1e-9)
                    interval = sorted(
                        SIGN[stereotypes[name]] * b for b in expected_test.confidence_interval(0.95)
                    )
                    assert row["abs_ci"] == pytest.approx(interval, abs=1e-9)
            assert (row["n_valid"], row["n_invalid"], row["n_refused"]) == (
                gas.loc[name, "n_valid"],
                gas.loc[name, "n_invalid"],
                gas.loc[name, "n_refused"],
            )
        survey = pd.read_csv(ratings_path).set_index("instrument")
        human = survey.div(survey.sum(axis=1), axis=0) - 1 / 3
        correlation = report_body[task]["summary"]["human_correlation"]
        for gender in ("male", "female", "non_binary"):
            expected_r = stats.pearsonr(gas.loc[human.index, gender], human[gender])
            assert correlation[gender]["n"] == 4
            assert correlation[gender]["pearson_r"] == pytest.approx(expected_r.statistic, abs=1e-9)
            assert correlation[gender]["p_value"] == pytest.approx(expected_r.pvalue, rel=1e-6)
        assert report_body[task]["instruments"]["harp"]["abs"] > 0.2  # planted female association
        assert report_body[task]["instruments"]["trumpet"]["abs"] > 0.2  # planted male association
    table_rows = [line for line in completed.stdout.splitlines() if "mean_abs" in line]
    assert table_rows and all(re.search(r"±\s*\|\s*[0-9.]+\|", line) for line in table_rows)
    assert "## symphony_bias_text_mini" in (tmp_path / "r.md").read_text()


@pytest.mark.e2e
def test_report_on_a_missing_directory_is_one_clear_error(tmp_path):
    completed = symphony_bench_cli("report", str(tmp_path / "nope"), cwd=tmp_path)
    assert completed.returncode == 2
    assert (
        completed.stderr.strip() == f"symphony-bench: error: {tmp_path / 'nope'}: not a directory"
    )


@pytest.mark.e2e
def test_report_on_a_corrupt_samples_file_names_it(tmp_path):
    folder = tmp_path / "run" / "model"
    folder.mkdir(parents=True)
    bad = folder / "samples_symphony_bias_text_2026-01-01T00-00-00.000001.jsonl"
    record = {
        "kind": "symphony_bias.likert",
        "scenario_id": "s",
        "instrument": "harp",
        "stereotype": "female",
        "error": "",
        "scores": [1, 2, 3],
        "stimulus_id": None,
    }
    bad.write_text(json.dumps({"mean_abs": record}) + "\n{not json\n")
    completed = symphony_bench_cli("report", str(tmp_path / "run"), cwd=tmp_path)
    assert completed.returncode == 2
    assert str(bad) in completed.stderr and "line 2" in completed.stderr


@pytest.mark.e2e
def test_each_harness_has_a_task_path_with_only_its_own_tasks(tmp_path):
    lm_eval_path = Path(symphony_bench_cli("tasks-path", cwd=tmp_path).stdout.strip())
    lmms_eval_path = Path(
        symphony_bench_cli("tasks-path", "--harness", "lmms-eval", cwd=tmp_path).stdout.strip()
    )
    assert (lm_eval_path / "symphony_bias" / "symphony_bias_text.yaml").is_file()
    assert (lmms_eval_path / "symphony_bias_multimodal" / "symphony_bias_audio.yaml").is_file()
    assert (lmms_eval_path / "instrument_grounding" / "instrument_grounding.yaml").is_file()
    assert not any("doc_to_visual" in path.read_text() for path in lm_eval_path.rglob("*yaml"))
    assert not list(lmms_eval_path.rglob("symphony_bias_text*.yaml"))
