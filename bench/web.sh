#!/usr/bin/env bash
# Paired browsers beside the desktop window: the engine's CPU and the window's
# frame time with 10 protocol-level WebSocket clients connected beside none,
# then page load and event-to-screen in the window and in Chromium at a
# phone's size. Builds the app first and runs it under Xvfb when there is no
# display. See bench/web.mjs.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/build.sh >/dev/null
cargo build --quiet -p switchboard-tests --bin switchboard-bench-seed
[[ -d tests/e2e/node_modules ]] || (cd tests/e2e && npm install --no-audit --no-fund --loglevel=error)
if [[ -z ${DISPLAY:-} ]]; then
  exec xvfb-run --auto-servernum --server-args="-screen 0 1280x800x24 -nolisten tcp" node bench/web.mjs
fi
exec node bench/web.mjs
