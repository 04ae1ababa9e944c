#!/usr/bin/env bash
# The window under load: AGENTS (50) agents whose hooks report RATE (100) events a second in
# all, the window's frame time with the flows view open on one agent beside the same window with
# the view closed, and the time from an event sent to its node lit. See bench/flows.mjs.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/build.sh >/dev/null
[[ -d tests/e2e/node_modules ]] || (cd tests/e2e && npm install --no-audit --no-fund --loglevel=error)
if [[ -z ${DISPLAY:-} ]]; then
  exec xvfb-run --auto-servernum --server-args="-screen 0 1280x800x24 -nolisten tcp" node bench/flows.mjs
fi
exec node bench/flows.mjs
