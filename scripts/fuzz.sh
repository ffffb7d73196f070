#!/usr/bin/env bash
# Fuzzes every parser of outside bytes, one libFuzzer target each (tests/fuzz/fuzz_<parser>.cpp, ASan+UBSan,
# clang), each to at least the given number of executions, starting from the corpus kept in the repo.
set -euo pipefail

usage() {
  cat <<'EOF'
Usage: scripts/fuzz.sh [--jobs N] [--merge] [--only PARSER] [EXECUTIONS]

Builds the fuzz targets in build-fuzz/ and runs each to EXECUTIONS inputs (default 10000000; libFuzzer
stops at that count, or at its first crash). Each target starts from tests/fuzz/corpus/<parser>/ and grows
build-fuzz/corpus/<parser>/; crashes go to build-fuzz/findings/<parser>/, logs to build-fuzz/logs/.
Prints a table (executions, seconds, rate, corpus size, crashes) and last the line
  parsers=N min_execs=N crashes=N
Exits 1 when any target crashed.

  --jobs N       run N targets at once (default 1; the machine has 2 cores, never more than 2)
  --merge        afterwards, minimize each grown corpus (-merge=1) back into tests/fuzz/corpus/<parser>/
  --only PARSER  run one target (repeatable), e.g. --only nodetool_status
EOF
}

executions=10000000
jobs=1
merge=false
only=()
while [[ $# -gt 0 ]]; do
  case $1 in
    -h | --help) usage; exit 0 ;;
    --jobs) jobs=${2:?--jobs needs a number}; shift 2 ;;
    --merge) merge=true; shift ;;
    --only) only+=("${2:?--only needs a parser name}"); shift 2 ;;
    -*) echo "fuzz.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    *) executions=$1; shift ;;
  esac
done
[[ $executions =~ ^[1-9][0-9]*$ ]] || { echo "fuzz.sh: EXECUTIONS must be a positive integer, got '$executions'" >&2; exit 2; }
[[ $jobs =~ ^[12]$ ]] || { echo "fuzz.sh: --jobs must be 1 or 2, got '$jobs'" >&2; exit 2; }

cd "$(dirname "$0")/.."

# Each parser with the longest input worth trying: a document or answer body, a page of nodetool output, a
# date; a longer limit only slows the search.
declare -A max_len=(
  [imds_document]=65536 [compute]=65536 [not_before]=256 [nodetool_status]=4096 [nodetool_info]=4096
  [nodetool_running]=256 [config]=16384 [http_endpoint]=20480 [emulator_admin]=16384 [etcd_answer]=16384
  [state_codec]=16384)
parsers=(imds_document not_before compute nodetool_status nodetool_info nodetool_running config etcd_answer state_codec
  http_endpoint emulator_admin)
if [[ ${#only[@]} -gt 0 ]]; then
  for p in "${only[@]}"; do
    [[ -n ${max_len[$p]:-} ]] || { echo "fuzz.sh: no parser '$p'; parsers: ${parsers[*]}" >&2; exit 2; }
  done
  parsers=("${only[@]}")
fi

if ! command -v clang++ >/dev/null || ! dpkg-query -W -f='${Status}' libclang-rt-14-dev 2>/dev/null | grep -q "ok installed"; then
  echo "fuzz.sh: installing clang and its fuzzer runtime (clang, libclang-rt-14-dev)" >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends clang libclang-rt-14-dev >/dev/null ||
    { echo "fuzz.sh: cannot install clang; install clang and libclang-rt-14-dev" >&2; exit 1; }
fi
CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DCLA_FUZZ=ON -DCLA_BUILD_TESTS=OFF \
  -DCMAKE_BUILD_TYPE=Release >/dev/null  # clang 14 fails on coroutines with -g
cmake --build build-fuzz --target fuzzers -j "$jobs"

mkdir -p build-fuzz/logs
touch build-fuzz/logs/run-start  # findings newer than this are this run's; older ones stay for reference
run_one() {
  local p=$1 corpus=build-fuzz/corpus/$1 findings=build-fuzz/findings/$1
  mkdir -p "$corpus" "$findings"
  cp -n tests/fuzz/corpus/"$p"/* "$corpus"/ 2>/dev/null || true
  local start end
  start=$(date +%s%N)
  # A crash ends the run early; the exit code is read from the findings, not from here. The timeout is
  # wall time and generous: at nice 19 on a busy machine one input can wait many seconds for a core.
  build-fuzz/bin/fuzz_"$p" -runs="$executions" -max_len="${max_len[$p]}" -timeout=300 -print_final_stats=1 \
    -artifact_prefix="$findings"/ "$corpus" >build-fuzz/logs/"$p".log 2>&1 || true
  end=$(date +%s%N)
  echo $(((end - start) / 1000000)) >build-fuzz/logs/"$p".ms
}

pids=()
for p in "${parsers[@]}"; do
  rm -f build-fuzz/logs/"$p".ms
  run_one "$p" &
  pids+=($!)
  if [[ ${#pids[@]} -ge $jobs ]]; then
    wait "${pids[0]}"
    pids=("${pids[@]:1}")
  fi
done
for pid in "${pids[@]}"; do wait "$pid"; done

if $merge; then
  for p in "${parsers[@]}"; do
    rm -rf build-fuzz/merged/"$p" && mkdir -p build-fuzz/merged/"$p"
    build-fuzz/bin/fuzz_"$p" -merge=1 -max_len="${max_len[$p]}" -timeout=300 build-fuzz/merged/"$p" \
      tests/fuzz/corpus/"$p" build-fuzz/corpus/"$p" >build-fuzz/logs/"$p".merge.log 2>&1 ||
      { echo "fuzz.sh: merging the corpus of $p failed, see build-fuzz/logs/$p.merge.log" >&2; exit 1; }
    rm -rf tests/fuzz/corpus/"$p" && mv build-fuzz/merged/"$p" tests/fuzz/corpus/"$p"
  done
fi

printf '%-18s %12s %9s %10s %8s %8s\n' parser executions seconds execs/s corpus crashes
min_execs=
total_crashes=0
for p in "${parsers[@]}"; do
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' build-fuzz/logs/"$p".log | tail -1)
  execs=${execs:-0}
  ms=$(cat build-fuzz/logs/"$p".ms)
  crashes=$(find build-fuzz/findings/"$p" -type f -newer build-fuzz/logs/run-start \( -name 'crash-*' \
    -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' \) | wc -l)
  corpus=$(find build-fuzz/corpus/"$p" -type f | wc -l)
  printf '%-18s %12d %9.1f %10d %8d %8d\n' "$p" "$execs" "$(awk "BEGIN { print $ms / 1000 }")" \
    $((execs * 1000 / (ms > 0 ? ms : 1))) "$corpus" "$crashes"
  if [[ $crashes -gt 0 ]]; then
    echo "  $p: see build-fuzz/logs/$p.log and build-fuzz/findings/$p/" >&2
  fi
  total_crashes=$((total_crashes + crashes))
  if [[ -z $min_execs || $execs -lt $min_execs ]]; then min_execs=$execs; fi
done
echo "parsers=${#parsers[@]} min_execs=${min_execs} crashes=${total_crashes}"
[[ $total_crashes -eq 0 ]]
