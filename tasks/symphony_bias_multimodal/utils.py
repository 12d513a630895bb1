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
    audio_visual,
    doc_to_text,
    docs_function,
    image_visual,
    process_likert,
    process_recognition,
    recognition_accuracy,
    recognition_accuracy_stderr,
)

audio_stimulus_full_docs = docs_function("audio", "stimulus", "full")
audio_stimulus_mini_docs = docs_function("audio", "stimulus", "mini")
audio_no_stimulus_full_docs = docs_function("audio", "no_stimulus", "full")
audio_no_stimulus_mini_docs = docs_function("audio", "no_stimulus", "mini")
audio_named_full_docs = docs_function("audio", "named", "full")
audio_named_mini_docs = docs_function("audio", "named", "mini")
audio_recognition_docs = docs_function("audio", "recognition")
image_stimulus_full_docs = docs_function("image", "stimulus", "full")
image_stimulus_mini_docs = docs_function("image", "stimulus", "mini")
image_no_stimulus_full_docs = docs_function("image", "no_stimulus", "full")
image_no_stimulus_mini_docs = docs_function("image", "no_stimulus", "mini")
image_named_full_docs = docs_function("image", "named", "full")
image_named_mini_docs = docs_function("image", "named", "mini")
image_recognition_docs = docs_function("image", "recognition")
