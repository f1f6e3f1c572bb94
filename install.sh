#!/bin/sh
# install.sh: put memory-hooks into a git repository (default: the current one); --help lists the options.
#   ./install.sh ~/code/my-app            install (again: changes nothing)
#   ./install.sh --uninstall ~/code/my-app
# Runs through symlinks too (ln -s …/install.sh ~/bin/memory-hooks-install): the link is followed to this file.
for py in python3 python; do
  if command -v "$py" >/dev/null 2>&1 && "$py" -c 'import sys; sys.exit(sys.version_info < (3, 9))' 2>/dev/null; then
    # our folder first (the link followed to this file), never the current one: `-m` would import a `memory`
    # package of the folder you are in
    exec "$py" -c 'import os, sys; sys.path[0] = os.path.dirname(os.path.realpath(sys.argv.pop(1)))
from memory.install import cli; cli.cli()' "$0" "$@"
  fi
done
echo "install.sh: needs Python 3.9 or newer (python3)" >&2
exit 3
