#!/usr/bin/env bash
# A fleet of N agents on one machine (SPEC 4 and 10): one imds-emulator serving N VMs, one nodetool-sim cluster
# of D DCs (dc1..dcD, --dcs, 1 by default) of 3 racks each, N agents polling at 1 Hz. DC dcK is the emulator's
# region dcK (one availability set): its VMs vm0 .. vm(N/D-1), fault domain k is rack k+1 of that DC.
# The fleet idles, then lives through a wave: one fault domain at a time, one Freeze per DC listing that DC's VMs
# of the fault domain, the DCs' Freezes at once. Prints CPU and RSS, reaction latencies and invariant violations
# (scripts/bench/fleet_report.py). --coordinated: the agents coordinate through a 3-member etcd (SPEC 9):
# admission transactions, shared events approved once every listed VM is drained. Everything is on 127.0.0.1.
set -euo pipefail
export LC_ALL=C

usage() {
  cat <<'EOF'
Usage: scripts/bench-fleet.sh [--help] [--coordinated [--plain-etcd] [--etcd-nice K] [--agentless K] [--dcs D]] [N]
  N              agents (default 150; a multiple of 3 x D, at most 450), N/D in each DC
  --coordinated  through a 3-member loopback etcd (Debian's etcd-server), lease_ttl_s 15 (the default), over
                 TLS with client certificates (scripts/etcd-tls-certs.sh)
  --plain-etcd   the same over plain http (the cost of TLS is the difference)
  --etcd-nice K  etcd's members at nice K (-20..19; 0, the default, as the agents): in production etcd runs on
                 hosts of its own, here it shares 2 cores with N agents and their nodetool-sim runs, and each of
                 its few threads weighs as much as one agent; a negative K plays etcd's own hosts (the summary
                 says etcd_nice=K)
  --agentless K  K VMs (spread over the DCs and fault domains) lose their agent before the wave, once every
                 known/<dc>/<vm> record is written: the watcher's leader of its DC must hold each one's rack with
                 an agentless drain record while its fault domain's Freeze is due (agentless_impact), and
                 release it after
  --dcs D        D DCs of N/D agents (1, the default, 2 or 3; more than 1 with --coordinated): dc1..dcD, each an
                 emulator region of its own (VM names repeat per region), 3 racks each, in one nodetool-sim
                 cluster; each fault domain's D Freezes (one per DC) at once (SPEC 10: --coordinated 450 --dcs 3)
Environment:
  BENCH_BIN           directory of the built binaries (default: build/bin, built first when it is the default)
  BENCH_IDLE_SECONDS  length of the idle counting window (default 60)
  BENCH_KEEP=1        keep the work dir (agents' logs in agents/<dc>/<vm>, agents.jsonl, cluster file, nodetool
                      call log, emulator records, etcd's /metrics before and after the wave)
It loads the machine for about 3 minutes (N processes, a wave of N x 10 nodetool-sim runs): run it alone.
Last line: agents=N idle_cpu_pct=N wave_cpu_pct=N react_p99_ms=N racks_out_max=N violations=N etcd_txn_per_s=N
           coordinated=0|1 etcd_tls=0|1 agentless=K dcs=D racks_out_max_dc1=N ... racks_out_max_dcD=N
           and, coordinated, etcd_nice=K
           and, coordinated, etcd_fsync_p99_ms=N etcd_commit_p99_ms=N (etcd's WAL fsync and backend commit
           through the wave, the largest p99 of the 3 members)
  (racks_out_max: the most racks of one DC out at once, the largest over the DCs)
EOF
}
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"
case ${1:-} in
  -h | --help) usage; exit 0 ;;
esac
coordinated=0 agentless=0 dcs=1
while (($#)); do
  case $1 in
    --coordinated) coordinated=1 ;;
    --plain-etcd) etcd_plain=1 ;; # read by lib.sh's start_etcd
    --etcd-nice)
      etcd_nice=${2:-} # read by lib.sh's start_etcd
      [[ $etcd_nice =~ ^-?[0-9]+$ ]] && ((etcd_nice >= -20 && etcd_nice <= 19)) ||
        usage_error "--etcd-nice needs a nice value -20..19, not '$etcd_nice'"
      shift
      ;;
    --agentless)
      agentless=${2:-}
      [[ $agentless =~ ^[0-9]+$ ]] || usage_error "--agentless needs a number, not '$agentless'"
      shift
      ;;
    --dcs)
      dcs=${2:-}
      [[ $dcs =~ ^[1-3]$ ]] || usage_error "--dcs needs 1, 2 or 3, not '$dcs'"
      shift
      ;;
    -*) usage_error "unknown option '$1'" ;;
    *) break ;;
  esac
  shift
done
[[ $# -le 1 ]] || { usage >&2; exit 2; }
if ((!coordinated)) && { [[ -n ${etcd_plain:-}${etcd_nice:-} ]] || ((agentless || dcs > 1)); }; then
  usage_error "--plain-etcd, --etcd-nice, --agentless and --dcs 2|3 go with --coordinated"
fi
agents=${1:-150}
if ! [[ $agents =~ ^[0-9]+$ ]] || ((agents < 3 * dcs || agents > 450 || agents % (3 * dcs) != 0)); then
  usage_error "N must be a multiple of $((3 * dcs)) (3 racks x $dcs DC(s)) from $((3 * dcs)) to 450, not '$agents'"
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
readonly per_dc=$((agents / dcs)) per_fd=$((agents / dcs / 3)) rf=3 poll_ms=1000
readonly racks_allowed=$((rf - (rf / 2 + 1)))  # in each DC (LOCAL_QUORUM, the agents' default level)
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

# ---- nodetool-sim: dc1..dcD, racks rack1..rack3 of N/(3D) nodes each ----------------------------------------
dc_names=()
for ((d = 1; d <= dcs; d++)); do dc_names+=("dc$d"); done
# The case study's keyspace replicated in every DC (RF 3 each, NetworkTopologyStrategy): --init-cluster's
# default lifecycle keyspace has dc1 only, so another DC's nodes would replicate nothing the gate protects.
lifecycle_nts=$(printf "%s=$rf," "${dc_names[@]}")
"$bin/nodetool-sim" --init-cluster "$cluster" --dcs "$(IFS=,; echo "${dc_names[*]}")" --racks 3 \
  --nodes-per-rack "$per_fd" --base-address 127.0.1. --keyspace "lifecycle:nts:${lifecycle_nts%,}" \
  --call-log "$work/nodetool-calls.jsonl" >/dev/null

# ---- the agents: one per node, read from the cluster file ----------------------------------------------------
# Agent i: DC d (0-based) = i / (N/D), fault domain k = rack k+1 of that DC, its node the rack's p-th; its VM
# vm(k * N/(3D) + p) in the emulator's region named as the DC. agents.jsonl lists them in that order (the
# report's map of VM to agent and node): {"key": "dcK/vmJ", "dc", "region", "vm", "fd", "rack", "node", "dir"}.
jq -c --argjson per_fd "$per_fd" '.datacenters[] as $dc | $dc.racks | to_entries[] | .key as $fd | .value as $rack
    | $rack.nodes | to_entries[] | ("vm\($fd * $per_fd + .key)") as $vm
    | {key: "\($dc.name)/\($vm)", dc: $dc.name, region: $dc.name, vm: $vm, fd: $fd, rack: $rack.name,
       node: .value.address, dir: "agents/\($dc.name)/\($vm)"}' "$cluster" >"$work/agents.jsonl"
agent_key=() agent_region=() agent_vm=() agent_fd=() agent_node=()
while IFS=$'\t' read -r key region vm fd node; do
  agent_key+=("$key") agent_region+=("$region") agent_vm+=("$vm") agent_fd+=("$fd") agent_node+=("$node")
done < <(jq -r '[.key, .region, .vm, .fd, .node] | @tsv' "$work/agents.jsonl")
((${#agent_key[@]} == agents)) || die "the cluster file has ${#agent_key[@]} nodes, not $agents"
for ((i = 0; i < agents; i++)); do
  [[ ${agent_region[i]} == "dc$((i / per_dc + 1))" && ${agent_fd[i]} == $(((i % per_dc) / per_fd)) ]] ||
    die "the cluster file's node $i (${agent_key[i]}, fault domain ${agent_fd[i]}) is not where it should be"
done

# ---- imds-emulator: region dcK's VMs vm0 .. vm(N/D-1), fault domain k holds vm(k*N/3D) .. ------------------
vm_specs=()
for ((i = 0; i < agents; i++)); do vm_specs+=("${agent_vm[i]},${agent_fd[i]},region=${agent_region[i]}"); done
# Uncoordinated, every listed agent approves: the emulator waits for all of them (the case study's reading).
# Coordinated, one agent approves once every listed VM is drained, safe under the docs' reading (any) too.
shared_approval=all
((coordinated)) && shared_approval=any
start_emulator "$bin/imds-emulator" "$work" "${vm_specs[@]}" -- --shared-approval "$shared_approval"
declare -A vm_address  # dcK/vmJ -> HOST:PORT
while IFS=$'\t' read -r key address; do vm_address[$key]=$address; done < <(
  jq -r 'select(.listening == "vm") | ["\(.region)/\(.vm)", .address] | @tsv' "$work/emulator.out")

coordination='{}'
if ((coordinated)); then
  start_etcd
  coordination=$(etcd_coordination_json bench)
fi

# ---- N agents ---------------------------------------------------------------------------------------------
for ((i = 0; i < agents; i++)); do
  address=${vm_address[${agent_key[i]}]:-}
  [[ -n $address ]] || die "the emulator serves no ${agent_key[i]}"
  config=$(jq -n --arg endpoint "http://$address" --arg vm "${agent_vm[i]}" --argjson fd "${agent_fd[i]}" \
    --arg sim "$bin/nodetool-sim" --arg cluster "$cluster" --arg node "${agent_node[i]}" \
    --argjson poll "$poll_ms" --argjson lead "$drain_lead_s" --argjson unsafe "$unsafe_lead_s" --argjson rf "$rf" \
    --argjson coordination "$coordination" '{
      imds: {endpoint: $endpoint, poll_interval_ms: $poll},
      node: {resource_name: $vm, fault_domain: $fd},
      cassandra: {nodetool: [$sim, "--cluster", $cluster, "--node", $node], command_timeout_s: 30},
      topology: {replication_factor: $rf, fault_domain_racks: {"0": "rack1", "1": "rack2", "2": "rack3"}},
      policy: {drain_lead_s: $lead, unsafe_drain_lead_s: $unsafe, approve_shared_events: true},
      http: {listen: ""}} + (if $coordination == {} then {} else {coordination: $coordination} end)')
  start_agent "$bin/cassandra-lifecycle-agent" "$work/agents/${agent_key[i]}" "$config"
  agent_pid[i]=$agent_started
done

# How many VMs (region and name) the emulator answered a scheduledevents GET with 200 since the log was cleared.
vms_polled() {
  curl -sf "$admin/admin/requests" |
    jq '[.[] | select(.method == "GET" and .path == "/metadata/scheduledevents" and .status == 200)
         | [.region, .vm]] | unique | length'
}
start_limit_s=$((30 + agents / 5))  # each agent starts a process and asks nodetool for its node's status
deadline=$((EPOCHSECONDS + start_limit_s))
until (($(vms_polled) == agents)); do
  for ((i = 0; i < agents; i++)); do
    alive_or_die "${agent_pid[i]}" "agent ${agent_key[i]}" "$work/agents/${agent_key[i]}/stderr"
  done
  ((EPOCHSECONDS < deadline)) || die "not every agent polled IMDS within $start_limit_s s ($(vms_polled) of $agents)"
  sleep 0.5
done
curl -sf -X DELETE "$admin/admin/requests" >/dev/null
sleep $((2 * poll_ms / 1000))  # two polls each: the start-up's nodetool calls are over

# ---- --agentless K: the last VMs of the DCs' fault domains in turn lose their agent --------------------------
etcd_count() { # key prefix under the cluster's (ending in /) -> how many keys etcd holds there
  local key=/cassandra-lifecycle-agent/bench/$1
  etcd_curl "${etcd_endpoints[0]}/v3/kv/range" -d "$(jq -nc --arg k "$(printf %s "$key" | base64 -w0)" \
    --arg e "$(printf %s "${key%/}0" | base64 -w0)" '{key: $k, range_end: $e, count_only: true}')" |
    jq -r '.count // "0"'
}
agentless_vms=() agentless_exits=0
if ((agentless)); then
  all_known() { # every DC's known/<dc>/<vm> records, one per VM of the DC
    local dc
    for dc in "${dc_names[@]}"; do (($(etcd_count "known/$dc/") == per_dc)) || return 1; done
  }
  wait_until 30 "every agent's known/<dc>/<vm> record" all_known
  for ((j = 0; j < agentless; j++)); do  # DC j % D, fault domain (j / D) % 3, from the rack's last VM back
    i=$(((j % dcs) * per_dc + ((j / dcs) % 3) * per_fd + per_fd - 1 - j / (3 * dcs)))
    agentless_vms+=("${agent_key[i]}")
    kill -TERM "${agent_pid[i]}"
    rc=0
    wait "${agent_pid[i]}" || rc=$?
    ((rc == 0)) || { echo "   agent ${agent_key[i]} exited $rc on SIGTERM"; agentless_exits=$((agentless_exits + 1)); }
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

etcd_metrics() { # idle|before|after: each member's /metrics in etcd-metrics/mI.<when>, and <when>.t_ms (the report
  local i          # reads them)
  mkdir -p "$work/etcd-metrics"
  now_ms >"$work/etcd-metrics/$1.t_ms"
  for i in "${!etcd_endpoints[@]}"; do
    etcd_curl -f "${etcd_endpoints[i]}/metrics" >"$work/etcd-metrics/m$i.$1" ||
      die "etcd member m$i did not answer /metrics"
  done
}

# ---- idle ---------------------------------------------------------------------------------------------------
echo "== $agents agents, one imds-emulator, a nodetool-sim cluster of $dcs DC(s) of 3 racks, $per_dc nodes each" \
  "(RF $rf in each DC: $racks_allowed rack of a DC out at most)"
echo "   load before: $(cut -d' ' -f1-3 /proc/loadavg); work dir $work"
((!coordinated)) || etcd_metrics idle
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

# ---- the wave: one fault domain at a time, each DC's Freeze of it at once ------------------------------------
declare -A last_of  # EventId -> the event as the admin API last showed it
events_left() { # ids... -> every one left the document; until then last_of holds each as the admin API shows it
  local all id ev left=0
  all=$(curl -sf "$admin/admin/events") || return 1  # no answer: not known to have left
  for id in "$@"; do
    ev=$(jq -c --arg id "$id" '.[] | select(.EventId == $id)' <<<"$all")
    if [[ -n $ev ]]; then
      last_of[$id]=$ev
      left=1
    fi
  done
  ((!left))
}
fd_restored() {  # fd -> every agent of the fault domain (in every DC) logged restore_completed, every node is up,
  local fd=$1 logs=() i  # no drain record left (an agentless one goes once the leader saw its node UN after the event)
  for ((i = 0; i < agents; i++)); do
    if [[ ${agent_fd[i]} == "$fd" && -n ${agent_pid[i]:-} ]]; then logs+=("$work/agents/${agent_key[i]}/agent.jsonl"); fi
  done
  (($(grep -l '"msg":"restore_completed"' "${logs[@]}" | wc -l) == ${#logs[@]})) &&
    jq -e 'all(.datacenters[].racks[].nodes[]; .running and .gossip and .binary and (.drained | not))' \
      "$cluster" >/dev/null && { ((!coordinated)) || (($(etcd_count drains/) == 0)); }
}
wave_limit_s=$((notice_s + freeze_s + complete_s + 60))  # per fault domain: the events' life plus a margin
((!coordinated)) || etcd_metrics before
w0=$(now_ms); wa0=$(cpu_ns "${agent_pid[@]}"); we0=$(cpu_ns "$emulator_pid"); wc0=$(children_ms "${agent_pid[@]}")
wd0=$(etcd_cpu_ns); wt0=$(txn_total)
for fd in 0 1 2; do
  ids=() id_dc=()
  for dc in "${dc_names[@]}"; do  # one Freeze per DC (its region), posted one right after the other
    resources=$(jq -sc --arg dc "$dc" --argjson fd "$fd" 'map(select(.dc == $dc and .fd == $fd) | .vm)' \
      "$work/agents.jsonl")
    ids+=("$(post_event "{\"type\":\"Freeze\",\"resources\":$resources,\"region\":\"$dc\",
      \"not_before_in_s\":$notice_s,\"duration_s\":$freeze_s,\"complete_after_s\":$complete_s}")")
    id_dc+=("$dc")
  done
  deadline=$((EPOCHSECONDS + wave_limit_s))
  # Polled once a second, not every 0.2 s: each poll is a curl and a jq per Freeze (and the restore's a grep of
  # every agent's log and a jq of the cluster file), the instrument's own CPU on the cores the wave is measured on
  # (~10 % of the wave's at 450 agents, perf record); an event stays listed for its whole Freeze, so its last state
  # is still read.
  wait_poll_s=1 wait_until "$wave_limit_s" "fault domain $fd's Freezes (${ids[*]}) to leave the document" \
    events_left "${ids[@]}"
  for k in "${!ids[@]}"; do
    id=${ids[k]}
    [[ -n ${last_of[$id]:-} ]] || die "the Freeze $id of ${id_dc[k]} left before the admin API showed it"
    jq -c --argjson fd "$fd" --arg dc "${id_dc[k]}" '{fd: $fd, dc: $dc} + .' <<<"${last_of[$id]}" >>"$work/events.jsonl"
    echo "   fault domain $fd, ${id_dc[k]}: Freeze $id of $per_fd VMs, $(jq -r '"started \((.started_at_ms - .created_at_ms) / 1000) s after it was posted"' <<<"${last_of[$id]}")"
  done
  wait_poll_s=1 wait_until $((deadline - EPOCHSECONDS)) "fault domain $fd restored" fd_restored "$fd"
done
wa1=$(cpu_ns "${agent_pid[@]}"); we1=$(cpu_ns "$emulator_pid"); wc1=$(children_ms "${agent_pid[@]}"); w1=$(now_ms)
wd1=$(etcd_cpu_ns); wt1=$(txn_total)
((!coordinated)) || etcd_metrics after
curl -sf "$admin/admin/approvals" >"$work/approvals.json"
echo "   load after the wave: $(cut -d' ' -f1-3 /proc/loadavg)"

# ---- stop: every agent must still be alive and stop with exit 0 ---------------------------------------------
bad_exits=$agentless_exits
for i in "${!agent_pid[@]}"; do
  kill -0 "${agent_pid[i]}" 2>/dev/null || { echo "   agent ${agent_key[i]} died"; bad_exits=$((bad_exits + 1)); }
done
kill -TERM "${agent_pid[@]}" 2>/dev/null || true
for i in "${!agent_pid[@]}"; do
  rc=0
  wait "${agent_pid[i]}" || rc=$?
  ((rc == 0)) || { echo "   agent ${agent_key[i]} exited $rc"; bad_exits=$((bad_exits + 1)); }
done
forget_pids "${agent_pid[@]}"

etcd_args=()
if ((coordinated)); then
  etcd_args=(--etcd "$((d1 - d0)) $((wd1 - wd0)) $((wt1 - wt0))" --etcd-tls "$((${etcd_plain:-0} == 1 ? 0 : 1))"
    --etcd-nice "${etcd_nice:-0}"
    --agentless "${agentless_vms[*]}" --etcd-metrics "$work/etcd-metrics")
fi
/usr/bin/python3 -I "$root/scripts/bench/fleet_report.py" --work "$work" --agents "$agents" --dcs "$dcs" \
  --racks-allowed "$racks_allowed" --bad-exits "$bad_exits" \
  --idle "$((i1 - i0)) $((a1 - a0)) $((e1 - e0)) $idle_polls" \
  --wave "$((w1 - w0)) $((wa1 - wa0)) $((we1 - we0)) $((wc1 - wc0))" \
  --rss "$rss_sum $rss_max $emu_rss" "${etcd_args[@]}"
