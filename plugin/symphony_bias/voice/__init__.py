"""Symphony-Bias speaker voice: does an audio LM answer the same spoken words differently in a female
and a male voice? lmms-eval glue (`tasks`), records (`records`) and the report section (`report`);
the stimuli are built by `symphony-bench build symphony-bias-voice` (hub_upload)."""
