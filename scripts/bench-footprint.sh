#!/usr/bin/env bash
# Idle footprint of the agent at 1 Hz polling against imds-emulator (SPEC 4: <= 30 ms CPU per minute,
# <= 16 MB RSS), beside a curl polling loop at the same rate as the baseline. Prints the figures.
# Usage: scripts/bench-footprint.sh [seconds]   (default 60; everything on 127.0.0.1)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-${BENCH_SECONDS:-60}}
scripts/install-deps.sh
scripts/build.sh >/dev/null
bin=build/bin
work=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT

"$bin/imds-emulator" --vm vm0,0,127.0.0.1:0 --admin 127.0.0.1:0 >"$work/emulator.out" &
pids+=($!)
for _ in $(seq 50); do [[ $(grep -c listening "$work/emulator.out" || true) -ge 2 ]] && break; sleep 0.1; done
vm_addr=$(jq -r 'select(.listening=="vm") | .address' "$work/emulator.out")
"$bin/nodetool-sim" --init-cluster "$work/cluster.json" --dcs dc1 --racks 3 --nodes-per-rack 1 --base-address 127.0.1. >/dev/null

cat >"$work/agent.json" <<JSON
{
  "imds": {"endpoint": "http://$vm_addr", "poll_interval_ms": 1000},
  "node": {"resource_name": "vm0", "fault_domain": 0},
  "cassandra": {"nodetool": ["$PWD/$bin/nodetool-sim", "--cluster", "$work/cluster.json", "--node", "127.0.1.1"]},
  "state_file": "$work/state.json",
  "log": {"file": "$work/agent.jsonl"},
  "http": {"listen": ""}
}
JSON

measure() {  # label, command...: prints "label cpu_ms_per_minute peak_rss_kb"
  local label=$1; shift
  /usr/bin/time -f "%U %S %M" -o "$work/$label.time" timeout -s TERM "$seconds" "$@" >/dev/null 2>&1 || true
  read -r user sys rss < <(tail -n 1 "$work/$label.time")  # time prepends "Command exited ..." on timeout
  awk -v l="$label" -v u="$user" -v s="$sys" -v r="$rss" -v d="$seconds" \
    'BEGIN { printf "%-28s cpu %7.1f ms/min   peak rss %6.1f MB\n", l, (u + s) * 1000 * 60 / d, r / 1024 }'
}

echo "idle footprint over ${seconds}s at 1 Hz polling (agent vs. a curl loop):"
measure cassandra-lifecycle-agent "$bin/cassandra-lifecycle-agent" --config "$work/agent.json"
measure curl-loop-baseline bash -c "while :; do curl -s --noproxy '*' -H Metadata:true \
  'http://$vm_addr/metadata/scheduledevents?api-version=2020-07-01' >/dev/null; sleep 1; done"
echo "target (SPEC 4): agent cpu <= 30 ms/min, peak rss <= 16 MB"
polls=$(grep -c '"method":"GET"' <(curl -s "http://$(jq -r 'select(.listening=="admin") | .address' "$work/emulator.out")/admin/requests" | jq -c '.[]') || true)
echo "requests served by the emulator: $polls"
