"""Scored Likert at one forward pass per gender context: `symphony-hf` (plugin/symphony_bias/
prefix_sharing.py) against lm-eval's `hf`, on a tiny random Llama with SmolLM2's tokenizer (the
default model's: `very low` and `very high` are two tokens, the other labels one), through lm-eval's
simple_evaluate with a probe on the model's forward, and through the command line."""

from __future__ import annotations

import json
import sys

import numpy as np
import pytest
from support.harness import our_lm_eval_tasks, run_cli

from symphony_bench.plugin.core.task_folders import tasks_path
from symphony_bench.plugin.symphony_bias.prefix_sharing import covering_inputs

pytestmark = pytest.mark.e2e
DOCS = 6
TASK = "symphony_bias_likert_scored_mini"


def test_each_input_is_read_from_an_input_that_starts_with_it_and_none_extends():
    inputs = [(1, 2), (1, 2, 3), (1,), (1, 4), (2,), (1, 2, 3, 5), (1, 2)]
    assert covering_inputs(inputs) == {
        (1,): (1, 2, 3, 5),
        (1, 2): (1, 2, 3, 5),
        (1, 2, 3): (1, 2, 3, 5),
        (1, 2, 3, 5): (1, 2, 3, 5),
        (1, 4): (1, 4),
        (2,): (2,),
    }


@pytest.fixture(scope="module")
def smollm2_tokenizer_model(tmp_path_factory):
    import torch
    from transformers import AutoTokenizer, LlamaConfig, LlamaForCausalLM

    from symphony_bench.plugin.devtools.default_model import GGUF_FILE, gguf_folder

    folder = tmp_path_factory.mktemp("tiny-smollm2-tokens")
    tokenizer = AutoTokenizer.from_pretrained(gguf_folder(), gguf_file=GGUF_FILE)
    torch.manual_seed(0)
    config = LlamaConfig(
        vocab_size=len(tokenizer),
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=2,
        num_key_value_heads=2,
        max_position_embeddings=2048,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
    )
    LlamaForCausalLM(config).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


def probed_run(model_class, folder):
    """simple_evaluate of the scored Likert task on the first DOCS docs; returns (sequences the
    model's forward saw, per doc, the task's samples, positions it projected on the vocabulary
    per sequence)."""
    from lm_eval import simple_evaluate

    lm = model_class(pretrained=str(folder), dtype="float32", device="cpu", batch_size=16)
    forward = lm.model.forward
    sequences, projected = [], []

    def counted(input_ids=None, *args, **kwargs):
        sequences.append(input_ids.shape[0])
        output = forward(input_ids, *args, **kwargs)
        projected.append(output.logits.shape[1])
        return output

    lm.model.forward = counted
    results = simple_evaluate(
        model=lm,
        tasks=[TASK],
        task_manager=our_lm_eval_tasks(),
        limit=DOCS,
        log_samples=True,
        apply_chat_template=True,
    )
    return sum(sequences) / DOCS, results["samples"][TASK], max(projected)


def records(samples) -> dict[int, dict]:
    return {sample["doc_id"]: sample["mean_abs"] for sample in samples}


def test_one_pass_per_gender_context_and_the_same_values(smollm2_tokenizer_model):
    from lm_eval.models.huggingface import HFLM

    from symphony_bench.plugin.symphony_bias.prefix_sharing import PrefixSharingHFLM

    stock_passes, stock, stock_positions = probed_run(HFLM, smollm2_tokenizer_model)
    passes, shared, positions = probed_run(PrefixSharingHFLM, smollm2_tokenizer_model)
    assert stock_passes == 6  # {low, medium, high} and {very low, very high}, per gender
    assert passes == 3
    assert stock_positions > 100 and positions <= 8  # the labels' few tokens, not the prompt
    stock_records, shared_records = records(stock), records(shared)
    assert sorted(shared_records) == sorted(stock_records) == list(range(DOCS))
    for doc_id, record in stock_records.items():
        other = shared_records[doc_id]
        assert other["error"] == record["error"] == ""
        np.testing.assert_allclose(other["scores"], record["scores"], rtol=0, atol=1e-6)
        np.testing.assert_allclose(
            other["label_probabilities"], record["label_probabilities"], rtol=0, atol=1e-6
        )
        assert other["most_likely"] == record["most_likely"]
    stock_lls = [ll for sample in stock for ((ll, _),) in sample["resps"]]
    shared_lls = [ll for sample in shared for ((ll, _),) in sample["resps"]]
    np.testing.assert_allclose(np.array(shared_lls, float), np.array(stock_lls, float), atol=1e-5)


def test_the_command_line_registers_the_model(smollm2_tokenizer_model, tmp_path):
    finished = run_cli(
        [
            sys.executable,
            "-m",
            "symphony_bench.plugin.symphony_bias.prefix_sharing",
            "--model",
            "symphony-hf",
            "--model_args",
            f"pretrained={smollm2_tokenizer_model},dtype=float32",
            "--device",
            "cpu",
            "--tasks",
            TASK,
            "--include_path",
            str(tasks_path()),
            "--apply_chat_template",
            "--batch_size",
            "16",
            "--limit",
            "2",
            "--output_path",
            str(tmp_path / "run"),
        ],
        cwd=tmp_path,
    )
    assert finished.returncode == 0, finished.stderr[-3000:]
    (results,) = (tmp_path / "run").rglob("results_*.json")
    assert json.loads(results.read_text())["config"]["model"] == "symphony-hf"
