#!/usr/bin/env bash
# ./run.sh main   set up what the main job needs, run it on the embedded defaults, print the report
# ./run.sh test   set up what the tests need (Chromium too), run the test suite
set -euo pipefail
cd "$(dirname "$0")"
case "${1:-}" in
  main)
    scripts/setup.sh main
    . .venv/bin/activate
    scripts/main_job.sh
    ;;
  test)
    shift
    scripts/setup.sh test
    . .venv/bin/activate
    # bytecode written: the suite starts a few hundred Python processes that import the package
    env -u PYTHONDONTWRITEBYTECODE python -m pytest -q -n "${SYMPHONY_TEST_WORKERS:-auto}" --dist worksteal "$@"
    ;;
  *) echo "usage: ./run.sh main|test" >&2; exit 2 ;;
esac
