#!/usr/bin/env bash
# Builds the UI and the app (with the UI embedded) plus the demo agent, in
# target/debug. The tests reuse this one build.
set -euo pipefail
cd "$(dirname "$0")/.."
(cd ui && npm run --silent build)
cargo build -p switchboard -p switchboard-hook -p switchboard-tests --features switchboard/custom-protocol
