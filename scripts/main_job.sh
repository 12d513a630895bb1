#!/usr/bin/env bash
# The main job, on SmolLM2-135M-Instruct (the embedded default) or on SYMPHONY_MODEL (a GGUF file or
# a transformers folder): the open-ended mini task (the model writes about the scenario's person;
# who it makes the person is read from the story), the Symphony-Bias mini Likert question read by
# log-likelihood and generated as JSON (chat template), the mini log-probability task (no chat
# template: it scores the continuation of a plain context), then the report with the four protocols
# and their agreement. Then the instrument-grounding suite on an offline SynthMIC build with the
# three reference floors (always-first, random, blind genre prior) through lmms-eval.
# Writes runs/main/ and runs/grounding/; each step's whole output goes to runs/logs/.
#
# lm-eval runs as `symphony-hf` (lm-eval's own command line with that model registered): lm-eval's
# `hf` model whose log-likelihood requests share a forward pass when one's input is a prefix of
# another's, so the scored Likert task reads its five labels from one pass per gender context
# (plugin/symphony_bias/prefix_sharing.py; same values as `hf`).
#
# The default model writes no JSON answer (docs/symphony-bias-method.md): its generated Likert tasks
# run on their first scenario (22 instruments + the control, 2 x 23 docs), which shows the invalid
# rate and spends no time on 184 more answers that cannot change a number. SYMPHONY_MODEL runs
# every doc.
set -euo pipefail
cd "$(dirname "$0")/.."
. .venv/bin/activate
export HF_HUB_OFFLINE=1 HF_DATASETS_OFFLINE=1 TOKENIZERS_PARALLELISM=false PYTHONUNBUFFERED=1
logs=runs/logs
step=0
steps=6
started=$SECONDS

banner() {  # what runs, and roughly how long it took on the 2-core machine (load average 2-6)
  step=$((step + 1))
  echo
  echo "[${step}/${steps}] $1"
  echo "      about $2"
}

# A step's whole output to its log; the console gets its request counters and its errors.
quietly() {
  local log="${logs}/$1.log" status=0
  shift
  "$@" 2>&1 | python -m symphony_bench.plugin.devtools.job_console "${log}" || status=$?
  if [ "${status}" -ne 0 ]; then
    echo "failed (exit ${status}); the end of ${log}:"
    tail -n 30 "${log}" | sed 's/\x1b\[[0-9;]*m//g'
    exit "${status}"
  fi
}

# The report's first section (its overview), not the whole Markdown: that is in the file.
report_top() {
  awk '/^## /{sections++} sections < 2' "$1" | head -n 40
  echo "(the rest: $1, and $2 with every doc and its answer)"
}

rm -rf runs/main runs/grounding "${logs}"
mkdir -p "${logs}"
tasks_path="$(symphony-bench tasks-path)"
lm_eval=(python -m symphony_bench.plugin.symphony_bias.prefix_sharing)
if [ -n "${SYMPHONY_MODEL:-}" ]; then
  banner "the model: ${SYMPHONY_MODEL} (a GGUF file is converted once into a cached transformers folder)" \
    "a minute the first time for a small model, seconds after"
  model="$(symphony-bench default-model "${SYMPHONY_MODEL}" 2>>"${logs}/model.log")"
  likert_docs=()
  likert_what="2 x 115 docs"
  minutes="20 min or more for a 135M model (every generated Likert doc); longer for larger ones"
else
  banner "the model: SmolLM2-135M-Instruct (converted once from its GGUF into a cached folder)" \
    "40 s the first time, a second after"
  model="$(symphony-bench default-model 2>>"${logs}/model.log")"
  first_scenario="$(seq -s, 0 22)"
  likert_what="2 x 23 docs: the default model writes no JSON"
  likert_docs=(--samples "{\"symphony_bias_text_mini\": [${first_scenario}], \"symphony_bias_text_noreason_mini\": [${first_scenario}]}")
  minutes="3 min"
fi
echo "      ${model}"

banner "lm-eval, chat template: generated Likert JSON (${likert_what}), open-ended stories (115 docs), scored Likert (115 docs, 3 genders x 5 labels)" \
  "${minutes}"
# Batches of 64: the stories are generated ~1.5x faster than in batches of 16 on 2 cores, the same answers.
quietly lm_eval_chat "${lm_eval[@]}" --model symphony-hf --model_args "pretrained=${model},dtype=float32" --device cpu \
  --tasks symphony_bias_mini,symphony_bias_open_mini,symphony_bias_likert_scored_mini --include_path "${tasks_path}" \
  --apply_chat_template --batch_size 64 --log_samples --output_path runs/main "${likert_docs[@]}"

banner "lm-eval, no chat template: log-probability of man / woman / non-binary person (115 docs)" "30 s"
quietly lm_eval_logprob "${lm_eval[@]}" --model symphony-hf --model_args "pretrained=${model},dtype=float32" --device cpu \
  --tasks symphony_bias_logprob_mini --include_path "${tasks_path}" \
  --batch_size 16 --log_samples --output_path runs/main

banner "the report: runs/main/report.{md,json,html}" "30 s"
quietly report_main symphony-bench report runs/main --json runs/main/report.json --markdown runs/main/report.md \
  --html runs/main/report.html
report_top runs/main/report.md runs/main/report.html

banner "instrument grounding: a 120-clip SynthMIC archive and the five benchmarks built from it" "30 s"
quietly build symphony-bench build synthmic --out runs/grounding/synthmic --clips 120 --seed 0 --workers "$(nproc)"
quietly build symphony-bench build openmic --source runs/grounding/synthmic --out runs/grounding/benchmark --seed 0

banner "lmms-eval: the three reference floors (always-first, random, genre prior) on the five benchmarks, and their report" \
  "1 min"
grounding_tasks="$(symphony-bench tasks-path --harness lmms-eval)"
for floor in grounding_always_first grounding_random grounding_genre_prior; do
  SYMPHONY_GROUNDING=runs/grounding/benchmark quietly "lmms_eval_${floor}" lmms-eval --model "${floor}" \
    --tasks instrument_grounding --include_path "${grounding_tasks}" --log_samples \
    --output_path "runs/grounding/results/${floor}"
done
quietly report_grounding symphony-bench report runs/grounding/results --json runs/grounding/report.json \
  --markdown runs/grounding/report.md --html runs/grounding/report.html
report_top runs/grounding/report.md runs/grounding/report.html

elapsed=$((SECONDS - started))
echo
echo "main job done in $((elapsed / 60)) min $((elapsed % 60)) s. Open runs/main/report.html and runs/grounding/report.html."
echo "Markdown and JSON beside each; every step's output: ${logs}/."
echo "Leaderboard page: symphony-bench leaderboard runs/main --out runs/leaderboard"
