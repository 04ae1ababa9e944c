#!/usr/bin/env bash
# Installs the real agent CLIs that the real-agents test suite runs, at the
# versions the recordings in tests/fixtures/agents were made with, into a
# cache kept between runs; prints the two variables the suite reads.
#   eval "$(scripts/agents.sh)"
set -euo pipefail

CLAUDE_CODE_VERSION=2.1.329
CODEX_VERSION=0.169.0
cache="${SWITCHBOARD_AGENT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/switchboard/agents}"

# install <package> <version> <bin>: prints the installed program's path.
install() {
  local name=${1#@}
  local dir="$cache/${name//\//-}-$2"
  if [[ ! -x "$dir/node_modules/.bin/$3" ]]; then
    printf '==> installing %s@%s into %s\n' "$1" "$2" "$dir" >&2
    mkdir -p "$dir"
    npm install --prefix "$dir" --no-audit --no-fund --loglevel=error "$1@$2" >&2
  fi
  "$dir/node_modules/.bin/$3" --version >/dev/null
  printf '%s\n' "$dir/node_modules/.bin/$3"
}

printf 'export SWITCHBOARD_CLAUDE_CODE=%q\n' "$(install @anthropic-ai/claude-code "$CLAUDE_CODE_VERSION" claude)"
printf 'export SWITCHBOARD_CODEX=%q\n' "$(install @openai/codex "$CODEX_VERSION" codex)"
