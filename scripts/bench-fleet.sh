#!/usr/bin/env bash
# A fleet of N agents on one machine (SPEC 4 and 10): one imds-emulator serving N VMs in 3 fault domains, one
# nodetool-sim cluster of 3 racks (dc1, N/3 nodes each: fault domain k is rack k+1), N agents polling at 1 Hz.
# The fleet idles, then lives through a wave: one Freeze per fault domain, listing all its VMs, one fault domain
# at a time. Prints CPU and RSS, reaction latencies and invariant violations (scripts/bench/fleet_report.py).
# --coordinated: the agents coordinate through a 3-member etcd (SPEC 9): admission transactions, shared events
# approved once every listed VM is drained. Everything is on 127.0.0.1.
set -euo pipefail
export LC_ALL=C

usage() {
  cat <<'EOF'
Usage: scripts/bench-fleet.sh [--help] [--coordinated [--plain-etcd] [--agentless K]] [N]
  N              agents (default 150; a multiple of 3, at most 252: node addresses are 127.0.1.1 .. 127.0.1.N)
  --coordinated  through a 3-member loopback etcd (Debian's etcd-server), lease_ttl_s 15 (the default), over
                 TLS with client certificates (scripts/etcd-tls-certs.sh)
  --plain-etcd   the same over plain http (the cost of TLS is the difference)
  --agentless K  K VMs (spread over the fault domains) lose their agent before the wave, once their known/<vm>
                 record is written: the watcher's leader must hold each one's rack with an agentless drain
                 record while its fault domain's Freeze is due (agentless_impact), and release it after
Environment:
  BENCH_BIN           directory of the built binaries (default: build/bin, built first when it is the default)
  BENCH_IDLE_SECONDS  length of the idle counting window (default 60)
  BENCH_KEEP=1        keep the work dir (agents' logs, cluster file, nodetool call log, emulator records)
It loads the machine for about 3 minutes (N processes, a wave of N x 10 nodetool-sim runs): run it alone.
Last line: agents=N idle_cpu_pct=N wave_cpu_pct=N react_p99_ms=N racks_out_max=N violations=N etcd_txn_per_s=N
           coordinated=0|1 etcd_tls=0|1 agentless=K
EOF
}
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"
case ${1:-} in
  -h | --help) usage; exit 0 ;;
esac
coordinated=0 agentless=0
while (($#)); do
  case $1 in
    --coordinated) coordinated=1 ;;
    --plain-etcd) etcd_plain=1 ;; # read by lib.sh's start_etcd
    --agentless)
      agentless=${2:-}
      [[ $agentless =~ ^[0-9]+$ ]] || usage_error "--agentless needs a number, not '$agentless'"
      shift
      ;;
    -*) usage_error "unknown option '$1'" ;;
    *) break ;;
  esac
  shift
done
[[ $# -le 1 ]] || { usage >&2; exit 2; }
if ((!coordinated)) && { [[ -n ${etcd_plain:-} ]] || ((agentless)); }; then
  usage_error "--plain-etcd and --agentless go with --coordinated"
fi
agents=${1:-150}
if ! [[ $agents =~ ^[0-9]+$ ]] || ((agents < 3 || agents > 252 || agents % 3 != 0)); then
  usage_error "N must be a multiple of 3 from 3 to 252, not '$agents'"
fi
((agentless * 3 <= agents)) || usage_error "--agentless $agentless: at most a third of the $agents VMs"

root=$cla_root
cd "$root"
idle_s=${BENCH_IDLE_SECONDS:-60}
if ! [[ $idle_s =~ ^[0-9]+$ ]] || ((idle_s < 1)); then usage_error "BENCH_IDLE_SECONDS must be >= 1"; fi
bin=$(built_bin_dir "${BENCH_BIN:-}")
require_tools --hint scripts/install-deps.sh jq curl || exit 1
require_bins "$bin" "set BENCH_BIN" cassandra-lifecycle-agent imds-emulator nodetool-sim || exit 1

# ---- the scenario's numbers ----------------------------------------------------------------------------
readonly per_fd=$((agents / 3)) rf=3 poll_ms=1000
readonly racks_allowed=$((rf - (rf / 2 + 1)))
# A 10 s Freeze is impactful (the agent's no_impact_freeze_max_s is 9). Its NotBefore comes 20 s after it is
# posted, sooner than drain_lead_s (30 s), so every listed agent drains as soon as it sees the event: the
# drain's reaction is measured from the document change. The emulator starts the event once every listed VM
# approved (coordinated: at the approval of the one agent that approves for all), else at NotBefore; it leaves
# the document 10 + 2 s after it started.
readonly notice_s=20 freeze_s=10 complete_s=2 drain_lead_s=30 unsafe_lead_s=5

make_work_dir cla-fleet # removed at exit unless BENCH_KEEP=1 or the bench failed
keep_work=${BENCH_KEEP:-0}
cluster=$work/cluster.json
agent_pid=()
now_ms() { echo $((${EPOCHREALTIME/./} / 1000)); }

# ---- imds-emulator: vm0 .. vm(N-1), fault domain k holds vm(k*N/3) .. vm((k+1)*N/3 - 1) ------------------
vm_specs=()
for ((i = 0; i < agents; i++)); do vm_specs+=("vm$i,$((i / per_fd))"); done
# Uncoordinated, every listed agent approves: the emulator waits for all of them (the case study's reading).
# Coordinated, one agent approves once every listed VM is drained, safe under the docs' reading (any) too.
shared_approval=all
((coordinated)) && shared_approval=any
start_emulator "$bin/imds-emulator" "$work" "${vm_specs[@]}" -- --shared-approval "$shared_approval"

# ---- nodetool-sim: rack k+1 holds 127.0.1.(k*N/3 + 1) .. , the nodes of fault domain k --------------------
"$bin/nodetool-sim" --init-cluster "$cluster" --dcs dc1 --racks 3 --nodes-per-rack "$per_fd" \
  --base-address 127.0.1. --call-log "$work/nodetool-calls.jsonl" >/dev/null

coordination='{}'
if ((coordinated)); then
  start_etcd
  coordination=$(etcd_coordination_json bench)
fi

# ---- N agents ---------------------------------------------------------------------------------------------
mapfile -t addresses < <(jq -rs 'map(select(.listening == "vm")) | sort_by(.vm[2:] | tonumber) | .[].address' \
  "$work/emulator.out")
for ((i = 0; i < agents; i++)); do
  config=$(jq -n --arg endpoint "http://${addresses[i]}" --arg vm "vm$i" --argjson fd $((i / per_fd)) \
    --arg sim "$bin/nodetool-sim" --arg cluster "$cluster" --arg node "127.0.1.$((i + 1))" \
    --argjson poll "$poll_ms" --argjson lead "$drain_lead_s" --argjson unsafe "$unsafe_lead_s" --argjson rf "$rf" \
    --argjson coordination "$coordination" '{
      imds: {endpoint: $endpoint, poll_interval_ms: $poll},
      node: {resource_name: $vm, fault_domain: $fd},
      cassandra: {nodetool: [$sim, "--cluster", $cluster, "--node", $node], command_timeout_s: 30},
      topology: {replication_factor: $rf, fault_domain_racks: {"0": "rack1", "1": "rack2", "2": "rack3"}},
      policy: {drain_lead_s: $lead, unsafe_drain_lead_s: $unsafe, approve_shared_events: true},
      http: {listen: ""}} + (if $coordination == {} then {} else {coordination: $coordination} end)')
  start_agent "$bin/cassandra-lifecycle-agent" "$work/agents/vm$i" "$config"
  agent_pid[i]=$agent_started
done

vms_polled() {  # how many VMs the emulator answered a scheduledevents GET with 200 since the log was cleared
  curl -sf "$admin/admin/requests" |
    jq '[.[] | select(.method == "GET" and .path == "/metadata/scheduledevents" and .status == 200) | .vm]
        | unique | length'
}
start_limit_s=$((30 + agents / 5))  # each agent starts a process and asks nodetool for its node's status
deadline=$((EPOCHSECONDS + start_limit_s))
until (($(vms_polled) == agents)); do
  for ((i = 0; i < agents; i++)); do
    alive_or_die "${agent_pid[i]}" "agent vm$i" "$work/agents/vm$i/stderr"
  done
  ((EPOCHSECONDS < deadline)) || die "not every agent polled IMDS within $start_limit_s s ($(vms_polled) of $agents)"
  sleep 0.5
done
curl -sf -X DELETE "$admin/admin/requests" >/dev/null
sleep $((2 * poll_ms / 1000))  # two polls each: the start-up's nodetool calls are over

# ---- --agentless K: the last VMs of the fault domains in turn lose their agent ------------------------------
etcd_count() { # key prefix under the cluster's -> how many keys etcd holds there
  local key=/cassandra-lifecycle-agent/bench/$1
  etcd_curl "${etcd_endpoints[0]}/v3/kv/range" -d "$(jq -nc --arg k "$(printf %s "$key" | base64 -w0)"     --arg e "$(printf %s "${key%/}0" | base64 -w0)" '{key: $k, range_end: $e, count_only: true}')" |
    jq -r '.count // "0"'
}
agentless_vms=() agentless_exits=0
if ((agentless)); then
  all_known() { (($(etcd_count known/) == agents)); }
  wait_until 30 "every agent's known/<vm> record" all_known
  for ((j = 0; j < agentless; j++)); do
    i=$(((j % 3) * per_fd + per_fd - 1 - j / 3))
    agentless_vms+=("vm$i")
    kill -TERM "${agent_pid[i]}"
    rc=0
    wait "${agent_pid[i]}" || rc=$?
    ((rc == 0)) || { echo "   agent vm$i exited $rc on SIGTERM"; agentless_exits=$((agentless_exits + 1)); }
    forget_pids "${agent_pid[i]}"
    unset 'agent_pid[i]'
  done
  echo "   without an agent from now on: ${agentless_vms[*]}"
fi

# ---- measuring helpers ------------------------------------------------------------------------------------
clk_tck=$(getconf CLK_TCK)
cpu_ns() {  # pids... -> on-CPU ns of all their threads
  local p files=()
  for p in "$@"; do files+=(/proc/"$p"/task/*/schedstat); done
  cat "${files[@]}" 2>/dev/null | awk '{ s += $1 } END { printf "%.0f\n", s }'
}
children_ms() {  # pids... -> CPU ms of their reaped children (the nodetool-sim runs), from /proc/PID/stat
  local p files=()
  for p in "$@"; do files+=(/proc/"$p"/stat); done
  cat "${files[@]}" 2>/dev/null | awk -v hz="$clk_tck" '{ s += $16 + $17 } END { printf "%.0f\n", s * 1000 / hz }'
}
rss_kb() {  # pids... -> "sum max" of VmRSS in kB
  local p files=()
  for p in "$@"; do files+=(/proc/"$p"/status); done
  awk '/^VmRSS/ { s += $2; if ($2 > m) m = $2 } END { printf "%d %d\n", s, m }' "${files[@]}"
}
etcd_cpu_ns() { if ((coordinated)); then cpu_ns "${etcd_pids[@]}"; else echo 0; fi; }
txn_total() { if ((coordinated)); then etcd_txn_total; else echo 0; fi; }
polls_between() {  # from_ms to_ms -> scheduledevents GETs the emulator answered in that window
  curl -sf "$admin/admin/requests" | jq --argjson a "$1" --argjson b "$2" \
    '[.[] | select(.method == "GET" and .path == "/metadata/scheduledevents" and .t_ms >= $a and .t_ms < $b)]
     | length'
}

# ---- idle ---------------------------------------------------------------------------------------------------
echo "== $agents agents, one imds-emulator, a 3-rack nodetool-sim cluster (RF $rf: $racks_allowed rack out at most)"
echo "   load before: $(cut -d' ' -f1-3 /proc/loadavg); work dir $work"
i0=$(now_ms); a0=$(cpu_ns "${agent_pid[@]}"); e0=$(cpu_ns "$emulator_pid"); d0=$(etcd_cpu_ns)
sleep "$idle_s" &  # waited for with `wait`, which a signal interrupts (a foreground sleep would delay the trap)
sleep_pid=$!
cleanup_pid "$sleep_pid"
wait "$sleep_pid"
forget_pids "$sleep_pid"
a1=$(cpu_ns "${agent_pid[@]}"); e1=$(cpu_ns "$emulator_pid"); d1=$(etcd_cpu_ns); i1=$(now_ms)
read -r rss_sum rss_max < <(rss_kb "${agent_pid[@]}")
read -r emu_rss _ < <(rss_kb "$emulator_pid")
idle_polls=$(polls_between "$i0" "$i1")
echo "   load after idle: $(cut -d' ' -f1-3 /proc/loadavg)"
curl -sf -X DELETE "$admin/admin/requests" >/dev/null  # the wave's reactions do not depend on this log

# ---- the wave: one fault domain at a time -------------------------------------------------------------------
event_json() { curl -sf "$admin/admin/events" | jq -c --arg id "$1" '.[] | select(.EventId == $id)'; }
event_left() { # id -> the event left the document; until then, last holds it as the admin API shows it
  local ev
  ev=$(event_json "$1") && [[ -n $ev ]] || return 0
  last=$ev
  return 1
}
fd_restored() {  # fd -> every agent of the fault domain logged restore_completed, every node is up, no drain
  local fd=$1 logs=() i  # record left (an agentless one goes once the leader saw its node UN after the event)
  for ((i = fd * per_fd; i < (fd + 1) * per_fd; i++)); do
    if [[ -n ${agent_pid[i]:-} ]]; then logs+=("$work/agents/vm$i/agent.jsonl"); fi
  done
  (($(grep -l '"msg":"restore_completed"' "${logs[@]}" | wc -l) == ${#logs[@]})) &&
    jq -e 'all(.datacenters[].racks[].nodes[]; .running and .gossip and .binary and (.drained | not))' \
      "$cluster" >/dev/null && { ((!coordinated)) || (($(etcd_count drains/) == 0)); }
}
wave_limit_s=$((notice_s + freeze_s + complete_s + 60))  # per fault domain: the event's life plus a margin
w0=$(now_ms); wa0=$(cpu_ns "${agent_pid[@]}"); we0=$(cpu_ns "$emulator_pid"); wc0=$(children_ms "${agent_pid[@]}")
wd0=$(etcd_cpu_ns); wt0=$(txn_total)
for fd in 0 1 2; do
  resources=$(seq $((fd * per_fd)) $(((fd + 1) * per_fd - 1)) | jq -R '"vm" + .' | jq -sc .)
  id=$(post_event "{\"type\":\"Freeze\",\"resources\":$resources,
    \"not_before_in_s\":$notice_s,\"duration_s\":$freeze_s,\"complete_after_s\":$complete_s}")
  deadline=$((EPOCHSECONDS + wave_limit_s))
  last=""
  wait_until "$wave_limit_s" "fault domain $fd's Freeze to leave the document" event_left "$id"
  jq -c --argjson fd "$fd" '{fd: $fd} + .' <<<"$last" >>"$work/events.jsonl"
  echo "   fault domain $fd: Freeze $id of $per_fd VMs, $(jq -r '"started \((.started_at_ms - .created_at_ms) / 1000) s after it was posted"' <<<"$last")"
  wait_until $((deadline - EPOCHSECONDS)) "fault domain $fd restored" fd_restored "$fd"
done
wa1=$(cpu_ns "${agent_pid[@]}"); we1=$(cpu_ns "$emulator_pid"); wc1=$(children_ms "${agent_pid[@]}"); w1=$(now_ms)
wd1=$(etcd_cpu_ns); wt1=$(txn_total)
curl -sf "$admin/admin/approvals" >"$work/approvals.json"
echo "   load after the wave: $(cut -d' ' -f1-3 /proc/loadavg)"

# ---- stop: every agent must still be alive and stop with exit 0 ---------------------------------------------
bad_exits=$agentless_exits
for i in "${!agent_pid[@]}"; do kill -0 "${agent_pid[i]}" 2>/dev/null || { echo "   agent vm$i died"; bad_exits=$((bad_exits + 1)); }; done
kill -TERM "${agent_pid[@]}" 2>/dev/null || true
for i in "${!agent_pid[@]}"; do
  rc=0
  wait "${agent_pid[i]}" || rc=$?
  ((rc == 0)) || { echo "   agent vm$i exited $rc"; bad_exits=$((bad_exits + 1)); }
done
forget_pids "${agent_pid[@]}"

etcd_args=()
if ((coordinated)); then
  etcd_args=(--etcd "$((d1 - d0)) $((wd1 - wd0)) $((wt1 - wt0))" --etcd-tls "$((${etcd_plain:-0} == 1 ? 0 : 1))"
    --agentless "${agentless_vms[*]}")
fi
/usr/bin/python3 -I "$root/scripts/bench/fleet_report.py" --work "$work" --agents "$agents" \
  --racks-allowed "$racks_allowed" --bad-exits "$bad_exits" \
  --idle "$((i1 - i0)) $((a1 - a0)) $((e1 - e0)) $idle_polls" \
  --wave "$((w1 - w0)) $((wa1 - wa0)) $((we1 - we0)) $((wc1 - wc0))" \
  --rss "$rss_sum $rss_max $emu_rss" "${etcd_args[@]}"
