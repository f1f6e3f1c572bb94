#!/bin/sh
# recall.sh: search the project's knowledge. A thin POSIX launcher into memory/commands/recall.py.
# Installed as .beads/memory/recall.sh (code in .claude/hooks/memory-hooks/), or run from a memory-hooks clone.
# No command substitution on the way (each is a fork, ~1.5 ms): recall.sh KEYWORD --all answers in ~2x a bare
# interpreter start, so the launcher's own cost shows.
self=$0 hops=0
while [ -L "$self" ] && [ $hops -lt 40 ]; do  # POSIX sh: no `readlink -f` on macOS; `ls -l` if no readlink
  link=$(readlink "$self" 2>/dev/null) || link=$(ls -l "$self" | sed 's/^.* -> //')
  case $link in /*) self=$link ;; *) self=$(dirname "$self")/$link ;; esac
  hops=$((hops + 1))
done
case $self in */*) here=${self%/*} ;; *) here=. ;; esac
case $here in /*) ;; "") here=/ ;; *) here=${PWD:-$(pwd)}/$here ;; esac
if [ -n "$MEMORY_HOOKS_HOME" ]; then
  root=$MEMORY_HOOKS_HOME
elif [ -f "$here/../memory/commands/recall.py" ]; then
  root=$here/..
else
  root=$here/../../.claude/hooks/memory-hooks
fi
if [ ! -f "$root/memory/commands/recall.py" ]; then
  echo "recall.sh: memory-hooks code not found (looked in $root); run memory-hooks' install.sh" \
    "(from the memory-hooks repository your team installed from) on this repository" >&2
  exit 2
fi
case "$here" in
  */.beads/memory) anchor=${here%/.beads/memory} ;;  # installed: the project this file's memory folder is in
  *) anchor= ;;                                      # run from a clone: the project you are in (current folder)
esac
if [ -x "$root/.venv/bin/python" ]; then py=$root/.venv/bin/python
elif command -v python3 >/dev/null 2>&1; then py=python3
else py=python
fi
# Our code first, never the current folder (`-m` would import a `memory` package of the project you are in).
MEMORY_HOOKS_ANCHOR=$anchor exec "$py" -c 'import os, sys
sys.path[0] = os.path.abspath(sys.argv.pop(1))
from memory.commands.recall import main
from memory.core.cli import run_cli
run_cli(main)' "$root" "$@"
