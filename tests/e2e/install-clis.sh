#!/bin/sh
# Installs the pinned Gemini CLI and Codex CLI from the npm registry into ~/.cache/gemini-real and
# ~/.cache/codex-real (tests/e2e/test_e2e_gemini.py, tests/e2e/test_e2e_codex.py; the Codex binary ships inside its
# npm package). Idempotent; a failed install only makes those tests skip.
set -u
install_cli() {  # install_cli DIR PACKAGE VERSION BIN EXPECTED_VERSION_OUTPUT
  dir=$1 package=$2 version=$3 bin=$4 expect=$5
  if [ -x "$dir/node_modules/.bin/$bin" ] && [ "$("$dir/node_modules/.bin/$bin" --version 2>/dev/null)" = "$expect" ]; then
    echo "$bin $version already installed in $dir"
    return 0
  fi
  command -v npm >/dev/null 2>&1 || { echo "install-clis.sh: npm not found; the $bin tests will skip" >&2; return 0; }
  mkdir -p "$dir" && cd "$dir" || return 0
  [ -f package.json ] || echo "{\"name\":\"$bin-real\",\"private\":true}" > package.json
  npm install --no-audit --no-fund --silent "$package@$version" >/dev/null 2>&1 \
    || echo "install-clis.sh: npm install $package@$version failed; the $bin tests will skip" >&2
  "$dir/node_modules/.bin/$bin" --version 2>/dev/null || true
  cd - >/dev/null || true
}
install_cli "${GEMINI_REAL_HOME:-$HOME/.cache/gemini-real}" @google/gemini-cli 0.61.0 gemini 0.61.0
install_cli "${CODEX_REAL_HOME:-$HOME/.cache/codex-real}" @openai/codex 0.169.0 codex "codex-cli 0.169.0"
