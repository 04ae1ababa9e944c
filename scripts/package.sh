#!/usr/bin/env bash
# Builds Switchboard's Debian package from the optimised build the tests use
# (scripts/build.sh, in target/dist) and prints its path on the last line of its output.
# It installs, in /usr/bin, the app (which is also its command line and its
# daemon) with the hook and the demo agent beside it, where the app looks
# for them; and its desktop entry and icons.
#
#   ./scripts/package.sh              builds (incrementally), then packages
#   ./scripts/package.sh --no-build   packages the build that is there
#
# The Tauri bundler does the packaging: its command line comes prebuilt from
# npm (scripts/package/), and `tauri bundle` packages what is built without
# building anything.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

build=1
case "${1:-}" in
  "") ;;
  --no-build) build=0 ;;
  *) echo "usage: $0 [--no-build]" >&2; exit 2 ;;
esac

if ((build)); then
  ./scripts/build.sh >&2
fi

if [[ ! -d scripts/package/node_modules ]] || [[ scripts/package/package-lock.json -nt scripts/package/node_modules/.package-lock.json ]]; then
  (cd scripts/package && npm ci --no-audit --no-fund --loglevel=error >&2)
fi

built=$(realpath -m "${CARGO_TARGET_DIR:-target}")/dist
for binary in switchboard switchboard-hook switchboard-mcp switchboard-demo-agent; do
  [[ -x $built/$binary ]] || { echo "$built/$binary is not built: run ./scripts/build.sh" >&2; exit 1; }
done

# The bundler writes to the app's binary as it packages it, which fails
# ("Text file busy") while an engine runs from the build. It packages a copy,
# in a folder of its own laid out as the bundler expects a target folder (it
# takes a build that is not a debug one from `release`).
stage=$(realpath -m "${CARGO_TARGET_DIR:-target}")/package
target=$stage/release
rm -rf "$stage"
mkdir -p "$target"
cp "$built/switchboard" "$built/switchboard-hook" "$built/switchboard-mcp" "$built/switchboard-demo-agent" "$target/"

# The Tauri command line takes the folder of its configuration for the app's
# crate. Ours is at the root (src-tauri/build.rs and app.rs read it there),
# so it is linked into the crate for this run. Paths in the configuration are
# read from the crate's folder by the bundler, and from the root by the
# build: what the bundler reads is given here, absolute.
link=src-tauri/tauri.conf.json
if [[ -e $link && ! -L $link ]]; then
  echo "$link is a file of its own; this script links it to ../tauri.conf.json and will not replace it" >&2
  exit 1
fi
ln -sfn ../tauri.conf.json "$link"
trap 'rm -f "$root/$link"' EXIT

# The hook, the tools' server and the demo agent are installed by name (Tauri's externalBin
# would look for them under names ending in the target triple).
config=$(
  ROOT="$root" TARGET="$target" node -e '
    const { ROOT, TARGET } = process.env;
    const icons = ["32x32.png", "128x128.png", "128x128@2x.png", "icon.png"];
    process.stdout.write(JSON.stringify({
      bundle: {
        active: true,
        icon: icons.map((name) => `${ROOT}/icons/${name}`),
        linux: {
          deb: {
            files: {
              "/usr/bin/switchboard-hook": `${TARGET}/switchboard-hook`,
              "/usr/bin/switchboard-mcp": `${TARGET}/switchboard-mcp`,
              "/usr/bin/switchboard-demo-agent": `${TARGET}/switchboard-demo-agent`,
            },
          },
        },
      },
    }));
  '
)

rm -rf "$target/bundle/deb"
# --no-binary-patching: the bundler would otherwise rewrite the tests' binary
# in place to note the kind of package it went into (for Tauri's updater,
# which the app does not use).
CARGO_TARGET_DIR=$stage TAURI_APP_PATH=src-tauri scripts/package/node_modules/.bin/tauri bundle \
  --bundles deb --no-binary-patching --ci --config "$config" >&2

debs=("$target"/bundle/deb/*.deb)
[[ ${#debs[@]} == 1 && -f ${debs[0]} ]] || { echo "expected one package in $target/bundle/deb" >&2; exit 1; }
echo "${debs[0]}"
