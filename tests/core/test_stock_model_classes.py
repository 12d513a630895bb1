"""A stock lmms-eval class known to fail on our docs is stopped at the doc, naming the adapter; the
adapters (subclasses) and the classes that work pass. The classes are stand-ins with the stock
classes' module and name (the real ones need a model): tests/symphony_bias/test_model_classes.py
runs the real llava_hf through lmms-eval."""

from __future__ import annotations

import pytest

from symphony_bench.plugin.core import model_classes
from symphony_bench.plugin.core.model_classes import (
    KNOWN_FAILURES,
    UnsupportedModelClass,
    refuse_known_failures,
)


def model_class(path: str, base: type | None = None) -> type:
    """A class named `path` (module.Class) that builds a doc's media from its generate_until."""
    lmms = type("lmms", (), {"__module__": "lmms_eval.api.model"})
    module, name = path.rsplit(".", 1)

    def generate_until(self, attached: bool) -> str:
        refuse_known_failures(attached)  # as a task's doc_to_visual does, deeper in the stack
        return "answer"

    return type(name, (base or lmms,), {"__module__": module, "generate_until": generate_until})


@pytest.mark.parametrize("path", list(KNOWN_FAILURES))
def test_a_stock_class_that_fails_is_stopped_naming_its_adapter(path, capsys, monkeypatch):
    monkeypatch.setattr(model_classes, "_cuda_available", lambda: False)
    failure = KNOWN_FAILURES[path]
    stock = model_class(path)()
    with pytest.raises(UnsupportedModelClass, match=f"run --model {failure.adapter} with the same"):
        stock.generate_until(attached=False)
    assert f"lmms-eval's {failure.stock} cannot run these tasks" in capsys.readouterr().err
    if failure.controls_only:
        assert stock.generate_until(attached=True) == "answer"
    else:
        with pytest.raises(UnsupportedModelClass):
            stock.generate_until(attached=True)
    # the adapter is a subclass in our package: it runs
    adapter = model_class(f"symphony_bench.plugin.lmms.x.{failure.adapter}", type(stock))()
    assert adapter.generate_until(attached=False) == "answer"


def test_audio_flamingo_3_is_stopped_only_without_cuda(monkeypatch):
    stock = model_class("lmms_eval.models.simple.audio_flamingo_3.AudioFlamingo3")()
    monkeypatch.setattr(model_classes, "_cuda_available", lambda: True)
    assert stock.generate_until(attached=True) == "answer"


def test_classes_that_run_the_docs_and_no_model_pass():
    for path in (
        "lmms_eval.models.simple.qwen2_vl.Qwen2_VL",
        "lmms_eval.models.chat.qwen2_5_vl.Qwen2_5_VL",
    ):
        assert model_class(path)().generate_until(attached=False) == "answer"
    refuse_known_failures(attached=False)  # called outside any model (a test building docs)
