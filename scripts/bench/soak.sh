#!/usr/bin/env bash
# Runs the integration label N times while a busy loop keeps the other core busy, to show the tests do not
# depend on timing luck. Each run's output goes to build/soak-<i>.log; the last line is "runs=N failed=K".
# Exits 1 when any run failed.
set -euo pipefail
script_name=soak.sh
# shellcheck source=../lib.sh
source "$(dirname "$0")/../lib.sh"

usage() {
  cat <<'EOF'
Usage: scripts/bench/soak.sh [N]
  Runs `ctest -L integration` N times (default 10) in build/ while a CPU hog (a busy loop at nice 0)
  keeps the other core busy. Each run's output: build/soak-<i>.log. Prints "runs=N failed=K" last and
  exits 1 when K > 0. Build first (scripts/build.sh).
EOF
}

case "${1:-}" in
  -h | --help) usage; exit 0 ;;
esac
runs=${1:-10}
if ! [[ $runs =~ ^[1-9][0-9]*$ ]]; then
  log "N must be a positive whole number, got '$runs'"
  usage >&2
  exit 2
fi

cd "$cla_root"
[[ -f build/CTestTestfile.cmake ]] || usage_error "no build/ with tests here; run scripts/build.sh first"

nice -n 0 bash -c 'while :; do :; done' & # the CPU hog, stopped at exit
cleanup_pid $!

failed=0
for i in $(seq 1 "$runs"); do
  log="build/soak-$i.log"
  if (cd build && ctest -L integration --output-on-failure -j1) >"$log" 2>&1; then
    echo "run $i: ok"
  else
    failed=$((failed + 1))
    echo "run $i: FAILED ($(grep -E '^[[:space:]]*[0-9]+ - ' "$log" | tr -s ' ' | tr '\n' ';'))"
  fi
done

echo "runs=$runs failed=$failed"
[[ $failed -eq 0 ]]
