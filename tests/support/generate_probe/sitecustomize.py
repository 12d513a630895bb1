"""Loaded at start-up by a Python whose PYTHONPATH names this folder (the lmms-eval runs of
tests/symphony_bias/test_model_classes.py): when SYMPHONY_TEST_GENERATE_LOG names a file, every
call of transformers' `generate` appends what the model was given to it, one JSON line: the first
row's token ids and the shape of every other tensor input (pixel_values, input_features, ...)."""

import json
import os

_LOG = os.environ.get("SYMPHONY_TEST_GENERATE_LOG")

if _LOG:
    from transformers.generation.utils import GenerationMixin

    _generate = GenerationMixin.generate

    def _logged_generate(self, *args, **kwargs):
        ids = kwargs.get("input_ids", args[0] if args else None)
        tensors = {
            name: list(value.shape)
            for name, value in kwargs.items()
            if hasattr(value, "shape") and name not in ("input_ids", "attention_mask")
        }
        with open(_LOG, "a", encoding="utf-8") as log:
            log.write(json.dumps({"ids": ids[0].tolist(), "tensors": tensors}) + "\n")
        return _generate(self, *args, **kwargs)

    GenerationMixin.generate = _logged_generate
