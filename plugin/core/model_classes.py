"""The stock lmms-eval model classes that cannot run our docs as shipped, and the adapter to use
instead (plugin/lmms). A task's doc_to_visual asks `refuse_known_failures` before it builds a doc's
media: with one of these classes the run stops at once with one line naming the adapter, instead of
an IndexError deep in a processor (the whole run lost, lmms-eval exiting 0) or a run of empty
answers. Harness-free: the classes are known by their module and name, found on the call stack
(a class calls doc_to_visual, or the task's doc_to_messages, from its own generate_until)."""

from __future__ import annotations

import sys
from dataclasses import dataclass

from symphony_bench.plugin.core.errors import announce


class UnsupportedModelClass(RuntimeError):
    """A stock model class that cannot run these docs; the message names the adapter to use."""


@dataclass(frozen=True)
class KnownFailure:
    stock: str  # the --model name a user types
    adapter: str  # ours, registered through the lmms_eval.models entry point
    why: str
    controls_only: bool = (
        True  # fails only on docs with no media (the no-stimulus and named controls)
    )
    without_cuda_only: bool = False


_EMPTY_MEDIA = (
    "the no-stimulus and named controls send no {media}, and its processor fails on {arg}"
)
KNOWN_FAILURES = {
    "lmms_eval.models.simple.qwen2_audio.Qwen2_Audio": KnownFailure(
        "qwen2_audio", "symphony_qwen2_audio", _EMPTY_MEDIA.format(media="audio", arg="audio=[]")
    ),
    "lmms_eval.models.chat.llava_hf.LlavaHf": KnownFailure(
        "llava_hf", "symphony_llava_hf", _EMPTY_MEDIA.format(media="image", arg="images=[]")
    ),
    "lmms_eval.models.simple.llava_hf.LlavaHf": KnownFailure(
        "llava_hf", "symphony_llava_hf", _EMPTY_MEDIA.format(media="image", arg="images=[]")
    ),
    "lmms_eval.models.simple.qwen2_5_omni.Qwen2_5_Omni": KnownFailure(
        "qwen2_5_omni --force_simple",
        "symphony_qwen2_5_omni",
        "it drops the prompt of a doc with no media (the no-stimulus and named controls)",
    ),
    "lmms_eval.models.chat.qwen2_5_omni.Qwen2_5_Omni": KnownFailure(
        "qwen2_5_omni",
        "symphony_qwen2_5_omni",
        "every answer would be empty: with transformers 5 each generation raises on the disabled "
        "talker, and it refuses our audio items",
        controls_only=False,
    ),
    "lmms_eval.models.simple.audio_flamingo_3.AudioFlamingo3": KnownFailure(
        "audio_flamingo_3",
        "symphony_audio_flamingo_3",
        "without CUDA every answer would be empty: it sends inputs to 'cuda' and swallows the error",
        controls_only=False,
        without_cuda_only=True,
    ),
}


def _is_lmms_model(owner) -> bool:
    return any(
        (cls.__module__, cls.__qualname__) == ("lmms_eval.api.model", "lmms")
        for cls in type(owner).__mro__
    )


def calling_model_class() -> str | None:
    """`module.Class` of the nearest lmms-eval model instance on the call stack (an lmms-eval
    `lmms`: a stock class or one of ours), if any."""
    frame = sys._getframe(1)
    while frame is not None:
        owner = frame.f_locals.get("self")
        if owner is not None and _is_lmms_model(owner):
            return f"{type(owner).__module__}.{type(owner).__qualname__}"
        frame = frame.f_back
    return None


def _cuda_available() -> bool:
    torch = sys.modules.get("torch")  # a model class on the stack has imported it
    return bool(torch is not None and torch.cuda.is_available())


def refuse_known_failures(attached: bool) -> None:
    """Raise UnsupportedModelClass (announced: printed now and again as the last line at exit)
    when the model class building this doc is a stock one known to fail on it."""
    failure = KNOWN_FAILURES.get(calling_model_class() or "")
    if failure is None or (failure.controls_only and attached):
        return
    if failure.without_cuda_only and _cuda_available():
        return
    error = UnsupportedModelClass(
        f"lmms-eval's {failure.stock} cannot run these tasks ({failure.why}): run "
        f"--model {failure.adapter} with the same --model_args (docs/model-classes.md)"
    )
    announce(error)
    raise error
