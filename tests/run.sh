#!/bin/sh
# The test command: creates ./.venv (orjson, filelock, pytest, hypothesis) on a fresh machine, then runs pytest.
# Usage: tests/run.sh [pytest args]      PYTHON=python3.9 tests/run.sh   (another interpreter: a new .venv)
set -eu
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
version() { "$1" -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null || echo none; }
if [ "$(version .venv/bin/python)" != "$(version "$PYTHON")" ] \
   || ! .venv/bin/python -c "import pytest, hypothesis, orjson, filelock" >/dev/null 2>&1; then
  echo "tests/run.sh: creating .venv with $PYTHON ($(version "$PYTHON"))" >&2
  rm -rf .venv
  "$PYTHON" -m venv .venv
  .venv/bin/python -m pip install --quiet --disable-pip-version-check -r tests/requirements.txt
fi
exec .venv/bin/python -m pytest -q "$@"
