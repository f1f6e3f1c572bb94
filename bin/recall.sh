#!/bin/sh
# recall.sh: search the project's knowledge. A thin POSIX launcher into memory/recall.py.
# Installed as .beads/memory/recall.sh (code in .claude/hooks/memory-hooks/), or run from a memory-hooks clone.
here=$(cd "$(dirname "$0")" && pwd) || exit 2
if [ -n "$MEMORY_HOOKS_HOME" ]; then
  root=$MEMORY_HOOKS_HOME
elif [ -f "$here/../memory/recall.py" ]; then
  root=$(cd "$here/.." && pwd)
else
  root=$(cd "$here/../.." && pwd)/.claude/hooks/memory-hooks
fi
if [ ! -f "$root/memory/recall.py" ]; then
  echo "recall.sh: memory-hooks code not found (looked in $root); run memory-hooks' install.sh" >&2
  exit 2
fi
case "$here" in
  */.beads/memory) anchor=$here ;;   # installed: the repo this file lives in (its main checkout)
  *) anchor=$(pwd) ;;                # run from a clone: the repo you are in
esac
if [ -x "$root/.venv/bin/python" ]; then py=$root/.venv/bin/python
elif command -v python3 >/dev/null 2>&1; then py=python3
else py=python
fi
MEMORY_HOOKS_ANCHOR=$anchor PYTHONPATH="$root${PYTHONPATH:+:$PYTHONPATH}" exec "$py" -m memory.recall "$@"
