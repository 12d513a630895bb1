"""lmms-eval glue for the tasks in this folder (lmms-eval imports `!function utils.<name>` from here)."""

from symphony_bench.plugin.symphony_bias_common import (  # noqa: F401  (named by the YAMLs)
    consistency_rate,
    consistency_rate_stderr,
    invalid_rate,
    invalid_rate_stderr,
    mean_abs,
    mean_abs_stderr,
    non_binary_gas,
    non_binary_gas_stderr,
)
from symphony_bench.plugin.symphony_bias_multimodal import (  # noqa: F401
    MODALITIES,
    audio_visual,
    doc_to_text,
    docs_function,
    image_visual,
    process_likert,
    process_recognition,
    recognition_accuracy,
    recognition_accuracy_stderr,
)

# <modality>_<condition>_<subset>_docs and <modality>_recognition_docs, as the task YAMLs name them
globals().update(
    {
        f"{modality}_{condition}_{subset}_docs": docs_function(modality, condition, subset)
        for modality in MODALITIES
        for condition in ("stimulus", "no_stimulus", "named")
        for subset in ("full", "mini")
    }
)
globals().update({f"{modality}_recognition_docs": docs_function(modality, "recognition") for modality in MODALITIES})
