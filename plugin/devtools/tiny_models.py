"""Tiny randomly initialised models for tests and benchmarks (plumbing checks, never results)."""

from __future__ import annotations

from pathlib import Path

CHATML_TEMPLATE = (
    "{% for message in messages %}<|im_start|>{{ message['role'] }}\n{{ message['content'] }}<|im_end|>\n"
    "{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)


def _tiny_tokenizer(extra_specials: tuple[str, ...] = ()):
    """A byte-level BPE tokenizer (2,000 tokens) trained on Python's own help texts, ChatML template."""
    import pydoc_data.topics

    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    specials = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", *extra_specials]
    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=2000,
        special_tokens=specials,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
    )
    tokenizer.train_from_iterator(list(pydoc_data.topics.topics.values()), trainer=trainer)
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tokenizer,
        eos_token="<|im_end|>",
        pad_token="<|endoftext|>",
        bos_token=None,
        additional_special_tokens=list(extra_specials) or None,
    )
    fast.chat_template = CHATML_TEMPLATE
    return fast


def _vocab_size(tokenizer) -> int:
    return max(tokenizer.vocab_size, len(tokenizer))


def build_tiny_llama(folder: Path) -> Path:
    """A random 2-layer Llama (hidden 64) with the tiny tokenizer."""
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    fast = _tiny_tokenizer()
    torch.manual_seed(0)
    config = LlamaConfig(
        vocab_size=_vocab_size(fast),
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


# Qwen2-Audio's chat format: each audio item becomes "Audio N: <|audio_bos|><|AUDIO|><|audio_eos|>".
QWEN2_AUDIO_TEMPLATE = (
    "{% set audio_count = namespace(value=0) %}{% for message in messages %}<|im_start|>{{ message['role'] }}\n"
    "{% if message['content'] is string %}{{ message['content'] }}{% else %}{% for content in message['content'] %}"
    "{% if content['type'] == 'audio' %}{% set audio_count.value = audio_count.value + 1 %}"
    "Audio {{ audio_count.value }}: <|audio_bos|><|AUDIO|><|audio_eos|>\n"
    "{% elif content['type'] == 'text' %}{{ content['text'] }}{% endif %}{% endfor %}{% endif %}<|im_end|>\n"
    "{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)


def build_tiny_qwen2_audio(folder: Path) -> Path:
    """A random Qwen2-Audio: Whisper-style encoder (d_model 32, 1 layer; 128 mel bins and 1,500
    source positions as the real processor expects) and a 2-layer Qwen2 text side."""
    import torch
    from transformers import (
        Qwen2AudioConfig,
        Qwen2AudioEncoderConfig,
        Qwen2AudioForConditionalGeneration,
        Qwen2AudioProcessor,
        Qwen2Config,
        WhisperFeatureExtractor,
    )

    fast = _tiny_tokenizer(("<|AUDIO|>", "<|audio_bos|>", "<|audio_eos|>"))
    audio = Qwen2AudioEncoderConfig(
        d_model=32,
        encoder_layers=1,
        encoder_attention_heads=2,
        encoder_ffn_dim=64,
        num_mel_bins=128,
        max_source_positions=1500,
    )
    text = Qwen2Config(
        vocab_size=_vocab_size(fast),
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
    config = Qwen2AudioConfig(
        audio_config=audio,
        text_config=text,
        audio_token_index=fast.convert_tokens_to_ids("<|AUDIO|>"),
    )
    torch.manual_seed(0)
    Qwen2AudioForConditionalGeneration(config).save_pretrained(folder)
    processor = Qwen2AudioProcessor(
        feature_extractor=WhisperFeatureExtractor(feature_size=128),
        tokenizer=fast,
        chat_template=QWEN2_AUDIO_TEMPLATE,
    )
    processor.save_pretrained(folder)
    return folder
