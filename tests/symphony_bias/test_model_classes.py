"""Every condition of the audio and image tasks on each lmms-eval model class users run (the stock
class, or our `symphony_<class>` adapter where the stock one cannot run them), each with a tiny
random model of the real architecture built here (processor and tokenizer too), through the real
`lmms-eval` command line; then `report` and `check`. What each model was given is read from a
probe on transformers' `generate` (tests/support/generate_probe): the media arrive with the
stimulus docs, the controls send none, and no prompt is dropped."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pytest
from support.harness import read_lmms_results, read_lmms_samples, run_lmms_eval, run_symphony_bench

from symphony_bench.plugin.devtools import tiny_models

PROBE = Path(__file__).parents[1] / "support" / "generate_probe"
MEDIA_TENSORS = {"audio": "input_features", "image": "pixel_values"}
LIMIT = 2


@dataclass(frozen=True)
class ModelClass:
    model: str  # the --model name
    builder: str  # in plugin.devtools.tiny_models
    args: str  # --model_args beside pretrained
    modality: str
    placeholder: str  # the token the processor repeats where the media go


CLASSES = {
    "qwen2_audio": ModelClass(
        "symphony_qwen2_audio", "build_tiny_qwen2_audio", "", "audio", "<|AUDIO|>"
    ),
    "audio_flamingo_3": ModelClass(
        "symphony_audio_flamingo_3", "build_tiny_audio_flamingo_3", "", "audio", "<sound>"
    ),
    "qwen2_5_omni": ModelClass(
        "symphony_qwen2_5_omni", "build_tiny_qwen2_5_omni", ",device=cpu", "audio", "<|AUDIO|>"
    ),
    "llava_hf": ModelClass(
        "symphony_llava_hf", "build_tiny_llava", ",device=cpu", "image", "<image>"
    ),
    "qwen2_vl": ModelClass(
        "qwen2_vl", "build_tiny_qwen2_vl", ",device=cpu,device_map=cpu", "image", "<|image_pad|>"
    ),
    "qwen2_5_vl": ModelClass(
        "qwen2_5_vl",
        "build_tiny_qwen2_5_vl",
        ",device=cpu,device_map=cpu",
        "image",
        "<|image_pad|>",
    ),
}


@pytest.fixture(scope="session")
def tiny_model(tmp_path_factory):
    """builder name -> its tiny model folder, each built once per session."""
    built: dict[str, Path] = {}

    def build(name: str) -> Path:
        if name not in built:
            built[name] = getattr(tiny_models, name)(tmp_path_factory.mktemp(name))
        return built[name]

    return build


def generate_calls(log: Path, tokenizer, placeholder: str) -> list[dict]:
    """Each generate call: the text the model was given, its media tensors, its placeholder count."""
    placeholder_id = tokenizer.convert_tokens_to_ids(placeholder)
    calls = []
    for line in log.read_text().splitlines():
        call = json.loads(line)
        calls.append(
            {
                "text": tokenizer.decode(call["ids"]),
                "tensors": call["tensors"],
                "placeholders": call["ids"].count(placeholder_id),
            }
        )
    return calls


@pytest.mark.e2e
@pytest.mark.parametrize("name", list(CLASSES))
def test_every_condition_reaches_the_model_class_in_its_form(
    name, tiny_model, audio_set, image_set, tmp_path
):
    from transformers import AutoTokenizer

    spec = CLASSES[name]
    folder = tiny_model(spec.builder)
    log = tmp_path / "generate.jsonl"
    output = tmp_path / "run"
    suite = f"symphony_bias_{spec.modality}_suite_mini"
    env = {
        "SYMPHONY_AUDIO": str(audio_set),
        "SYMPHONY_IMAGE": str(image_set),
        "SYMPHONY_TEST_GENERATE_LOG": str(log),
        "PYTHONPATH": str(PROBE),
    }
    completed = run_lmms_eval(
        spec.model,
        f"pretrained={folder}{spec.args}",
        suite,
        output,
        env,
        "--limit",
        str(LIMIT),
        "--gen_kwargs",
        "max_new_tokens=6",
    )
    modality = spec.modality
    tasks = {  # task -> whether its docs carry the stimulus
        f"symphony_bias_{modality}_mini": True,
        f"symphony_bias_{modality}_recognition": True,
        f"symphony_bias_{modality}_nostimulus_mini": False,
        f"symphony_bias_{modality}_named_mini": False,
    }
    results = read_lmms_results(output)
    calls = generate_calls(log, AutoTokenizer.from_pretrained(folder), spec.placeholder)
    assert len(calls) == LIMIT * len(tasks), completed.stderr[-3000:]
    media = MEDIA_TENSORS[modality]
    for call in calls:  # media tensors and their placeholders come together, or neither
        assert (media in call["tensors"]) == (call["placeholders"] > 0), call
    assert sum(media in call["tensors"] for call in calls) == LIMIT * 2
    for task, attached in tasks.items():
        assert task in results, task
        samples = read_lmms_samples(output, task)
        assert len(samples) == LIMIT, task
        answers = [sample["filtered_resps"] for sample in samples]
        assert all(isinstance(a, str) and a.strip() for a in answers), (task, answers)
        for sample in samples:
            given = [call for call in calls if sample["input"] in call["text"]]
            assert given, (task, "prompt dropped", sample["input"][:80], calls[0]["text"][:300])
            assert any((media in call["tensors"]) == attached for call in given), (task, given)
    report = run_symphony_bench(["report", str(output)], cwd=tmp_path)
    assert report.returncode == 0, report.stderr
    check = run_symphony_bench(["check", str(output), "--tasks", suite], cwd=tmp_path)
    # every task ran and answered; a tiny random model's answers may all be unreadable
    stops = [line for line in check.stderr.splitlines() if line.startswith("symphony-bench: ")]
    assert all("nothing could be read from" in line for line in stops), check.stderr
    assert check.returncode == (1 if stops else 0), check.stderr


@pytest.mark.e2e
def test_stock_llava_hf_stops_at_the_first_control_doc_naming_the_adapter(
    tiny_model, image_set, tmp_path
):
    """The stock class would end the run with an IndexError deep in its processor: the run stops
    before it, ours is the last line, and `check` fails the run."""
    output = tmp_path / "run"
    completed = run_lmms_eval(
        "llava_hf",
        f"pretrained={tiny_model('build_tiny_llava')},device=cpu,device_map=cpu",
        "symphony_bias_image_nostimulus_mini",
        output,
        {"SYMPHONY_IMAGE": str(image_set)},
        "--limit",
        "1",
    )
    ours = (
        "symphony-bench: error: lmms-eval's llava_hf cannot run these tasks (the no-stimulus and "
        "named controls send no image, and its processor fails on images=[]): run --model "
        "symphony_llava_hf with the same --model_args"
    )
    # the progress bar the class had opened is closed after the process's exit handlers
    lines = [
        line
        for line in completed.stderr.strip().splitlines()
        if line.strip() and not line.startswith("Model Responding")
    ]
    assert lines[-1].startswith(ours), lines[-3:]
    assert "IndexError" not in completed.stderr
    check = run_symphony_bench(
        ["check", str(output), "--tasks", "symphony_bias_image_nostimulus_mini"], cwd=tmp_path
    )
    assert check.returncode == 1


@pytest.mark.slow  # imports lmms-eval and its omni class (~10 s)
def test_the_omni_adapter_runs_on_the_cpu_without_cuda_and_never_sends_to_cuda(monkeypatch):
    """The stock set-up on a machine without CUDA answers "" to every doc, and lmms-eval exits 0."""
    import torch

    from symphony_bench.plugin.core.errors import forget_announced
    from symphony_bench.plugin.lmms import omni

    given = []

    def stock_init(self, pretrained, device, **kwargs):
        given.append((device, kwargs.get("device_map")))
        self.device_map = kwargs.get("device_map", "cuda")

    monkeypatch.setattr(omni.Qwen2_5_Omni, "__init__", stock_init)
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    adapter = omni.Qwen25OmniSymphony(pretrained="tiny")
    assert given == [("cpu", "auto")] and adapter.device_map == "cpu"
    with pytest.raises(
        ValueError, match="device=cuda, but this machine has no CUDA: pass device=cpu"
    ):
        omni.Qwen25OmniSymphony(pretrained="tiny", device="cuda")
    forget_announced()
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    omni.Qwen25OmniSymphony(pretrained="tiny")
    assert given[-1] == ("cuda", None)
