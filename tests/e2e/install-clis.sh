#!/bin/sh
# Installs the pinned Gemini CLI from the npm registry into ~/.cache/gemini-real (tests/test_e2e_gemini.py).
# Idempotent; a failed install only makes those tests skip.
set -u
GEMINI_VERSION=0.61.0
home=${GEMINI_REAL_HOME:-$HOME/.cache/gemini-real}
if [ -x "$home/node_modules/.bin/gemini" ] && [ "$("$home/node_modules/.bin/gemini" --version 2>/dev/null)" = "$GEMINI_VERSION" ]; then
  echo "gemini $GEMINI_VERSION already installed in $home"
  exit 0
fi
command -v npm >/dev/null 2>&1 || { echo "install-clis.sh: npm not found; the Gemini CLI tests will skip" >&2; exit 0; }
mkdir -p "$home"
cd "$home" || exit 0
[ -f package.json ] || echo '{"name":"gemini-real","private":true}' > package.json
npm install --no-audit --no-fund --silent "@google/gemini-cli@$GEMINI_VERSION" >/dev/null 2>&1 \
  || echo "install-clis.sh: npm install @google/gemini-cli@$GEMINI_VERSION failed; the Gemini CLI tests will skip" >&2
"$home/node_modules/.bin/gemini" --version 2>/dev/null || true
