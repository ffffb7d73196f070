#!/usr/bin/env bash
# Fuzzes every parser of outside bytes, one libFuzzer target each (tests/fuzz/fuzz_<parser>.cpp), to a total
# number of executions over runs of a bounded size; keeps each complete run and summarizes all parsers (--help).
set -euo pipefail
script_name=fuzz.sh
# shellcheck source=../lib.sh
source "$(dirname "$0")/../lib.sh"

usage() {
  cat <<'EOF_USAGE'
Usage: scripts/bench/fuzz.sh [--jobs N] [--chunk N] [--merge] [--only PARSER] [--summary] [EXECUTIONS]

Builds the fuzz targets in build-fuzz/ and fuzzes each parser until its complete runs on its current sources
total EXECUTIONS inputs (default 10000000), in libFuzzer runs of at most --chunk inputs each (a run stops at
its count, or at its first crash). Each target starts from tests/fuzz/corpus/<parser>/ and grows
build-fuzz/corpus/<parser>/, which every run continues from; crashes go to build-fuzz/findings/<parser>/,
logs to build-fuzz/logs/.

A run that reaches its count or crashes is complete: it is added to build-fuzz/results/<parser>.runs
(executions, crashes, seconds, the commit, the date, and a hash of the sources the target is built from: its
fuzz_<parser>.cpp, the project headers it includes and the sources behind them, found in the build's
dependency records). An interrupted run is not counted, so a stopped invocation loses at most one chunk and
the next one goes on from there. build-fuzz/results/<parser>.stats sums the runs on the current sources
(executions, runs, crashes, seconds, exec/s). A parser whose runs there crashed is not fuzzed further.

Last, a table of every parser's last result (executions, seconds, exec/s, crashes, commit, date) and the line
  parsers=N min_execs=N crashes=N
over all parsers. A parser without a result, or whose sources changed since its result (another hash),
counts as not run: 0 executions, so min_execs says so. Exits 1 when a counted result has a crash.

  --jobs N       run N targets at once (default 1; the machine has 2 cores, never more than 2)
  --chunk N      at most N inputs per libFuzzer run (default 1000000)
  --merge        afterwards, minimize each grown corpus (-merge=1) back into tests/fuzz/corpus/<parser>/
  --only PARSER  run one target (repeatable), e.g. --only nodetool_status
  --summary      run nothing (but --merge), print the table and the summary line from the kept results
Run it under `chrt --idle 0` on a shared machine: it then takes only CPU nobody wants.
EOF_USAGE
}

# Each parser with the longest input worth trying: a document or answer body, a page of nodetool output, a
# date; the endpoint's requests just past its 8 KiB header and body limits; a few pipelined admin requests (the
# target checks no refusals). A longer limit only slows each run: the inputs grow to it. imds_document's 20 KiB
# is the shortest that keeps its corpus's coverage (16 KiB loses an edge; its limits need a few KiB).
declare -A max_len=(
  [imds_document]=20480 [compute]=65536 [not_before]=256 [nodetool_status]=4096 [nodetool_info]=4096
  [nodetool_running]=256 [config]=16384 [http_endpoint]=10240 [emulator_admin]=4096 [etcd_answer]=16384
  [state_codec]=16384 [nodetool_describecluster]=4096 [nodetool_ring]=16384 [nodetool_describering]=16384
  [jolokia_answer]=8192 [nodetool_tpstats]=4096 [nodetool_listpendinghints]=4096 [nodetool_getmaxhintwindow]=256)
all_parsers=(imds_document not_before compute nodetool_status nodetool_info nodetool_running config etcd_answer
  state_codec http_endpoint emulator_admin nodetool_describecluster nodetool_ring nodetool_describering
  jolokia_answer nodetool_tpstats nodetool_listpendinghints nodetool_getmaxhintwindow)

# The repo files parser $1's target is built from: the closure over the compiler's dependency records, from
# each project header to the source of the same name. The records name repo files relative to build-fuzz
# ("../x") or, as clang 14 writes them for sources given by absolute path, absolutely ("$PWD/x").
sources_of() {
  ninja -C build-fuzz -t deps | awk -v start="tests/fuzz/CMakeFiles/fuzz_$1.dir/fuzz_$1.cpp.o" -v root="$PWD/" '
    /#deps/ { obj = $1; sub(/:$/, "", obj); next }
    $1 ~ /^\.\.\// || index($1, root) == 1 {
      f = $1 ~ /^\.\.\// ? substr($1, 4) : substr($1, length(root) + 1); deps[obj] = deps[obj] " " f
      n = split(f, parts, "/")
      if (obj ~ ("/" parts[n] "\\.o$")) obj_of[f] = obj
    }
    END {
      queue[1] = start; n = 1
      for (i = 1; i <= n; i++) {
        k = split(deps[queue[i]], files, " ")
        for (j = 1; j <= k; j++) {
          f = files[j]
          if (f in seen) continue
          seen[f] = 1; print f
          cpp = f
          if (sub(/\.hpp$/, ".cpp", cpp) && (cpp in obj_of) && !(obj_of[cpp] in queued)) {
            queued[obj_of[cpp]] = 1; queue[++n] = obj_of[cpp]
          }
        }
      }
    }' | sort
}

# One hash of those files and of the fuzz build's flags.
sources_hash() {
  local files
  mapfile -t files < <(sources_of "$1")
  [[ ${#files[@]} -gt 0 ]] || die "no dependency records for fuzz_$1; was it built?"
  sha256sum tests/fuzz/CMakeLists.txt tests/fuzz/coverage_ignorelist.txt "${files[@]}" | sha256sum | cut -c1-16
}

# The commit, with "+dirty" when the sources of parser $1 differ from it.
commit_label() {
  local label files
  label=$(git rev-parse --short=10 HEAD)
  mapfile -t files < <(sources_of "$1")
  files+=(tests/fuzz/CMakeLists.txt tests/fuzz/coverage_ignorelist.txt)
  if [[ -n $(git status --porcelain -- "${files[@]}") ]]; then
    label+="+dirty"
  fi
  echo "$label"
}

# A parser's complete runs, one line each: executions crashes seconds commit date sources.
ledger_of() { echo "build-fuzz/results/$1.runs"; }

# A result from before the ledger (one .stats per parser) becomes its first line.
adopt_old_result() {
  local ledger stats=build-fuzz/results/$1.stats
  ledger=$(ledger_of "$1")
  [[ -f $ledger || ! -f $stats ]] && return 0
  echo "$(stat_of "$stats" executions) $(stat_of "$stats" crashes) $(stat_of "$stats" seconds)" \
    "$(stat_of "$stats" commit) $(stat_of "$stats" date) $(stat_of "$stats" sources)" >"$ledger"
}

# "executions crashes seconds runs" summed over parser $1's kept runs on sources $2.
ledger_totals() {
  local ledger
  ledger=$(ledger_of "$1")
  [[ -f $ledger ]] || { echo "0 0 0 0"; return 0; }
  awk -v h="$2" '$6 == h { e += $1; c += $2; s += $3; n++ } END { printf "%d %d %.1f %d\n", e, c, s, n }' "$ledger"
}

# Rewrites parser $1's result from its kept runs on the sources it was built from.
write_result() {
  local p=$1 hash=${built_hash[$1]} execs crashes seconds runs
  read -r execs crashes seconds runs < <(ledger_totals "$p" "$hash")
  cat >build-fuzz/results/"$p".stats.tmp <<EOF_STATS
parser=$p
executions=$execs
runs=$runs
crashes=$crashes
seconds=$seconds
execs_per_s=$(awk "BEGIN { printf \"%d\", $execs / ($seconds > 0 ? $seconds : 1) }")
max_len=${max_len[$p]}
commit=${built_commit[$p]}
date=$(date -u +%Y-%m-%dT%H:%MZ)
sources=$hash
EOF_STATS
  mv build-fuzz/results/"$p".stats.tmp build-fuzz/results/"$p".stats
}

# One libFuzzer run of parser $1 for $2 executions; a complete one (all of them, or a crash) is added to the
# ledger, an interrupted one is not. Returns 1 when it did not complete.
run_chunk() {
  local p=$1 want=$2 corpus=build-fuzz/corpus/$1 findings=build-fuzz/findings/$1 log=build-fuzz/logs/$1.log
  local start end
  touch build-fuzz/logs/"$p".start  # findings newer than this are this run's; older ones stay for reference
  start=$(date +%s%N)
  # A crash ends the run early, counted from the findings. The timeout is wall time: at idle priority on a
  # busy machine one input can wait many seconds for a core.
  build-fuzz/bin/fuzz_"$p" -runs="$want" -max_len="${max_len[$p]}" -timeout=300 -print_final_stats=1 \
    -artifact_prefix="$findings"/ "$corpus" >"$log" 2>&1 || true
  end=$(date +%s%N)
  local execs ms crashes
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  execs=${execs:-0}
  ms=$(((end - start) / 1000000))
  crashes=$(find "$findings" -type f -newer build-fuzz/logs/"$p".start \( -name 'crash-*' -o -name 'leak-*' \
    -o -name 'timeout-*' -o -name 'oom-*' \) | wc -l)
  if [[ $crashes -eq 0 && $execs -lt $want ]]; then
    log "$p stopped after $execs of $want executions (see $log); not counted"
    return 1
  fi
  [[ $crashes -eq 0 ]] || log "$p crashed: see $log, $findings/"
  echo "$execs $crashes $(awk "BEGIN { printf \"%.1f\", $ms / 1000 }") ${built_commit[$p]}" \
    "$(date -u +%Y-%m-%dT%H:%MZ) ${built_hash[$p]}" >>"$(ledger_of "$p")"
}

# Fuzzes parser $1 in runs of at most $chunk until its kept runs on these sources total $executions, or one
# crashes; its result is rewritten after each run.
run_one() {
  local p=$1 execs crashes seconds runs
  mkdir -p build-fuzz/corpus/"$p" build-fuzz/findings/"$p" build-fuzz/results
  cp -n tests/fuzz/corpus/"$p"/* build-fuzz/corpus/"$p"/ 2>/dev/null || true
  adopt_old_result "$p"
  while :; do
    read -r execs crashes seconds runs < <(ledger_totals "$p" "${built_hash[$p]}")
    if [[ $crashes -gt 0 ]]; then
      log "$p: a run on these sources crashed (see build-fuzz/findings/$p/); not fuzzed further"
      break
    fi
    if [[ $execs -ge $executions ]]; then
      log "$p: $execs executions on these sources in $runs runs"
      break
    fi
    local want=$((executions - execs))
    [[ $want -le $chunk ]] || want=$chunk
    run_chunk "$p" "$want" || return 0
    write_result "$p"
  done
}

stat_of() { sed -n "s/^$2=//p" "$1"; }

# The table of every parser's result (its runs on the sources it names) and the summary line; returns 1 when a counted result crashed.
summarize() {
  printf '%-17s %11s %4s %8s %8s %7s %-16s %-17s %s\n' parser executions runs seconds execs/s crashes commit date \
    note
  local p file execs counted min_execs="" total_crashes=0
  for p in "${all_parsers[@]}"; do
    file=build-fuzz/results/$p.stats
    if [[ ! -f $file ]]; then
      printf '%-17s %11s %4s %8s %8s %7s %-16s %-17s %s\n' "$p" - - - - - - - "not run"
      min_execs=0
      continue
    fi
    execs=$(stat_of "$file" executions)
    local note=ok
    counted=$execs
    if [[ $(stat_of "$file" sources) != "$(sources_hash "$p")" ]]; then
      note="sources changed since: counts as not run"
      counted=0
    elif [[ $(stat_of "$file" crashes) -gt 0 ]]; then
      note="CRASHED: see build-fuzz/findings/$p/"
      total_crashes=$((total_crashes + $(stat_of "$file" crashes)))
    fi
    local runs
    runs=$(stat_of "$file" runs)
    printf '%-17s %11d %4s %8s %8s %7s %-16s %-17s %s\n' "$p" "$execs" "${runs:-1}" "$(stat_of "$file" seconds)" \
      "$(stat_of "$file" execs_per_s)" "$(stat_of "$file" crashes)" "$(stat_of "$file" commit)" \
      "$(stat_of "$file" date)" "$note"
    if [[ -z $min_execs || $counted -lt $min_execs ]]; then min_execs=$counted; fi
  done
  echo "parsers=${#all_parsers[@]} min_execs=${min_execs} crashes=${total_crashes}"
  [[ $total_crashes -eq 0 ]]
}

main() {
  executions=10000000 chunk=1000000
  local jobs=1 merge=false summary_only=false only=()
  while [[ $# -gt 0 ]]; do
    case $1 in
      -h | --help) usage; exit 0 ;;
      --jobs) jobs=${2:?--jobs needs N}; shift 2 ;;
      --chunk) chunk=${2:?--chunk needs N}; shift 2 ;;
      --merge) merge=true; shift ;;
      --only) only+=("${2:?--only needs a parser}"); shift 2 ;;
      --summary) summary_only=true; shift ;;
      -*) usage_error "unknown option $1 (see --help)" ;;
      *) executions=$1; shift ;;
    esac
  done
  [[ $executions =~ ^[1-9][0-9]*$ ]] ||
    usage_error "EXECUTIONS must be a positive integer, got '$executions'"
  [[ $chunk =~ ^[1-9][0-9]*$ ]] || usage_error "--chunk must be a positive integer, got '$chunk'"
  [[ $jobs =~ ^[12]$ ]] || usage_error "--jobs must be 1 or 2, got '$jobs'"
  local parsers=("${all_parsers[@]}") p
  if [[ ${#only[@]} -gt 0 ]]; then
    for p in "${only[@]}"; do
      [[ -n ${max_len[$p]:-} ]] || usage_error "no parser '$p'; parsers: ${all_parsers[*]}"
    done
    parsers=("${only[@]}")
  fi

  cd "$cla_root"
  if ! command -v clang++ >/dev/null ||
    ! dpkg-query -W -f='${Status}' libclang-rt-14-dev 2>/dev/null | grep -q "ok installed"; then
    log "installing clang and its fuzzer runtime (clang, libclang-rt-14-dev)"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends clang libclang-rt-14-dev \
      >/dev/null || die "cannot install clang; install clang and libclang-rt-14-dev"
  fi
  CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DCLA_FUZZ=ON -DCLA_BUILD_TESTS=OFF \
    -DCMAKE_BUILD_TYPE=Release >/dev/null  # clang 14 fails on coroutines with -g
  cmake --build build-fuzz --target fuzzers -j "$jobs" >/dev/null ||
    die "building the fuzz targets failed (cmake --build build-fuzz --target fuzzers)"
  mkdir -p build-fuzz/logs
  # What each binary was built from, taken now: an edit during the runs must not be credited with them.
  declare -gA built_commit=() built_hash=()
  for p in "${parsers[@]}"; do
    built_commit[$p]=$(commit_label "$p")
    built_hash[$p]=$(sources_hash "$p")
  done

  if ! $summary_only; then
    local pids=()
    for p in "${parsers[@]}"; do
      run_one "$p" &
      pids+=($!)
      if [[ ${#pids[@]} -ge $jobs ]]; then
        wait "${pids[0]}"
        pids=("${pids[@]:1}")
      fi
    done
    for pid in "${pids[@]}"; do wait "$pid"; done
  fi

  if $merge; then
    for p in "${parsers[@]}"; do
      rm -rf build-fuzz/merged/"$p" && mkdir -p build-fuzz/merged/"$p"
      build-fuzz/bin/fuzz_"$p" -merge=1 -max_len="${max_len[$p]}" -timeout=300 build-fuzz/merged/"$p" \
        tests/fuzz/corpus/"$p" build-fuzz/corpus/"$p" >build-fuzz/logs/"$p".merge.log 2>&1 ||
        die "merging the corpus of $p failed, see build-fuzz/logs/$p.merge.log"
      rm -rf tests/fuzz/corpus/"$p" && mv build-fuzz/merged/"$p" tests/fuzz/corpus/"$p"
    done
  fi

  summarize
}

main "$@"; exit  # one line: an edit of this file cannot reach a running copy
