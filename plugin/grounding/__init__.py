"""Instrument grounding: five OpenMIC-2018-derived diagnostics for music audio-language models.

answers    free-text answer readers (yes/no, names, letters, time ranges, sets)
options    the user option naming the benchmark set
tasks      lmms-eval glue: docs per task, audio input, scoring
records    per-doc records and the aggregations the task YAMLs name
baselines  reference floors as lmms-eval models (always-first, random, genre prior)
report     the grounding section of `symphony-bench report`
"""
