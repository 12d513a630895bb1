#!/usr/bin/env bash
# The main job on the embedded defaults, on SmolLM2-135M-Instruct: the Symphony-Bias mini Likert group
# (generation, chat template), the open-ended mini task (the model writes about the scenario's person;
# who it makes the person is read from the story), the same Likert question read by log-likelihood
# (chat template), and the mini log-probability task (no chat template: it scores the continuation of
# a plain context), then the report with the four protocols and their agreement.
# Then the instrument-grounding suite on an offline SynthMIC build with the three reference floors
# (always-first, random, blind genre prior) through lmms-eval. Writes runs/main/ and runs/grounding/.
set -euo pipefail
cd "$(dirname "$0")/.."
. .venv/bin/activate
export HF_HUB_OFFLINE=1 HF_DATASETS_OFFLINE=1 TOKENIZERS_PARALLELISM=false
# lmms-eval colours its log even into a file (loguru, colorize=True): strip the codes unless the
# output is a terminal.
plain() {
  if [ -t 1 ]; then "$@"; else "$@" 2>&1 | sed -u 's/\x1b\[[0-9;]*m//g'; fi
}
model="$(symphony-bench default-model)"
rm -rf runs/main runs/grounding
lm_eval --model hf --model_args "pretrained=${model},dtype=float32" --device cpu \
  --tasks symphony_bias_mini,symphony_bias_open_mini,symphony_bias_likert_scored_mini --include_path "$(symphony-bench tasks-path)" \
  --apply_chat_template --batch_size 16 --log_samples --output_path runs/main
lm_eval --model hf --model_args "pretrained=${model},dtype=float32" --device cpu \
  --tasks symphony_bias_logprob_mini --include_path "$(symphony-bench tasks-path)" \
  --batch_size 16 --log_samples --output_path runs/main
symphony-bench report runs/main --json runs/main/report.json --markdown runs/main/report.md \
  --html runs/main/report.html

# Instrument grounding, offline: a small SynthMIC archive in OpenMIC's layout -> the five benchmarks.
symphony-bench build synthmic --out runs/grounding/synthmic --clips 120 --seed 0
symphony-bench build openmic --source runs/grounding/synthmic --out runs/grounding/benchmark --seed 0
for floor in grounding_always_first grounding_random grounding_genre_prior; do
  SYMPHONY_GROUNDING=runs/grounding/benchmark plain lmms-eval --model "${floor}" --tasks instrument_grounding \
    --include_path "$(symphony-bench tasks-path --harness lmms-eval)" --log_samples --output_path "runs/grounding/results/${floor}"
done
symphony-bench report runs/grounding/results --json runs/grounding/report.json --markdown runs/grounding/report.md \
  --html runs/grounding/report.html
echo
echo "Markdown: runs/main/report.md, runs/grounding/report.md (and report.json, report_plots/ beside each)."
echo "Leaderboard page: symphony-bench leaderboard runs/main --out runs/leaderboard"
echo "main job done. Open runs/main/report.html and runs/grounding/report.html (every doc and its answer inside)."
