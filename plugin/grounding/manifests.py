"""Entry point payload of the `lmms_eval.models` group for the grounding reference floors: their
model names, without importing the model classes (lmms-eval imports a class only when its model is
requested)."""

from lmms_eval.models.registry_v2 import ModelManifest

MODEL_MANIFESTS = (
    ModelManifest(
        model_id="grounding_always_first",
        simple_class_path="symphony_bench.plugin.grounding.baselines.AlwaysFirst",
        aliases=("grounding_always_yes", "grounding_always_first_range"),
    ),
    ModelManifest(
        model_id="grounding_random",
        simple_class_path="symphony_bench.plugin.grounding.baselines.RandomOption",
    ),
    ModelManifest(
        model_id="grounding_genre_prior",
        simple_class_path="symphony_bench.plugin.grounding.baselines.GenrePrior",
    ),
)
