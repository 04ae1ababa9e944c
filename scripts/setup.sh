#!/usr/bin/env bash
# Installs what Switchboard needs on Debian 12: system libraries for the
# WebView shell, Xvfb and WebKitWebDriver for the end-to-end test (with a
# D-Bus daemon, the dunst notification daemon and Python's GLib bindings for
# its tray, to see the app's notifications and tray on a private desktop bus),
# systemd (its systemd-analyze checks the service `switchboard daemon
# --install` writes), OpenSSH's client and server (the test of another
# machine's engine reached over SSH runs its own sshd on 127.0.0.1),
# Chromium and its chromedriver (the browser tests open the page the engine
# serves at a phone's size), the UI's npm packages, and tauri-driver. Safe to
# run again: it skips what is there.
set -euo pipefail
cd "$(dirname "$0")/.."

log() { printf '\033[1;34m==>\033[0m %s\n' "$*"; }

APT_PACKAGES=(
  libwebkit2gtk-4.1-dev libgtk-3-dev libayatana-appindicator3-dev librsvg2-dev
  libsoup-3.0-dev libjavascriptcoregtk-4.1-dev build-essential pkg-config libssl-dev
  libxdo-dev file xvfb xauth webkit2gtk-driver iproute2
  dbus-daemon dbus-bin dunst python3-gi systemd openssh-client openssh-server
  chromium chromium-driver
)
if [[ "${1:-}" == "--with-test-tools" ]]; then
  APT_PACKAGES+=(imagemagick)
fi

missing=()
for package in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if ((${#missing[@]})); then
  log "installing system packages: ${missing[*]}"
  SUDO=""
  [[ "$(id -u)" == 0 ]] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

command -v cargo >/dev/null || {
  echo "Rust is not installed: install it with rustup (https://rustup.rs), then run this again." >&2
  exit 1
}
node_major=$(node --version 2>/dev/null | sed -E 's/^v([0-9]+).*/\1/' || echo 0)
if [[ -z "$node_major" || "$node_major" -lt 20 ]]; then
  echo "Node.js 20 or newer is needed for the UI build (found: $(node --version 2>/dev/null || echo none))." >&2
  exit 1
fi

# `npm ci` cannot be used: the lock has no entries for other platforms'
# optional native packages, which the registry here does not serve.
if [[ ! -d ui/node_modules ]] || [[ ui/package-lock.json -nt ui/node_modules/.package-lock.json ]]; then
  log "installing UI packages"
  (cd ui && npm install --no-audit --no-fund --loglevel=error)
fi
