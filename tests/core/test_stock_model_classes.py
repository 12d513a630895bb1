"""A stock lmms-eval class known to fail on our docs is stopped at the doc, naming the adapter; the
adapters (subclasses) and the classes that work pass. The classes are stand-ins with the stock
classes' module and name (the real ones need a model): tests/symphony_bias/test_model_classes.py
runs the real llava_hf through lmms-eval."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest
from support.harness import executable, run_cli, tasks_path

from symphony_bench.plugin.core import model_classes
from symphony_bench.plugin.core.errors import forget_announced
from symphony_bench.plugin.core.model_classes import (
    KNOWN_FAILURES,
    UnsupportedModelClass,
    refuse_known_failures,
)
from symphony_bench.plugin.devtools.tiny_models import build_tiny_qwen2_audio


def model_class(path: str, base: type | None = None) -> type:
    """A class named `path` (module.Class) that builds a doc's media from its generate_until."""
    lmms = type("lmms", (), {"__module__": "lmms_eval.api.model"})
    module, name = path.rsplit(".", 1)

    def generate_until(self, attached: bool) -> str:
        refuse_known_failures(attached)  # as a task's doc_to_visual does, deeper in the stack
        return "answer"

    return type(name, (base or lmms,), {"__module__": module, "generate_until": generate_until})


@pytest.mark.parametrize("path", list(KNOWN_FAILURES))
@pytest.mark.parametrize("cuda", [False, True])
def test_a_stock_class_that_fails_is_stopped_naming_its_adapter(path, cuda, capsys, monkeypatch):
    monkeypatch.setattr(model_classes, "_cuda_available", lambda: cuda)
    failure = KNOWN_FAILURES[path]
    stock = model_class(path)()
    for attached in (False, True):
        fails = bool(
            (failure.on_controls and not attached)
            or failure.on_every_doc
            or (failure.without_cuda and not cuda)
        )
        if not fails:
            assert stock.generate_until(attached=attached) == "answer"
            continue
        with pytest.raises(UnsupportedModelClass, match=f"run --model {failure.adapter} with the"):
            stock.generate_until(attached=attached)
        assert f"lmms-eval's {failure.stock} cannot run these tasks" in capsys.readouterr().err
    # the adapter is a subclass in our package: it runs
    adapter = model_class(f"symphony_bench.plugin.lmms.x.{failure.adapter}", type(stock))()
    assert adapter.generate_until(attached=False) == "answer"


def test_stock_qwen2_audio_on_a_cpu_is_stopped_on_docs_with_audio_too(monkeypatch, capsys):
    """Recognition and grounding send audio with every doc: without CUDA the stock class would stop
    on 'Found no NVIDIA driver' with no line naming the adapter."""
    monkeypatch.setattr(model_classes, "_cuda_available", lambda: False)
    stock = model_class("lmms_eval.models.simple.qwen2_audio.Qwen2_Audio")()
    with pytest.raises(
        UnsupportedModelClass,
        match="symphony_qwen2_audio with the same --model_args and device=cpu",
    ):
        stock.generate_until(attached=True)
    monkeypatch.setattr(model_classes, "_cuda_available", lambda: True)
    assert stock.generate_until(attached=True) == "answer"


def test_audio_flamingo_3_is_stopped_only_without_cuda(monkeypatch):
    stock = model_class("lmms_eval.models.simple.audio_flamingo_3.AudioFlamingo3")()
    monkeypatch.setattr(model_classes, "_cuda_available", lambda: True)
    assert stock.generate_until(attached=True) == "answer"


def test_the_announced_stop_is_the_last_line_after_an_open_progress_bar(tmp_path):
    """lmms-eval leaves its progress bar open when a doc raises; tqdm redraws it when it is
    collected at exit, after the exit handlers, burying the line that names the adapter."""
    script = (
        "import tqdm\n"
        "from symphony_bench.plugin.core.errors import announce\n"
        "bar = tqdm.tqdm(total=10, desc='Model Responding')\n"
        "bar.update(3)\n"
        "announce(RuntimeError('run --model symphony_qwen2_audio'))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120
    )
    lines = [line for line in re.split(r"[\r\n]", done.stderr) if line.strip()]
    assert lines[-1] == "symphony-bench: error: run --model symphony_qwen2_audio", lines[-3:]


def test_classes_that_run_the_docs_and_no_model_pass():
    for path in (
        "lmms_eval.models.simple.qwen2_vl.Qwen2_VL",
        "lmms_eval.models.chat.qwen2_5_vl.Qwen2_5_VL",
    ):
        assert model_class(path)().generate_until(attached=False) == "answer"
    refuse_known_failures(attached=False)  # called outside any model (a test building docs)


LMMS_EVAL = ["/venv/bin/lmms-eval", "--tasks", "t"]


@pytest.mark.parametrize(
    "argv",
    [
        [*LMMS_EVAL, "--model", "qwen2_audio", "--model_args", "pretrained=x"],
        [*LMMS_EVAL, "--model=qwen2_audio", "--model_args=pretrained=x,device_map=cuda:0"],
        ["/x/lmms_eval/__main__.py", "--model", "qwen2_audio", "--model_args", "device_map=cpu"],
    ],
)
def test_stock_qwen2_audio_that_would_load_onto_cuda_is_stopped_before_it_loads(argv, capsys):
    with pytest.raises(SystemExit) as stopped:
        model_classes.refuse_stock_class_that_cannot_load(argv, cuda=lambda: False)
    assert stopped.value.code == 1
    assert "run --model symphony_qwen2_audio with the same --model_args and device=cpu" in (
        capsys.readouterr().err
    )
    forget_announced()


@pytest.mark.parametrize(
    ("argv", "cuda"),
    [
        ([*LMMS_EVAL, "--model", "qwen2_audio", "--model_args", "device_map=auto"], False),
        ([*LMMS_EVAL, "--model", "qwen2_audio", "--model_args", "pretrained=x"], True),
        ([*LMMS_EVAL, "--model", "symphony_qwen2_audio", "--model_args", "pretrained=x"], False),
        (["/venv/bin/pytest", "--model", "qwen2_audio"], False),
    ],
)
def test_other_classes_arguments_and_commands_are_left_to_load(argv, cuda):
    model_classes.refuse_stock_class_that_cannot_load(argv, cuda=lambda: cuda)


@pytest.mark.e2e
def test_stock_qwen2_audio_on_a_cpu_stops_naming_the_adapter_through_lmms_eval(tmp_path):
    """Stock qwen2_audio loads onto 'cuda' before lmms-eval builds a task: lmms-eval stopped with
    torch's raw 'Found no NVIDIA driver' before any of our task code ran."""
    tiny = build_tiny_qwen2_audio(tmp_path / "tiny-qwen2-audio")
    done = run_cli(
        [
            executable("lmms-eval"),
            "--model",
            "qwen2_audio",
            "--model_args",
            f"pretrained={tiny}",
            "--tasks",
            "symphony_bias_audio_mini",
            "--include_path",
            str(tasks_path("lmms-eval")),
            "--output_path",
            str(tmp_path / "run"),
        ],
        cwd=tmp_path,
        env={"CUDA_VISIBLE_DEVICES": ""},
    )
    lines = [line for line in re.split(r"[\r\n]", done.stderr) if line.strip()]
    assert done.returncode != 0
    assert lines[-1].startswith("symphony-bench: error: lmms-eval's qwen2_audio cannot run"), lines[
        -3:
    ]
    assert "--model symphony_qwen2_audio with the same --model_args and device=cpu" in lines[-1]
