"""Shared fixtures: a tiny random chat model built locally, and helpers to drive the real CLIs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from symphony_bench.plugin.cli import tasks_path

CHATML_TEMPLATE = (
    "{% for message in messages %}<|im_start|>{{ message['role'] }}\n{{ message['content'] }}<|im_end|>\n"
    "{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)
OFFLINE_ENV = {"HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}


def build_tiny_llama(folder: Path) -> Path:
    """A random 2-layer Llama (hidden 64) with a byte-level BPE tokenizer trained on local text."""
    import pydoc_data.topics
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    specials = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=2000, special_tokens=specials, initial_alphabet=pre_tokenizers.ByteLevel.alphabet()
    )
    tokenizer.train_from_iterator(list(pydoc_data.topics.topics.values()), trainer=trainer)
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tokenizer, eos_token="<|im_end|>", pad_token="<|endoftext|>", bos_token=None
    )
    fast.chat_template = CHATML_TEMPLATE
    torch.manual_seed(0)
    config = LlamaConfig(
        vocab_size=fast.vocab_size if len(fast) <= fast.vocab_size else len(fast),
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=4,
        max_position_embeddings=4096,
        eos_token_id=fast.eos_token_id,
        pad_token_id=fast.pad_token_id,
        bos_token_id=None,
    )
    LlamaForCausalLM(config).save_pretrained(folder)
    fast.save_pretrained(folder)
    return folder


@pytest.fixture(scope="session")
def tiny_llama(tmp_path_factory) -> Path:
    return build_tiny_llama(tmp_path_factory.mktemp("tiny-llama"))


def run_cli(args: list[str], cwd: Path, timeout: int = 900) -> subprocess.CompletedProcess:
    env = {**os.environ, **OFFLINE_ENV}
    return subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


def run_lm_eval(model: str, model_args: str, tasks: str, output: Path, *extra: str) -> subprocess.CompletedProcess:
    lm_eval = Path(sys.executable).with_name("lm_eval")
    args = [
        str(lm_eval), "--model", model, "--model_args", model_args, "--tasks", tasks,
        "--include_path", str(tasks_path()), "--output_path", str(output), "--log_samples",
        "--apply_chat_template", *extra,
    ]
    completed = run_cli(args, cwd=output.parent)
    assert completed.returncode == 0, completed.stderr[-4000:]
    return completed


def read_samples(output: Path, task: str) -> list[dict]:
    files = sorted(output.rglob(f"samples_{task}_*.jsonl"))
    assert len(files) == 1, f"expected one samples file for {task}, found {files}"
    return [json.loads(line) for line in files[0].read_text().splitlines()]


def read_results(output: Path) -> dict:
    files = sorted(output.rglob("results_*.json"))
    assert len(files) == 1, f"expected one results file, found {files}"
    return json.loads(files[0].read_text())["results"]
