#!/bin/sh
# The test command: creates ./.venv (orjson, filelock, pytest, hypothesis) on a fresh machine, then runs pytest.
# Usage: tests/run.sh [pytest args]      PYTHON=python3.9 tests/run.sh   (another interpreter)
set -eu
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
if ! .venv/bin/python -c "import pytest, hypothesis, orjson, filelock" >/dev/null 2>&1; then
  echo "tests/run.sh: creating .venv with $PYTHON" >&2
  "$PYTHON" -m venv .venv
  .venv/bin/python -m pip install --quiet --disable-pip-version-check -r tests/requirements.txt
fi
exec .venv/bin/python -m pytest -q "$@"
