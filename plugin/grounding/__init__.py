"""Instrument grounding: five OpenMIC-2018-derived diagnostics for music audio-language models.

answers    free-text answer readers (yes/no, names, letters, time ranges, sets)
options    the user option naming the benchmark set
tasks      lmms-eval glue: docs per task, audio input, scoring
records    per-doc records and the aggregations the task YAMLs name
baselines  reference floors as lmms-eval models (always-first, random, genre prior)
manifests  their entry-point manifests (lmms-eval's `lmms_eval.models` group)
compare    the paired comparison of two runs (`symphony-bench compare`)
figures    the report's answer distributions and confusion matrices
report     the grounding section of the run tooling (report, compare, leaderboard, plots)
"""
