#!/usr/bin/env bash
# Builds the UI and the app (with the UI embedded), its hook, the agents'
# tools server and the demo agent, optimised and stripped (the `dist` profile), in target/dist: what
# the Debian package holds. The window tests, the command-line tests and the
# package all use this one build.
set -euo pipefail
cd "$(dirname "$0")/.."
(cd ui && npm run --silent build)
cargo build --profile dist -p switchboard -p switchboard-hook -p switchboard-mcp -p switchboard-tests \
  --bin switchboard --bin switchboard-hook --bin switchboard-mcp --bin switchboard-demo-agent \
  --features switchboard/custom-protocol
