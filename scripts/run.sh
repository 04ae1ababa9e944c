#!/usr/bin/env bash
# Sets up, builds and opens Switchboard. On first start it creates a demo
# workspace with a scripted agent running in a live terminal.
# Arguments are passed to the app (for example --data-dir DIR).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
./scripts/build.sh
exec target/dist/switchboard "$@"
