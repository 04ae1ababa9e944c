#!/usr/bin/env bash
# Measures the desktop app under Xvfb, in one run, against its own baseline:
#   - start to window: from exec to the window being mapped (xwininfo), median of RUNS;
#   - memory with N demo-agent sessions running vs. the same app with none.
# Memory is RSS and PSS (shared pages split fairly) of the app process and of its WebKit
# helper processes; agents are reported separately. Prints a table and the ratios.
# Needs a built app: ./scripts/build.sh
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-5}
SESSIONS=${SESSIONS:-10}
APP=target/dist/switchboard
AGENT=target/dist/switchboard-demo-agent
SEED=target/debug/switchboard-bench-seed
[[ -x $APP && -x $AGENT && -x $SEED ]] || { echo "build first: ./scripts/build.sh" >&2; exit 1; }

# Run on a private X server that xvfb-run picks (a free display number).
if [[ -z ${SWITCHBOARD_BENCH_XVFB:-} ]]; then
  SWITCHBOARD_BENCH_XVFB=1 exec xvfb-run -a -s "-screen 0 1280x800x24 -nolisten tcp" "$0" "$@"
fi

work=$(mktemp -d)
trap 'pkill -f "$work" 2>/dev/null; [[ -n ${KEEP:-} ]] || rm -rf "$work"' EXIT

now_ms() { date +%s%3N; }
# kB of a field (VmRSS) from /proc/PID/status, or Pss from smaps_rollup
rss_kb() { awk '/^VmRSS:/ {print $2}' "/proc/$1/status" 2>/dev/null || echo 0; }
pss_kb() { awk '/^Pss:/ {print $2}' "/proc/$1/smaps_rollup" 2>/dev/null || echo 0; }
descendants() { local p; for p in $(pgrep -P "$1"); do echo "$p"; descendants "$p"; done; }

# start_app DATA_DIR [ARGS...] -> sets APP_PID and START_MS (time to a mapped window)
start_app() {
  local data=$1; shift
  local t0; t0=$(now_ms)
  "$APP" --data-dir "$data" --no-demo "$@" >"$data.log" 2>&1 &
  APP_PID=$!
  until xwininfo -root -tree 2>/dev/null | grep -q '"Switchboard"'; do
    kill -0 "$APP_PID" 2>/dev/null || { echo "app died (DISPLAY=$DISPLAY); see $data.log" >&2; exit 1; }
    sleep 0.01
  done
  START_MS=$(( $(now_ms) - t0 ))
}

stop_app() { kill "$APP_PID"; wait "$APP_PID" 2>/dev/null || true; }

median() { sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

# memory DATA_DIR -> prints "app_rss app_pss webkit_rss webkit_pss agents_rss agents count"
memory() {
  local app_rss app_pss wk_rss=0 wk_pss=0 ag_rss=0 agents=0 p comm
  app_rss=$(rss_kb "$APP_PID"); app_pss=$(pss_kb "$APP_PID")
  for p in $(descendants "$APP_PID"); do
    comm=$(cat "/proc/$p/comm" 2>/dev/null || true)
    case $comm in
      WebKit*) wk_rss=$((wk_rss + $(rss_kb "$p"))); wk_pss=$((wk_pss + $(pss_kb "$p"))) ;;
      switchboard-dem*) ag_rss=$((ag_rss + $(rss_kb "$p"))); agents=$((agents + 1)) ;;
    esac
  done
  echo "$app_rss $app_pss $wk_rss $wk_pss $ag_rss $agents"
}

measure() { # LABEL DATA_DIR -> startup median, memory after settling
  local label=$1 data=$2 times=() i
  for ((i = 0; i < RUNS; i++)); do
    start_app "$data"
    times+=("$START_MS")
    if ((i == RUNS - 1)); then
      sleep 5 # let the sessions start and the UI attach
      read -r app_rss app_pss wk_rss wk_pss ag_rss agents < <(memory)
    fi
    stop_app
  done
  local med; med=$(printf '%s\n' "${times[@]}" | median)
  printf '%-22s start→window %6s ms (median of %d: %s)\n' "$label" "$med" "$RUNS" "${times[*]}"
  printf '%-22s app RSS %6d KiB  PSS %6d KiB | WebKit RSS %6d KiB  PSS %6d KiB | %d agents RSS %6d KiB\n' \
    "" "$app_rss" "$app_pss" "$wk_rss" "$wk_pss" "$agents" "$ag_rss"
  eval "${label}_start=$med ${label}_app=$app_rss ${label}_total=$((app_pss + wk_pss))"
}

mkdir -p "$work/baseline" "$work/loaded"
"$SEED" "$work/loaded" "$SESSIONS" "$(realpath "$AGENT")"

measure baseline "$work/baseline"
measure loaded "$work/loaded"

awk -v bs="$baseline_start" -v ls="$loaded_start" -v ba="$baseline_app" -v la="$loaded_app" \
    -v bt="$baseline_total" -v lt="$loaded_total" -v n="$SESSIONS" 'BEGIN {
  printf "\nratios (%d sessions / none, same run):\n", n
  printf "  start→window      %.2f\n", ls / bs
  printf "  app process RSS   %.2f  (+%d KiB, %.0f KiB per session)\n", la / ba, la - ba, (la - ba) / n
  printf "  app+WebKit PSS    %.2f  (+%d KiB)\n", lt / bt, lt - bt
}'
