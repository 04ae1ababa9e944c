#!/usr/bin/env bash
# Crash ×20, twice: kills the engine (the daemon), then the window, with
# SIGKILL at random moments (KILL=engine or KILL=window for one) while an agent
# works through its queue, another waits on a question and a third runs a
# loop, then checks that no task, question or loop iteration was lost,
# duplicated, reordered, stuck or orphaned (each reported,
# all should be 0; the exit status is 1 otherwise). ROUNDS (20) and TASKS (5
# queued a round) can be set. Builds the app first; runs under Xvfb when there
# is no display.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/build.sh >/dev/null
run=(cargo bench -q -p switchboard-tests --bench crash)
if [[ -z ${DISPLAY:-} ]]; then
  xvfb-run --auto-servernum --server-args="-screen 0 1280x800x24 -nolisten tcp" "${run[@]}"
else
  "${run[@]}"
fi
