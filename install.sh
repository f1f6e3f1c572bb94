#!/bin/sh
# install.sh: put memory-hooks into a git repository (default: the current one); --help lists the options.
#   ./install.sh ~/code/my-app            install (again: changes nothing)
#   ./install.sh --uninstall ~/code/my-app
# Runs through symlinks too (ln -s …/install.sh ~/bin/memory-hooks-install): the link is followed to this file.
self=$0 hops=0
while [ -L "$self" ] && [ $hops -lt 40 ]; do  # POSIX sh: no `readlink -f` on macOS; `ls -l` if no readlink
  link=$(readlink "$self" 2>/dev/null) || link=$(ls -l "$self" | sed 's/^.* -> //')
  case $link in /*) self=$link ;; *) self=$(dirname "$self")/$link ;; esac
  hops=$((hops + 1))
done
here=$(cd "$(dirname "$self")" && pwd) || exit 3
for py in python3 python; do
  if command -v "$py" >/dev/null 2>&1 && "$py" -c 'import sys; sys.exit(sys.version_info < (3, 9))' 2>/dev/null; then
    # our folder first, never the current one: `-m` would import a `memory` package of the folder you are in
    exec "$py" -c 'import sys; sys.path[0] = sys.argv.pop(1); from memory.install import cli; cli.cli()' \
      "$here" "$@"
  fi
done
echo "install.sh: needs Python 3.9 or newer (python3)" >&2
exit 3
