#!/usr/bin/env bash
# Desktop notifications shown for a run of twenty tasks across four demo agents: the real app
# (APP, default target/dist/switchboard, built here unless given) under Xvfb, on a session bus
# of its own where bench/notifications.py stands in for the notification daemon and keeps every
# call. Compare two builds by passing each as APP. See bench/notifications.py and bench/README.md.
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ -z ${APP:-} ]]; then
  ./scripts/build.sh >/dev/null
  APP=target/dist/switchboard
fi
DEMO_AGENT=${DEMO_AGENT:-target/dist/switchboard-demo-agent}
exec xvfb-run --auto-servernum --server-args="-screen 0 1280x800x24 -nolisten tcp" \
  dbus-run-session -- /usr/bin/python3 bench/notifications.py --app "$(realpath "$APP")" --demo-agent "$(realpath "$DEMO_AGENT")" "$@"
