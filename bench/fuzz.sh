#!/usr/bin/env bash
# Fuzzes what an agent or a local client can feed the app, for a set time per
# target: the property tests of tests/tests/fuzz.rs (signal scanner, summary
# parser, hook payloads and spool lines, the socket's line protocol, the
# Claude Code / Codex settings merge, search over any Unicode, the YAML alias
# budget, workspace paths), run again and again with fresh random
# seeds and CASES cases a run. Stable Rust has no coverage-guided fuzzer
# without extra toolchains, so this is property testing at volume.
#
#   bench/fuzz.sh                # 60 s a target
#   SECONDS_EACH=600 bench/fuzz.sh
#
# Prints, per target, the runs, cases and failures. A failure prints
# proptest's smallest failing input: make it a case in tests/tests/fuzz.rs.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds_each=${SECONDS_EACH:-60}
cases=${CASES:-2000}

binary=$(cargo test --release -p switchboard-tests --test fuzz --no-run 2>&1 |
  sed -n 's/.*(\(target\/release\/deps\/fuzz-[0-9a-f]*\)).*/\1/p' | tail -1)
[[ -x $binary ]] || { echo "could not build the fuzz tests" >&2; exit 1; }
mapfile -t targets < <("$binary" --list 2>/dev/null | sed -n 's/: test$//p')

failed=0
printf '%-48s %6s %9s %8s\n' target runs cases failures
for target in "${targets[@]}"; do
  end=$((SECONDS + seconds_each))
  runs=0
  failures=0
  while ((SECONDS < end)); do
    if ! PROPTEST_CASES=$cases "$binary" --exact "$target" --quiet >/tmp/switchboard-fuzz.log 2>&1; then
      failures=$((failures + 1))
      echo "---- $target failed:" >&2
      grep -A8 -E 'minimal failing input|panicked' /tmp/switchboard-fuzz.log >&2 || cat /tmp/switchboard-fuzz.log >&2
      break
    fi
    runs=$((runs + 1))
  done
  printf '%-48s %6d %9d %8d\n' "$target" "$runs" $((runs * cases)) "$failures"
  failed=$((failed + failures))
done
exit $((failed > 0))
