#!/bin/sh
# install.sh: put memory-hooks into a git repository (default: the current one); --help lists the options.
#   ./install.sh ~/code/my-app            install (again: changes nothing)
#   ./install.sh --uninstall ~/code/my-app
# Runs through symlinks too (ln -s …/install.sh ~/bin/memory-hooks-install): the link is followed to this file.
for py in python3 python; do
  # the version from `-V`, which answers before the interpreter starts up (a `-c` check cost a whole start)
  case $("$py" -V 2>&1) in
    "Python 3."[0-8] | "Python 3."[0-8][!0-9]*) ;;  # 3.0 to 3.8: too old
    "Python 3."[0-9]* | "Python "[4-9].*)
      # our folder first (the link followed to this file), never the current one: `-m` would import a `memory`
      # package of the folder you are in
      exec "$py" -c 'import os, sys; sys.path[0] = os.path.dirname(os.path.realpath(sys.argv.pop(1)))
from memory.install import cli; cli.cli()' "$0" "$@" ;;
  esac
done
echo "install.sh: needs Python 3.9 or newer (python3)" >&2
exit 3
