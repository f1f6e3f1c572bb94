#!/bin/sh
# The test command: creates ./.venv (orjson, filelock, pytest, xdist, hypothesis, ruff, mypy) on a fresh machine,
# then runs pytest on every core (and one worker more). Without arguments it skips the tests marked slow (.ci/run runs them too).
#   tests/run.sh                 the default run
#   tests/run.sh -m slow         the long variants (real virtualenvs, the real Claude Code CLI, long kill loops)
#   tests/run.sh --lint          ruff and mypy (pyproject.toml), no tests
#   PYTHON=python3.9 tests/run.sh   another interpreter: a new .venv
set -eu
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
version() { "$1" -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null || echo none; }
if [ "$(version .venv/bin/python)" != "$(version "$PYTHON")" ] \
   || ! .venv/bin/python -c "import pytest, hypothesis, xdist, orjson, filelock, ruff" >/dev/null 2>&1; then
  echo "tests/run.sh: creating .venv with $PYTHON ($(version "$PYTHON"))" >&2
  rm -rf .venv
  "$PYTHON" -m venv .venv
  .venv/bin/python -m pip install --quiet --disable-pip-version-check -r tests/requirements.txt
fi
# requirements changed since this .venv was set up: bring it up to date (the stamp is their contents)
if ! cat requirements.txt tests/requirements.txt | cmp -s - .venv/requirements.stamp; then
  .venv/bin/python -m pip install --quiet --disable-pip-version-check -r tests/requirements.txt \
    && cat requirements.txt tests/requirements.txt > .venv/requirements.stamp
fi
if [ "${1:-}" = "--lint" ]; then
  .venv/bin/ruff check .
  exec .venv/bin/mypy
fi
if [ $# -eq 0 ]; then
  set -- -m "not slow"
fi
# The tests' repositories on a RAM disk where there is one: every store and install write is fsynced, and on a
# disk the waits for those fsyncs were a third of the run. Only failed tests' folders are kept (pyproject.toml).
# (a run holds ~400 MB there at its peak: not on a small /dev/shm such as Docker's default 64 MB)
shm_free_kb=$(df -Pk /dev/shm 2>/dev/null | awk 'NR == 2 { print $4 }')
if [ -d /dev/shm ] && [ -w /dev/shm ] && [ "${shm_free_kb:-0}" -gt 2000000 ]; then
  TMPDIR=/dev/shm/memory-hooks-tests-$(id -u)
  mkdir -p "$TMPDIR" && export TMPDIR
fi
# One worker more than cores: part of every worker's time is waits the tests provoke (a hung bd or git cut off by
# its timeout, a lock held by another process) that another worker fills (here: 48 s with 2 workers, 44 s with 3).
workers=$(.venv/bin/python -c 'import os; print((os.cpu_count() or 1) + 1)')
# the bytecode of this checkout up front: otherwise the first processes of a fresh clone all compile it at once
.venv/bin/python -m compileall -q -j 0 memory hooks tests >/dev/null 2>&1 || true
exec .venv/bin/python -m pytest -q -rs -n "$workers" "$@"  # -rs: why each test was skipped; -n 0: one process
