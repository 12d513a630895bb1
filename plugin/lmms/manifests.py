"""Entry point payload of the `lmms_eval.models` group: our model names, without importing the
model classes (lmms-eval imports a class only when its model is requested)."""

from lmms_eval.models.registry_v2 import ModelManifest

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
