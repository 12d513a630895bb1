#!/usr/bin/env bash
# ./run.sh main   set up everything, run the main job on the embedded defaults, print the report
# ./run.sh test   set up everything, run the test suite
set -euo pipefail
cd "$(dirname "$0")"
scripts/setup.sh
. .venv/bin/activate
case "${1:-}" in
  main) scripts/main_job.sh ;;
  test) shift; python -m pytest -q -n "${SYMPHONY_TEST_WORKERS:-auto}" --dist worksteal "$@" ;;
  *) echo "usage: ./run.sh main|test" >&2; exit 2 ;;
esac
