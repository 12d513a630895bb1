"""`symphony_qwen2_5_omni`: lmms-eval's qwen2_5_omni chat class made to answer. As shipped (0.7.3,
transformers 5) it answers "" to every doc, and lmms-eval, `report` and `check` see a run:

- every generation raises "Cannot use talker when talker module not initialized": the class
  disables the talker (speech output) and asks for text with `return_audio=False`, which
  transformers 5 no longer reads, and transformers 5's `generate` reads the talker's settings even
  for text: this class asks the thinker (the text model) directly;
- an audio item arrives as lmms-eval's `{"array", "sampling_rate"}` dict, which qwen-omni-utils
  cannot read (`'dict' object has no attribute 'startswith'`): it takes a 16 kHz array;
- the processor is always loaded from the Hub's Qwen/Qwen2.5-Omni-7B, whatever `pretrained` says;
- `max_new_tokens` never reaches the thinker, which generates up to 1,024 tokens;
- on a machine without CUDA, inputs go to "cuda" by name (device_map "auto"): this class runs on
  the CPU there when no device is given, and stops naming device=cpu when CUDA is asked for.

The simple class (`--force_simple`) drops the prompt of a doc with no media (the controls): this
name has no simple class, so it always runs the chat one.
"""

from __future__ import annotations

from unittest import mock

import numpy as np
from lmms_eval.models.chat.qwen2_5_omni import Qwen2_5_Omni
from lmms_eval.models.simple import qwen2_5_omni as stock_simple
from qwen_omni_utils import process_mm_info

from symphony_bench.plugin.core.errors import announce


def _checked_device(device: str | None) -> str:
    """The device to run on: the one given, else CUDA where there is one and the CPU elsewhere. A
    CUDA device asked for on a machine without CUDA stops the run (the stock set-up would answer ""
    to every doc)."""
    import torch

    cuda = torch.cuda.is_available()
    if device is None:
        return "cuda" if cuda else "cpu"
    if device != "cpu" and not cuda:
        error = ValueError(
            f"symphony_qwen2_5_omni: device={device}, but this machine has no CUDA: pass device=cpu "
            "in --model_args (or leave device out)"
        )
        announce(error)
        raise error
    return device


class Qwen25OmniSymphony(Qwen2_5_Omni):
    """lmms-eval's qwen2_5_omni chat class: text answers, our audio dicts, the processor of
    `pretrained`, the task's `max_new_tokens`, and the CPU with device=cpu."""

    def __init__(self, pretrained: str, device: str | None = None, **kwargs) -> None:
        device = _checked_device(device)
        stock_processor = stock_simple.Qwen2_5OmniProcessor

        class ProcessorOfPretrained:
            @staticmethod
            def from_pretrained(_name, **options):
                return stock_processor.from_pretrained(pretrained, **options)

        if device == "cpu":
            kwargs["device_map"] = "auto"  # the stock class loads on CUDA unless "auto"
        with mock.patch.object(stock_simple, "Qwen2_5OmniProcessor", ProcessorOfPretrained):
            super().__init__(pretrained=pretrained, device=device, **kwargs)
        if device == "cpu":
            self.device_map = "cpu"  # inputs follow the model, not "cuda"

    def _audio_as_array(self, item: dict) -> dict:
        audio = item.get("audio")
        if isinstance(audio, dict) and "array" in audio:
            array = np.asarray(audio["array"], dtype=np.float32)
            return {**item, "audio": self.resample_audio(array, int(audio["sampling_rate"]))}
        return item

    def _infer_one(self, chat_messages, gen_kwargs: dict) -> str:
        hf_messages = self._with_system(chat_messages).to_hf_messages(
            image_kwargs=self.image_kwargs, video_kwargs=self.video_kwargs
        )
        for message in hf_messages:
            message["content"] = [self._audio_as_array(item) for item in message["content"]]
        text = self.processor.apply_chat_template(
            hf_messages, add_generation_prompt=True, tokenize=False
        )
        audios, images, videos = process_mm_info(hf_messages, use_audio_in_video=False)
        inputs = self.processor(
            text=text,
            audio=audios,
            images=images,
            videos=videos,
            return_tensors="pt",
            padding=True,
            use_audio_in_video=False,
        )
        device = "cuda" if self.device_map == "auto" else self.model.device
        inputs = inputs.to(device).to(self.model.dtype)
        temperature = gen_kwargs.get("temperature", 0)
        # the thinker writes the text; the wrapper's generate needs the talker even for text
        sequences = self.model.thinker.generate(
            **inputs,
            use_audio_in_video=False,
            max_new_tokens=gen_kwargs.get("max_new_tokens", 4096),
            do_sample=temperature > 0,
            temperature=temperature if temperature > 0 else None,
            top_p=gen_kwargs.get("top_p"),
            num_beams=gen_kwargs.get("num_beams", 1),
            eos_token_id=self.tokenizer.eos_token_id,
            pad_token_id=self.tokenizer.pad_token_id,
            use_cache=self.use_cache,
        )
        answer = sequences[:, inputs["input_ids"].shape[1] :]
        return self.processor.batch_decode(
            answer, skip_special_tokens=True, clean_up_tokenization_spaces=False
        )[0]
