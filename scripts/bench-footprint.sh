#!/usr/bin/env bash
# Idle footprint at 1 Hz polling (SPEC 4 and 10): the agent beside the docs' Python polling loop, one run.
# One imds-emulator serves four VMs: vm0 = the agent (CPU, RSS, and system calls per poll by strace -c),
# vm1 = the Azure docs' Python sample loop (requests; CPU), vm2 = the agent under callgrind (instructions per
# poll: exact from run to run, unlike CPU time), vm3 = scripts/idle-floor.c (CPU): the same GET with nothing
# else, the floor of any poller on this machine. CPU is each program's on-CPU time
# (/proc/PID/task/*/schedstat, ns) over the same counting window; polls are counted from the emulator's
# request log over that window.
# Everything is on 127.0.0.1.
set -euo pipefail

usage() {
  cat <<'EOF'
Usage: scripts/bench-footprint.sh [--help]
Environment:
  BENCH_BIN            directory of the built binaries (default: build/bin, built first when it is the default)
  BENCH_COUNT_SECONDS  length of the counting window (default 60)
  BENCH_STRACE_SECONDS length of the strace window that follows it (default 20)
Last line: agent_ms_per_min=N python_ms_per_min=N ratio=N syscalls_per_poll=N instr_per_poll=N rss_mb=N
  floor_ms_per_min=N (scripts/idle-floor.c: the same GET with 3 system calls and nothing else)
EOF
}
[[ ${1:-} == --help || ${1:-} == -h ]] && { usage; exit 0; }
[[ $# -eq 0 ]] || { usage >&2; exit 2; }

# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"
cd "$cla_root"
count_s=${BENCH_COUNT_SECONDS:-60}
strace_s=${BENCH_STRACE_SECONDS:-20}
bin=$(built_bin_dir "${BENCH_BIN:-}")
require_tools --hint scripts/install-deps.sh valgrind callgrind_control strace jq curl cc || exit 1
/usr/bin/python3 -I -c 'import requests' 2>/dev/null || die "python3-requests is missing (scripts/install-deps.sh)"

make_work_dir cla-footprint # removed at exit unless BENCH_KEEP is set (to anything)
keep_on_failure=0 kept_note=""
if [[ -n ${BENCH_KEEP:-} ]]; then
  keep_work=1
  echo "work dir: $work"
fi

start_emulator "$bin/imds-emulator" "$work" vm0,0 vm1,0 vm2,0 vm3,0
vm_addr() { emulator_vm_address "$work" "$1"; }
"$bin/nodetool-sim" --init-cluster "$work/cluster.json" --dcs dc1 --racks 3 --nodes-per-rack 1 \
  --base-address 127.0.1. >/dev/null

agent_config() {  # vm name -> config file
  write_bench_agent_config "$work/$1.json" "$(vm_addr "$1")" "$1" "$bin/nodetool-sim" "$work/cluster.json"
  echo "$work/$1.json"
}

# The docs' Python sample (Azure "Scheduled Events", the advanced_sample loop: requests.get per poll, sleep(1),
# DocumentIncarnation compared), run without its keyboard menu; only the URL is the emulator's. requests
# honours proxy variables: they are cleared for it, so it talks to 127.0.0.1 only.
cat >"$work/poll.py" <<'PY'
import json
import sys
import requests
from time import sleep

metadata_url = "http://" + sys.argv[1] + "/metadata/scheduledevents"
header = {'Metadata' : 'true'}
query_params = {'api-version':'2020-07-01'}

def get_scheduled_events():
    resp = requests.get(metadata_url, headers = header, params = query_params)
    data = resp.json()
    return data

def log(event):
    print(event["Description"])
    return

def advanced_sample(last_document_incarnation):
    found_document_incarnation = last_document_incarnation
    while (last_document_incarnation == found_document_incarnation):
        sleep(1)
        payload = get_scheduled_events()
        found_document_incarnation = payload["DocumentIncarnation"]
    for event in payload["Events"]:
        log(event)
    print("Processed events from document: " + str(found_document_incarnation))
    return found_document_incarnation

last_document_incarnation = "-1"
while True:
    last_document_incarnation = advanced_sample(last_document_incarnation)
PY

cc -O2 -o "$work/idle-floor" scripts/idle-floor.c

"$bin/cassandra-lifecycle-agent" --config "$(agent_config vm0)" >/dev/null 2>&1 &
agent_pid=$!; cleanup_pid "$agent_pid"
env -u http_proxy -u HTTP_PROXY -u https_proxy -u HTTPS_PROXY -u all_proxy -u ALL_PROXY NO_PROXY='*' \
  /usr/bin/python3 -I "$work/poll.py" "$(vm_addr vm1)" >/dev/null &
python_pid=$!; cleanup_pid "$python_pid"
(cd "$work" && exec valgrind --tool=callgrind --callgrind-out-file="$work/callgrind.%p" \
  "$bin/cassandra-lifecycle-agent" --config "$(agent_config vm2)" >/dev/null 2>"$work/valgrind.err") &
grind_pid=$!; cleanup_pid "$grind_pid"
floor_addr=$(vm_addr vm3)
"$work/idle-floor" "${floor_addr%:*}" "${floor_addr##*:}" &
floor_pid=$!; cleanup_pid "$floor_pid"

requests() {  # vm -> GET requests served so far
  curl -s --noproxy '*' "$admin/admin/requests" | jq --arg vm "$1" '[.[] | select(.vm==$vm and .method=="GET")] | length'
}
cpu_ns() {  # pid -> on-CPU ns of all its threads
  cat /proc/"$1"/task/*/schedstat 2>/dev/null | awk '{ s += $1 } END { printf "%d\n", s }'
}
polled() { (($(requests "$1") >= $2)); } # vm, count: the emulator has served that many GETs to it
for vm in vm0 vm1 vm2 vm3; do # valgrind starts slowly
  wait_poll_s=0.1 wait_until 60 "$vm to make 3 polls" polled "$vm" 3
done

echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
callgrind_control -z "$grind_pid" >/dev/null 2>&1
a0=$(cpu_ns "$agent_pid"); p0=$(cpu_ns "$python_pid"); f0=$(cpu_ns "$floor_pid")
r0=$(requests vm0); q0=$(requests vm1); g0=$(requests vm2); h0=$(requests vm3)
sleep "$count_s"
a1=$(cpu_ns "$agent_pid"); p1=$(cpu_ns "$python_pid"); f1=$(cpu_ns "$floor_pid")
r1=$(requests vm0); q1=$(requests vm1); g1=$(requests vm2); h1=$(requests vm3)
callgrind_control -d "$grind_pid" >/dev/null 2>&1
rss_kb=$(awk '/^VmRSS/ { print $2 }' /proc/"$agent_pid"/status)
echo "load after:  $(cut -d' ' -f1-3 /proc/loadavg)"

# strace's window and the polls counted both start and end in the quiet middle of a poll interval, so they
# cover the same polls (an edge during a poll counts its calls without the poll, or the reverse).
to_mid_interval() {  # until a poll has just been served, then half the 1000 ms interval
  local n; n=$(requests vm0)
  for _ in $(seq 30); do [[ $(requests vm0) -gt $n ]] && break; sleep 0.05; done
  sleep 0.5
}
to_mid_interval
strace -c -f -p "$agent_pid" -o "$work/strace.txt" 2>/dev/null &
strace_pid=$!; cleanup_pid "$strace_pid"
s0=$(requests vm0)
sleep "$strace_s"
s1=$(requests vm0)
kill -INT "$strace_pid"; wait "$strace_pid" || true; forget_pids "$strace_pid"

dump=$(find "$work" -maxdepth 1 -name 'callgrind.*' -printf '%T@ %p\n' | sort -rn | head -n 1 | cut -d' ' -f2-)
instr=$(awk '/^summary:|^totals:/ { print $2; exit }' "$dump")
syscalls=$(awk '$NF == "total" { print $4 }' "$work/strace.txt")

echo "strace -c -f of the agent over ${strace_s} s:"
cat "$work/strace.txt"
awk -v a=$((a1 - a0)) -v p=$((p1 - p0)) -v f=$((f1 - f0)) -v s="$count_s" -v ra=$((r1 - r0)) -v rp=$((q1 - q0)) \
  -v rg=$((g1 - g0)) -v rf=$((h1 - h0)) \
  -v sc="$syscalls" -v sp=$((s1 - s0)) -v ir="$instr" -v rss="$rss_kb" '
  BEGIN {
    am = a / 1e6 * 60 / s; pm = p / 1e6 * 60 / s; fm = f / 1e6 * 60 / s
    printf "window %d s: agent %d polls, python %d polls, agent under callgrind %d polls, floor %d polls\n", s, ra, rp, rg, rf
    printf "%-34s %8.1f ms CPU/min   %6.3f ms/poll\n", "cassandra-lifecycle-agent (vm0)", am, a / 1e6 / ra
    printf "%-34s %8.1f ms CPU/min   %6.3f ms/poll\n", "python docs sample, requests (vm1)", pm, p / 1e6 / rp
    printf "%-34s %8.1f ms CPU/min   %6.3f ms/poll (python / floor = %.1f)\n", "C floor: sleep, send, recv (vm3)", fm, f / 1e6 / rf, pm / fm
    printf "%-34s %8.0f instructions/poll\n", "agent under callgrind (vm2)", ir / rg
    printf "%-34s %8.2f syscalls/poll (%d over %d polls)\n", "agent, strace -c -f", sc / sp, sc, sp
    printf "%-34s %8.1f MB RSS\n", "agent", rss / 1024
    print "targets (SPEC 4): <= 9 ms/min, >= 20x less than python, <= 4 syscalls/poll, <= 16 MB"
    printf "agent_ms_per_min=%.1f python_ms_per_min=%.1f ratio=%.1f syscalls_per_poll=%.2f instr_per_poll=%.0f rss_mb=%.1f floor_ms_per_min=%.1f\n",
      am, pm, pm / am, sc / sp, ir / rg, rss / 1024, fm
  }'
