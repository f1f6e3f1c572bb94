#!/bin/sh
# install.sh: put memory-hooks into a git repository (default: the current one); --help lists the options.
#   ./install.sh ~/code/my-app            install (again: changes nothing)
#   ./install.sh --uninstall ~/code/my-app
here=$(cd "$(dirname "$0")" && pwd) || exit 3
for py in python3 python; do
  if command -v "$py" >/dev/null 2>&1 && "$py" -c 'import sys; sys.exit(sys.version_info < (3, 9))' 2>/dev/null; then
    PYTHONPATH="$here${PYTHONPATH:+:$PYTHONPATH}" exec "$py" -m memory.install_cli "$@"
  fi
done
echo "install.sh: needs Python 3.9 or newer (python3)" >&2
exit 3
