#!/usr/bin/env bash
# The main job on the embedded defaults, on SmolLM2-135M-Instruct: the Symphony-Bias mini Likert group
# (generation, chat template) and the mini log-probability task (no chat template: it scores the
# continuation of a plain context), then the report with both protocols and their agreement.
# Writes runs/main/.
set -euo pipefail
cd "$(dirname "$0")/.."
. .venv/bin/activate
export HF_HUB_OFFLINE=1 HF_DATASETS_OFFLINE=1 TOKENIZERS_PARALLELISM=false
model="$(symphony-bench default-model)"
rm -rf runs/main
lm_eval --model hf --model_args "pretrained=${model},dtype=float32" --device cpu \
  --tasks symphony_bias_mini --include_path "$(symphony-bench tasks-path)" \
  --apply_chat_template --batch_size 16 --log_samples --output_path runs/main
lm_eval --model hf --model_args "pretrained=${model},dtype=float32" --device cpu \
  --tasks symphony_bias_logprob_mini --include_path "$(symphony-bench tasks-path)" \
  --batch_size 16 --log_samples --output_path runs/main
symphony-bench report runs/main --json runs/main/report.json --markdown runs/main/report.md
