#!/usr/bin/env bash
# Sets up and runs every check and test of Switchboard: formatting, lints,
# the engine and store tests (real PTYs, real SQLite), the real agent CLIs
# (installed from npm, cached) against a fake model, the UI's type check,
# lint and unit tests, the TypeScript bindings' freshness, the Debian package
# (built from the same build, unpacked and run), and an end-to-end test
# driving the real app window under Xvfb.
set -euo pipefail
cd "$(dirname "$0")/.."

# Each step reports how long the previous one took, so slow steps show in CI logs.
step_started=$SECONDS
step_name=""
step() {
  [[ -n $step_name ]] && printf '\033[2m    (%s: %ss)\033[0m\n' "$step_name" $((SECONDS - step_started))
  step_name=$*
  step_started=$SECONDS
  printf '\n\033[1;34m==> %s\033[0m\n' "$*"
}
trap '[[ $? == 0 ]] && step "done in ${SECONDS}s"' EXIT

step "setup"
./scripts/setup.sh
if ! command -v tauri-driver >/dev/null; then
  step "installing tauri-driver"
  cargo install tauri-driver --version '^2' --locked --quiet
fi
if [[ ! -d tests/e2e/node_modules ]] || [[ tests/e2e/package-lock.json -nt tests/e2e/node_modules/.package-lock.json ]]; then
  (cd tests/e2e && npm install --no-audit --no-fund --loglevel=error)
fi

step "formatting"
cargo fmt --all --check

step "build (UI, app, demo agent)"
./scripts/build.sh

step "package: the .deb from this build, unpacked, runs"
# Packaged while an engine runs from the same build, as on a user's machine:
# packaging never writes over a running program.
engine_data=$(mktemp -d)
target/dist/switchboard --data-dir "$engine_data" --no-demo daemon >/dev/null 2>&1 &
until target/dist/switchboard --data-dir "$engine_data" daemon --status >/dev/null; do
  kill -0 $! 2>/dev/null || { echo "the engine packaged beside did not start" >&2; exit 1; }
  sleep 0.2
done
deb=$(./scripts/package.sh --no-build | tail -n 1)
target/dist/switchboard --data-dir "$engine_data" daemon --stop >/dev/null
rm -rf "$engine_data"
unpacked=$(mktemp -d)
dpkg-deb -x "$deb" "$unpacked"
# Its version alone, with no display and no engine: what was packaged is the app.
version=$(env -u DISPLAY -u WAYLAND_DISPLAY "$unpacked/usr/bin/switchboard" --version)
[[ $version == "switchboard $(dpkg-deb -f "$deb" Version)" ]] || { echo "the packaged app says: $version" >&2; exit 1; }
for binary in switchboard-hook switchboard-mcp switchboard-demo-agent; do
  [[ -f $unpacked/usr/bin/$binary && -x $unpacked/usr/bin/$binary ]] || { echo "the package has no executable $binary beside the app" >&2; exit 1; }
done
[[ -f $unpacked/usr/share/applications/Switchboard.desktop ]] || { echo "the package has no desktop entry" >&2; exit 1; }
[[ $(dpkg-deb -f "$deb" Package) == switchboard && $(dpkg-deb -f "$deb" Depends) == *libwebkit2gtk-4.1-0* ]] ||
  { echo "the package is not named switchboard or does not depend on the WebView" >&2; exit 1; }
rm -rf "$unpacked"

step "clippy"
cargo clippy --workspace --all-targets --features switchboard/custom-protocol,switchboard-tests/real-agents --quiet -- -D warnings

step "rustdoc"
RUSTDOCFLAGS="-D warnings" cargo doc --no-deps --quiet -p switchboard-protocol -p switchboard-api -p switchboard-core -p switchboard-client -p switchboard-cli -p switchboard-daemon -p switchboard-hook -p switchboard-mcp

step "engine, store and demo agent tests (includes the bindings freshness check)"
cargo test --quiet

step "the real Claude Code and Codex CLIs against a fake model, in a loopback-only network namespace"
eval "$(./scripts/agents.sh)"
cargo test --quiet -p switchboard-tests --features real-agents --test real_agents

step "UI: type check, lint, unit tests"
(cd ui && npm run --silent check && npm run --silent lint && npm test --silent)

step "end-to-end: the real app window under Xvfb"
xvfb-run --auto-servernum --server-args="-screen 0 1280x800x24 -nolisten tcp" \
  node --test --test-timeout=240000 tests/e2e/
