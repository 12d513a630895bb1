"""Tiny randomly initialised models for tests and benchmarks (plumbing checks, never results)."""

from __future__ import annotations

from pathlib import Path

CHATML_TEMPLATE = (
    "{% for message in messages %}<|im_start|>{{ message['role'] }}\n{{ message['content'] }}<|im_end|>\n"
    "{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)


def _tiny_tokenizer(extra_specials: tuple[str, ...] = (), named: dict[str, str] | None = None):
    """A byte-level BPE tokenizer (2,000 tokens) trained on Python's own help texts, ChatML template;
    `named` special tokens become tokenizer attributes (e.g. {"image_token": "<|IMAGE|>"}), as some
    processors read them so."""
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
        **({"extra_special_tokens": named} if named else {}),
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
    config = LlamaConfig(**_tiny_text_config(fast))
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
    text = Qwen2Config(**_tiny_text_config(fast))
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


def _tiny_text_config(fast, **extra):
    """The 2-layer text model every tiny model shares (hidden 64, 4 heads), as config arguments."""
    return dict(
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
        **extra,
    )


def _content_template(media: dict[str, str], user: str, assistant: str, end: str) -> str:
    """A chat template over content lists: each media item (by its `type`) becomes its placeholder
    text, a text item its text; a string content is taken as it is."""
    items = "".join(
        f"{{% elif content['type'] == '{kind}' %}}{placeholder}"
        for kind, placeholder in media.items()
    )
    return (
        "{% for message in messages %}"
        f"{{% if message['role'] == 'assistant' %}}{assistant}{{% else %}}{user}{{% endif %}}"
        "{% if message['content'] is string %}{{ message['content'] }}{% else %}"
        "{% for content in message['content'] %}{% if content['type'] == 'text' %}{{ content['text'] }}"
        f"{items}{{% endif %}}{{% endfor %}}{{% endif %}}{end}"
        "{% endfor %}"
        f"{{% if add_generation_prompt %}}{assistant}{{% endif %}}"
    )


# ChatML with the role name, as the Qwen families write it
_CHATML_ROLES = ("<|im_start|>{{ message['role'] }}\n", "<|im_end|>\n")


def _chatml_template(media: dict[str, str]) -> str:
    user, end = _CHATML_ROLES
    return _content_template(media, user, "<|im_start|>assistant\n", end).replace(
        "{% if message['role'] == 'assistant' %}<|im_start|>assistant\n{% else %}"
        "<|im_start|>{{ message['role'] }}\n{% endif %}",
        "<|im_start|>{{ message['role'] }}\n",
    )


def build_tiny_llava(folder: Path) -> Path:
    """A random LLaVA-1.5 (CLIP vision tower: 32 px images, 16 px patches, 1 layer; 2-layer Llama
    text side) with its processor: 4 image tokens per image."""
    import torch
    from transformers import (
        CLIPImageProcessor,
        CLIPVisionConfig,
        LlamaConfig,
        LlavaConfig,
        LlavaForConditionalGeneration,
        LlavaProcessor,
    )

    fast = _tiny_tokenizer(("<image>",))
    vision = CLIPVisionConfig(
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=1,
        num_attention_heads=2,
        image_size=32,
        patch_size=16,
        projection_dim=32,
    )
    config = LlavaConfig(
        vision_config=vision,
        text_config=LlamaConfig(**_tiny_text_config(fast)),
        image_token_index=fast.convert_tokens_to_ids("<image>"),
        vision_feature_select_strategy="default",
        vision_feature_layer=-1,
    )
    torch.manual_seed(0)
    LlavaForConditionalGeneration(config).save_pretrained(folder)
    processor = LlavaProcessor(
        image_processor=CLIPImageProcessor(
            size={"shortest_edge": 32}, crop_size={"height": 32, "width": 32}
        ),
        tokenizer=fast,
        patch_size=16,
        vision_feature_select_strategy="default",
        num_additional_image_tokens=1,
        chat_template=_content_template({"image": "<image>\n"}, "USER: ", "ASSISTANT:", "\n"),
    )
    processor.save_pretrained(folder)
    return folder


_QWEN_VL_TOKENS = ("<|vision_start|>", "<|vision_end|>", "<|image_pad|>", "<|video_pad|>")
_QWEN_VL_MEDIA = {
    "image": "<|vision_start|><|image_pad|><|vision_end|>",
    "video": "<|vision_start|><|video_pad|><|vision_end|>",
}


def _build_tiny_qwen_vl(folder: Path, family: str) -> Path:
    import torch
    import transformers

    fast = _tiny_tokenizer(_QWEN_VL_TOKENS)
    ids = {
        name: fast.convert_tokens_to_ids(token)
        for name, token in zip(
            ("vision_start_token_id", "vision_end_token_id", "image_token_id", "video_token_id"),
            _QWEN_VL_TOKENS,
            strict=True,
        )
    }
    # head dim 16: the multimodal rotary sections (temporal, height, width) split its 8 frequencies
    rope = {"rope_type": "default", "mrope_section": [2, 3, 3], "rope_theta": 10000.0}
    vision = dict(
        depth=1,
        hidden_size=32,
        num_heads=2,
        patch_size=14,
        spatial_merge_size=2,
        temporal_patch_size=2,
        in_channels=3,
    )
    if family == "qwen2_vl":
        vision.update(embed_dim=32, hidden_size=64, mlp_ratio=2)
        names = (
            "Qwen2VLConfig",
            "Qwen2VLForConditionalGeneration",
            "Qwen2VLImageProcessor",
            "Qwen2VLVideoProcessor",
            "Qwen2VLProcessor",
        )
    else:
        vision.update(
            out_hidden_size=64, intermediate_size=64, fullatt_block_indexes=[0], window_size=56
        )
        names = (
            "Qwen2_5_VLConfig",
            "Qwen2_5_VLForConditionalGeneration",
            "Qwen2VLImageProcessor",
            "Qwen2VLVideoProcessor",
            "Qwen2_5_VLProcessor",
        )
    config_class, model_class, image_class, video_class, processor_class = (
        getattr(transformers, name) for name in names
    )
    config = config_class(
        text_config=_tiny_text_config(fast, rope_parameters=rope),
        vision_config=vision,
        **ids,
    )
    torch.manual_seed(0)
    model_class(config).save_pretrained(folder)
    # at most 56 x 56 pixels: an image is at most 4 tokens after the 2 x 2 merge
    pixels = {"min_pixels": 28 * 28, "max_pixels": 56 * 56}
    processor = processor_class(
        image_processor=image_class(**pixels),
        video_processor=video_class(**pixels),
        tokenizer=fast,
        chat_template=_chatml_template(_QWEN_VL_MEDIA),
    )
    processor.save_pretrained(folder)
    return folder


def build_tiny_qwen2_vl(folder: Path) -> Path:
    """A random Qwen2-VL (1-block vision tower, 14 px patches merged 2 x 2; 2-layer text side)."""
    return _build_tiny_qwen_vl(folder, "qwen2_vl")


def build_tiny_qwen2_5_vl(folder: Path) -> Path:
    """A random Qwen2.5-VL (1-block windowed vision tower; 2-layer text side)."""
    return _build_tiny_qwen_vl(folder, "qwen2_5_vl")


def _audio_encoder(**extra) -> dict:
    """A 1-layer Whisper-style audio encoder (d_model 32) on 128 mel bins: the source positions
    stay at 1,500, which the 30 s windows of the real feature extractors fill."""
    return dict(num_mel_bins=128, max_source_positions=1500, **extra)


def build_tiny_audio_flamingo_3(folder: Path) -> Path:
    """A random Audio Flamingo 3 (Whisper-style encoder, 1 layer; 2-layer Qwen2 text side) with its
    processor: the chat template writes `<sound>` where the audio goes."""
    import torch
    from transformers import (
        AudioFlamingo3Config,
        AudioFlamingo3ForConditionalGeneration,
        AudioFlamingo3Processor,
        Qwen2Config,
        WhisperFeatureExtractor,
    )

    fast = _tiny_tokenizer(("<sound>",))
    config = AudioFlamingo3Config(
        audio_config=_audio_encoder(
            hidden_size=32, num_hidden_layers=1, num_attention_heads=2, intermediate_size=64
        ),
        text_config=Qwen2Config(**_tiny_text_config(fast)),
        audio_token_id=fast.convert_tokens_to_ids("<sound>"),
    )
    torch.manual_seed(0)
    AudioFlamingo3ForConditionalGeneration(config).save_pretrained(folder)
    processor = AudioFlamingo3Processor(
        feature_extractor=WhisperFeatureExtractor(feature_size=128),
        tokenizer=fast,
        chat_template=_chatml_template({"audio": "<sound>"}),
    )
    processor.save_pretrained(folder)
    return folder


_OMNI_TOKENS = {
    "audio_token": "<|AUDIO|>",
    "audio_bos_token": "<|audio_bos|>",
    "audio_eos_token": "<|audio_eos|>",
    "image_token": "<|IMAGE|>",
    "video_token": "<|VIDEO|>",
    "vision_bos_token": "<|vision_bos|>",
    "vision_eos_token": "<|vision_eos|>",
}


def build_tiny_qwen2_5_omni(folder: Path) -> Path:
    """A random Qwen2.5-Omni thinker (Whisper-style audio encoder and Qwen2.5-VL-style vision tower,
    1 layer each; 2-layer text side), with no talker (speech output), as lmms-eval runs it; the
    speaker table the class loads holds the default speaker."""
    import torch
    from transformers import (
        Qwen2_5OmniConfig,
        Qwen2_5OmniForConditionalGeneration,
        Qwen2_5OmniProcessor,
        Qwen2VLImageProcessor,
        Qwen2VLVideoProcessor,
        WhisperFeatureExtractor,
    )

    fast = _tiny_tokenizer(tuple(_OMNI_TOKENS.values()), named=_OMNI_TOKENS)
    ids = {name: fast.convert_tokens_to_ids(token) for name, token in _OMNI_TOKENS.items()}
    thinker = dict(
        audio_config=_audio_encoder(
            d_model=32,
            encoder_layers=1,
            encoder_attention_heads=2,
            encoder_ffn_dim=64,
            output_dim=64,
        ),
        vision_config=dict(
            depth=1,
            hidden_size=32,
            intermediate_size=64,
            num_heads=2,
            out_hidden_size=64,
            fullatt_block_indexes=[0],
            window_size=56,
        ),
        text_config=_tiny_text_config(
            fast, rope_parameters={"rope_type": "default", "mrope_section": [2, 3, 3]}
        ),
        audio_token_index=ids["audio_token"],
        image_token_index=ids["image_token"],
        video_token_index=ids["video_token"],
        audio_start_token_id=ids["audio_bos_token"],
        audio_end_token_id=ids["audio_eos_token"],
        vision_start_token_id=ids["vision_bos_token"],
        vision_end_token_id=ids["vision_eos_token"],
    )
    config = Qwen2_5OmniConfig(thinker_config=thinker, enable_audio_output=False)
    torch.manual_seed(0)
    Qwen2_5OmniForConditionalGeneration(config).save_pretrained(folder)
    torch.save({"Chelsie": {"bos_token": fast.eos_token_id}}, Path(folder) / "spk_dict.pt")
    pixels = {"min_pixels": 28 * 28, "max_pixels": 56 * 56}
    media = {
        "audio": "<|audio_bos|><|AUDIO|><|audio_eos|>",
        "image": "<|vision_bos|><|IMAGE|><|vision_eos|>",
        "video": "<|vision_bos|><|VIDEO|><|vision_eos|>",
    }
    processor = Qwen2_5OmniProcessor(
        image_processor=Qwen2VLImageProcessor(**pixels),
        video_processor=Qwen2VLVideoProcessor(**pixels),
        feature_extractor=WhisperFeatureExtractor(feature_size=128),
        tokenizer=fast,
        chat_template=_chatml_template(media),
    )
    processor.save_pretrained(folder)
    return folder
