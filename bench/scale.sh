#!/usr/bin/env bash
# Many agents streaming output at once (AGENTS, 50) beside one, in one run:
# app and WebKit memory, the window's frame time while it shows a streaming
# terminal, and `switchboard agent list` over the socket. Builds the app
# first and runs it under Xvfb when there is no display. See bench/scale.mjs.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/build.sh >/dev/null
[[ -d tests/e2e/node_modules ]] || (cd tests/e2e && npm install --no-audit --no-fund --loglevel=error)
if [[ -z ${DISPLAY:-} ]]; then
  exec xvfb-run --auto-servernum --server-args="-screen 0 1280x800x24 -nolisten tcp" node bench/scale.mjs
fi
exec node bench/scale.mjs
