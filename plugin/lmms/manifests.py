"""Entry point payload of the `lmms_eval.models` group: our model names, without importing the
model classes (lmms-eval imports a class only when its model is requested)."""

import sys

from lmms_eval.models.registry_v2 import ModelManifest

from symphony_bench.plugin.core.model_classes import refuse_stock_class_that_cannot_load


def _cuda() -> bool:
    import torch

    return torch.cuda.is_available()


# lmms-eval reads these entry points when it starts, before it loads the model: the last point
# where a stock class that fails while loading can be stopped with a line naming our adapter
refuse_stock_class_that_cannot_load(sys.argv, _cuda)

MODEL_MANIFESTS = (
    ModelManifest(
        model_id="symphony_qwen2_audio",
        simple_class_path="symphony_bench.plugin.lmms.models.Qwen2AudioSymphony",
    ),
    ModelManifest(
        model_id="symphony_llava_hf",
        chat_class_path="symphony_bench.plugin.lmms.llava.LlavaHfSymphony",
        simple_class_path="symphony_bench.plugin.lmms.llava.LlavaHfSymphonySimple",
    ),
    ModelManifest(
        model_id="symphony_audio_flamingo_3",
        simple_class_path="symphony_bench.plugin.lmms.audio_flamingo.AudioFlamingo3Symphony",
    ),
    ModelManifest(
        model_id="symphony_qwen2_5_omni",
        chat_class_path="symphony_bench.plugin.lmms.omni.Qwen25OmniSymphony",
    ),
    ModelManifest(
        model_id="symphony_replay",
        simple_class_path="symphony_bench.plugin.lmms.models.ReplayResponses",
    ),
)
