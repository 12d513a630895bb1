"""The stock lmms-eval model classes that cannot run our docs as shipped, and the adapter to use
instead (plugin/lmms). A task's doc_to_visual asks `refuse_known_failures` before it builds a doc's
media: with one of these classes the run stops at once with one line naming the adapter, instead of
an IndexError deep in a processor (the whole run lost, lmms-eval exiting 0) or a run of empty
answers. Harness-free: the classes are known by their module and name, found on the call stack
(a class calls doc_to_visual, or the task's doc_to_messages, from its own generate_until)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from symphony_bench.plugin.core.errors import announce


class UnsupportedModelClass(RuntimeError):
    """A stock model class that cannot run these docs; the message names the adapter to use."""


@dataclass(frozen=True)
class KnownFailure:
    """Where a stock class fails, each with why (None: it does not fail there)."""

    stock: str  # the --model name a user types
    adapter: str  # ours, registered through the lmms_eval.models entry point
    on_controls: str | None = None  # the docs with no media (the no-stimulus and named controls)
    on_every_doc: str | None = None
    without_cuda: str | None = None  # every doc, on a machine without CUDA

    def why(self, attached: bool, cuda: bool) -> str | None:
        if self.on_controls and not attached:
            return self.on_controls
        if self.on_every_doc:
            return self.on_every_doc
        return None if cuda else self.without_cuda


_EMPTY_MEDIA = (
    "the no-stimulus and named controls send no {media}, and its processor fails on {arg}"
)
_SENDS_TO_CUDA = "without CUDA it sends every input to 'cuda' and {then}"
KNOWN_FAILURES = {
    "lmms_eval.models.simple.qwen2_audio.Qwen2_Audio": KnownFailure(
        "qwen2_audio",
        "symphony_qwen2_audio",
        on_controls=_EMPTY_MEDIA.format(media="audio", arg="audio=[]"),
        without_cuda=_SENDS_TO_CUDA.format(then="stops on 'Found no NVIDIA driver'"),
    ),
    "lmms_eval.models.chat.llava_hf.LlavaHf": KnownFailure(
        "llava_hf",
        "symphony_llava_hf",
        on_controls=_EMPTY_MEDIA.format(media="image", arg="images=[]"),
    ),
    "lmms_eval.models.simple.llava_hf.LlavaHf": KnownFailure(
        "llava_hf",
        "symphony_llava_hf",
        on_controls=_EMPTY_MEDIA.format(media="image", arg="images=[]"),
    ),
    "lmms_eval.models.simple.qwen2_5_omni.Qwen2_5_Omni": KnownFailure(
        "qwen2_5_omni --force_simple",
        "symphony_qwen2_5_omni",
        on_controls="it drops the prompt of a doc with no media (the no-stimulus and named controls)",
    ),
    "lmms_eval.models.chat.qwen2_5_omni.Qwen2_5_Omni": KnownFailure(
        "qwen2_5_omni",
        "symphony_qwen2_5_omni",
        on_every_doc="every answer would be empty: with transformers 5 each generation raises on "
        "the disabled talker, and it refuses our audio items",
    ),
    "lmms_eval.models.simple.audio_flamingo_3.AudioFlamingo3": KnownFailure(
        "audio_flamingo_3",
        "symphony_audio_flamingo_3",
        without_cuda=_SENDS_TO_CUDA.format(then="swallows the error: every answer would be empty"),
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
    why = failure and failure.why(attached, _cuda_available())
    if not why:
        return
    error = UnsupportedModelClass(
        f"lmms-eval's {failure.stock} cannot run these tasks ({why}): run "
        f"--model {failure.adapter} with the same --model_args"
        + (" and device=cpu" if why == failure.without_cuda else "")
        + " (docs/model-classes.md)"
    )
    announce(error)
    raise error


@dataclass(frozen=True)
class LoadsOnCuda:
    """A stock class that loads its model onto CUDA unless `argument` is `spared`: without CUDA it
    stops while loading, before lmms-eval builds any task (so before doc_to_visual can object)."""

    adapter: str
    argument: str
    default: str
    spared: str


LOADS_ON_CUDA = {"qwen2_audio": LoadsOnCuda("symphony_qwen2_audio", "device_map", "cuda", "auto")}
_LMMS_EVAL_PROGRAMS = {"lmms-eval", "lmms_eval"}


def _option(argv: list[str], name: str) -> str | None:
    for index, token in enumerate(argv):
        if token == name and index + 1 < len(argv):
            return argv[index + 1]
        if token.startswith(f"{name}="):
            return token.split("=", 1)[1]
    return None


def _is_lmms_eval_command(argv: list[str]) -> bool:
    program = Path(argv[0]) if argv else Path()
    return program.name in _LMMS_EVAL_PROGRAMS or (
        program.name == "__main__.py" and program.parent.name == "lmms_eval"
    )


def refuse_stock_class_that_cannot_load(argv: list[str], cuda: Callable[[], bool]) -> None:
    """In an `lmms-eval` command asking for a stock class that would load onto CUDA on a machine
    without it: announce the one line naming the adapter and exit 1. Called when lmms-eval reads
    our model entry points, which it does before it loads the model; the tasks come after it."""
    loads = LOADS_ON_CUDA.get(_option(argv, "--model") or "")
    if loads is None or not _is_lmms_eval_command(argv):
        return
    model_args = dict(
        item.split("=", 1)
        for item in (_option(argv, "--model_args") or "").split(",")
        if "=" in item
    )
    value = model_args.get(loads.argument, loads.default)
    if value == loads.spared or cuda():
        return
    stock = _option(argv, "--model")
    announce(
        UnsupportedModelClass(
            f"lmms-eval's {stock} cannot run on this machine without CUDA (with {loads.argument}="
            f"{value} it loads the model onto 'cuda' and stops on 'Found no NVIDIA driver'): run "
            f"--model {loads.adapter} with the same --model_args and device=cpu (docs/model-classes.md)"
        )
    )
    raise SystemExit(1)
