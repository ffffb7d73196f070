#!/usr/bin/env bash
# A randomized game day on the real 6-node cluster, reproducible from its seed (SPEC 10, issue 41).
set -euo pipefail
export LC_ALL=C

usage() {
  cat <<'EOF'
Usage: scripts/bench-gameday.sh [--seed N] [--events N] [--faults] [--backend nodetool|jolokia] [--rate N]
                                [--announce-ms MS|default] [--allow-client-failures] [--bin-dir DIR] [--out DIR]
  Draws a schedule from the seed (scripts/bench/gameday_schedule.py; without --seed one is drawn and printed
  first: the same seed gives the same schedule) and plays it on scripts/cassandra-cluster.sh's 6 nodes (two per
  rack, as deployed: see --announce-ms; build/cassandra-cluster-6[-jolokia]-announce-MS, started if not every
  node runs), each with build/bin/cassandra-lifecycle-agent beside it, coordinated through a 3-member etcd over
  TLS, under the
  open-loop auditing client of bench-availability.sh (LOCAL_QUORUM, keyspace lifecycle_rf5: dc1 5, so that a
  node killed and another drained leave 3 replicas; --rate requests/s, default 50; every acknowledged write
  read back at ALL at the end).
  The schedule: --events N (default 30) events of every kind of SPEC 3.2 (Freezes of 2-30 s, Reboot, Redeploy,
  Preempt, Terminate, first seen Started, a Freeze then a Reboot back to back, a user event; on one VM or shared
  by both of a rack), on random racks, each episode starting a random 0-20 s after every rack is back in
  service, some announced during the previous impact. imds-emulator --impact-hook scripts/cluster/impact-hook.sh
  plays each impact on the node (a Freeze SIGSTOPs the JVM; the others kill it, and a Reboot, Redeploy or
  Preempt starts it again at the event's end; a Terminate's VM is replaced by the player: the same node). With
  --faults, faults too (gameday_schedule.py --help): agents kill -9'd mid-drain and mid-restore, an etcd member
  killed and started again, JMX (nodetool) or Jolokia hung longer than command_timeout_s before a drain and
  during a restore (scripts/bench/hang_gate.sh, hang_proxy.py), a node's Cassandra killed with an event on
  another rack that the gate must refuse, the wall clock stepped, an agent's state disk full (a tmpfs: root).
  The checker (scripts/bench/gameday_check.py) then decides from the logs and impacts: every impact landed on a
  drained node (a forced drain included), no approval before its drain or while another rack was out (user
  events excepted), the client's failures, wrong answers and lost writes; every node was back in service at the
  end (the player waits for it). A killed JVM fails reads whose coordinators wait for it until their failure
  detectors convict it (no agent step precedes a crash with no event): the client's failures due from a request
  timeout before the kill until the last node's "is now DOWN", and those the node coordinates in its first
  catch_up_min_s of CQL once started again (cold, native transport on, as systemd restarts a crashed unit; the
  agent's binary hold keeps that span closed only for a node the agent starts) up to the next drain, restore or
  impact, and none if one was under way then, are counted apart, as failed_at_crash. No step
  reaches a node whose JMX or Jolokia hangs: an impact at NotBefore, with no approval, on a drain begun while
  the hang fault held it is counted apart too, as impacts_at_hang. The run is drawn (gnuplot) beside its log.
  --backend   the agents' cassandra.backend (SPEC 8.1): nodetool (default) or jolokia (the cluster started
              --jolokia, in a directory of its own)
  --announce-ms MS|default  the nodes' -Dcassandra.shutdown_announce_in_ms (default 0, as docs/jolokia.md advises
              for nodes the agent drains: an event first seen Started leaves no time for the quiet check, and
              at Cassandra's default 2000 ms peers that see the node gossip through that sleep keep reading from
              it, SPEC 3.10); default: Cassandra's own 2000 ms (build/cassandra-cluster-6[-jolokia])
  --allow-client-failures  the client's failed requests are counted and printed but do not fail the run
              (exploring a change or a machine); wrong answers, lost writes, undrained impacts and early
              approvals still do
  --out DIR   where the run's files go (default build/gameday/seed<N>-<backend>-<time>): gameday.log (this
              output), gameday.png, schedule.json, actions.jsonl, impacts.jsonl, approvals.json, the client's
              requests and summary, agent-vmK/ (config, log), etcd/
Prints the seed first, the schedule, the player's actions, the checker's findings, then its last line:
  seed=N events=N faults=N failed=N wrong=N lost=N impacts_undrained=N early_approvals=N failed_at_crash=N
  impacts_at_hang=N
Exit 1 when a count after events and faults but failed_at_crash and impacts_at_hang is not 0 (failed excepted with
--allow-client-failures), an impact did not land, a drawn fault was never applied, or an episode did not end in
time. A 30-event run takes 60-70 minutes.
EOF
}

# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
root=$cla_root
bin_dir=$root/build/bin seed="" events=30 faults=0 backend=nodetool rate=50 out_dir="" check_options=() announce_ms=0
# The agents' cassandra.command_timeout_s, the default: a hang's length is drawn past it. (20 s was tried: six
# agents' start-up nodetool JVMs beside six nodes take longer, time out, are retried, and the load climbs.)
command_timeout_s=120
while (($#)); do
  case $1 in
    --seed) seed=${2:?--seed needs a number}; shift 2 ;;
    --events) events=${2:?--events needs a number}; shift 2 ;;
    --faults) faults=1; shift ;;
    --backend) backend=${2:?--backend needs nodetool or jolokia}; shift 2 ;;
    --rate) rate=${2:?--rate needs a number}; shift 2 ;;
    --allow-client-failures) check_options+=(--allow-client-failures); shift ;;
    --announce-ms) announce_ms=${2:?--announce-ms needs milliseconds or default}; shift 2 ;;
    --bin-dir) bin_dir=${2:?--bin-dir needs a directory}; shift 2 ;;
    --out) out_dir=${2:?--out needs a directory}; shift 2 ;;
    -h | --help) usage; exit 0 ;;
    *) usage_error "unknown argument '$1' (see --help)" ;;
  esac
done
[[ -z $seed ]] && seed=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
[[ $seed =~ ^[0-9]+$ ]] || usage_error "--seed must be a non-negative number, not '$seed'"
[[ $events =~ ^[1-9][0-9]*$ ]] || usage_error "--events must be a positive number, not '$events'"
[[ $backend == nodetool || $backend == jolokia ]] || usage_error "--backend must be nodetool or jolokia, not '$backend'"
check_announce_ms
echo "seed=$seed"

require_tools --hint scripts/install-deps.sh jq curl gnuplot etcd openssl || exit 1
require_bins "$bin_dir" "--bin-dir" cassandra-lifecycle-agent imds-emulator || exit 1
/usr/bin/python3 -I -c 'import cassandra' 2>/dev/null || die "python3-cassandra is missing (scripts/install-deps.sh)"
((!faults)) || (($(id -u) == 0)) ||
  usage_error "--faults fills an agent's state disk, a tmpfs of its own, which needs root to mount"

out_dir=${out_dir:-$root/build/gameday/seed$seed-$backend-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$out_dir"
out_dir=$(cd "$out_dir" && pwd)
unmount_below "$out_dir" # a killed run in the same --out left its agents' state tmpfs mounted
exec > >(tee "$out_dir/gameday.log") 2>&1
work=$out_dir # the run's files are its record: kept
progress() { echo "   $(date +%T) $*"; }
client_done() { ! pid_alive "$client"; }

# ---- the schedule -------------------------------------------------------------------------------------------------
schedule_args=(--seed "$seed" --events "$events" --command-timeout-s "$command_timeout_s")
((faults)) && schedule_args+=(--faults)
/usr/bin/python3 -I "$root/scripts/bench/gameday_schedule.py" "${schedule_args[@]}" >"$work/schedule.json"
/usr/bin/python3 -I "$root/scripts/bench/gameday_schedule.py" "${schedule_args[@]}" --describe

# ---- the cluster --------------------------------------------------------------------------------------------------
cluster=$root/scripts/cassandra-cluster.sh
bench_cluster 6 "$backend" "$announce_ms"
mapfile -t addresses < <(jq -r .address <<<"$nodes_status")
((${#addresses[@]} == 6)) || die "expected 6 nodes in $CASSANDRA_CLUSTER_DIR, found ${#addresses[@]}"
say "cluster: $CASSANDRA_CLUSTER_DIR (${addresses[*]}), backend $backend, shutdown announce ${announce_ms:-2000 (the default)} ms"
client_keyspace=lifecycle_rf5
"$cluster" cql "${addresses[0]}" "CREATE KEYSPACE IF NOT EXISTS $client_keyspace WITH replication =
  {'class': 'NetworkTopologyStrategy', 'dc1': 5}" >/dev/null || die "could not create keyspace $client_keyspace"

# ---- etcd, the emulator, the hangs, the agents' configs -------------------------------------------------------------
start_etcd # 3 members over TLS, in $work/etcd; each member's argv in $work/etcd/mI.argv for the player's restarts
say "etcd: ${etcd_endpoints[*]}"

vms=() vm_specs=() hook_nodes=""
for k in 1 2 3 4 5 6; do
  vms+=("vm$k")
  vm_specs+=("vm$k,$(((k - 1) % 3))")
  hook_nodes+="${hook_nodes:+,}vm$k=${addresses[k - 1]}"
done
mkdir -p "$work/delay" "$work/hang"
IMPACT_HOOK_RESTART=1 IMPACT_HOOK_NODES=$hook_nodes IMPACT_HOOK_LOG=$work/impact-hook-start.log \
  IMPACT_HOOK_AGENT_STATE=$work/agent-%s/state/state.json IMPACT_HOOK_RECORD=$work/impacts.jsonl \
  IMPACT_HOOK_DELAY_DIR=$work/delay \
  start_emulator "$bin_dir/imds-emulator" "$work" "${vm_specs[@]}" -- \
  --impact-hook "$root/scripts/cluster/impact-hook.sh"

declare -A jolokia_proxy=()
if [[ $backend == jolokia ]]; then
  routes=()
  mapfile -t proxy_ports < <(free_ports 6)
  for k in 1 2 3 4 5 6; do
    target=$(jq -rs --argjson i $((k - 1)) '.[$i].jolokia_url' <<<"$nodes_status" | sed -E 's|^https?://([^/]+)/.*|\1|')
    routes+=(--route "vm$k,${proxy_ports[k - 1]},$target")
    jolokia_proxy[vm$k]=$(jq -rs --argjson i $((k - 1)) --arg port "${proxy_ports[k - 1]}" \
      '.[$i].jolokia_url | sub("//[^/]+/"; "//127.0.0.1:" + $port + "/")' <<<"$nodes_status")
  done
  /usr/bin/python3 -I "$root/scripts/bench/hang_proxy.py" --hang-dir "$work/hang" "${routes[@]}" \
    >"$work/hang-proxy.out" 2>&1 &
  cleanup_pid $!
  wait_poll_s=0.1 wait_until 10 "the Jolokia hang proxy" grep -qs ready "$work/hang-proxy.out"
fi

coordination=$(etcd_coordination_json gameday)
for k in 1 2 3 4 5 6; do
  vm=vm$k dir=$work/agent-vm$k
  mkdir -p "$dir/state"
  cat /proc/sys/kernel/random/uuid >"$dir/boot_id"
  if ((faults)); then # the state disk, small enough to fill (disk_full)
    mount -t tmpfs -o size=256k,mode=0700 tmpfs "$dir/state" || die "could not mount a tmpfs on $dir/state"
    cleanup_cmd umount "$dir/state"
  fi
  jq -n --arg endpoint "http://$(emulator_vm_address "$work" "$vm")" --arg cluster "$cluster" \
    --arg node "${addresses[k - 1]}" --arg hang "$root/scripts/bench/hang_gate.sh" --arg marker "$work/hang/$vm" \
    --arg dir "$dir" --arg backend "$backend" --argjson timeout "$command_timeout_s" \
    --argjson coordination "$coordination" --arg jolokia_url "${jolokia_proxy[$vm]:-}" \
    --argjson status "$(jq -c -s --argjson i $((k - 1)) '.[$i]' <<<"$nodes_status")" '{
      imds: {endpoint: $endpoint},
      cassandra: ({nodetool: [$hang, $marker, $cluster, "nodetool", $node],
        restart_command: [$cluster, "start", $node, "--no-binary"], backend: $backend,
        command_timeout_s: $timeout} + (if $backend == "jolokia" then {jolokia: {url: $jolokia_url,
        username: $status.jolokia_user, password_file: $status.jolokia_password_file}} else {} end)),
      state_file: ($dir + "/state/state.json"),
      log: {file: ($dir + "/agent.jsonl"), level: "debug"},
      http: {listen: "127.0.0.1:0"},
      coordination: $coordination}' >"$dir/config.json"
done

# ---- the client ---------------------------------------------------------------------------------------------------
start_audit_client /usr/bin/python3 "$work" "$rate" "gameday-$seed-$(date +%s)" "$client_keyspace" \
  "$(IFS=,; echo "${addresses[*]}")"

# ---- the play -----------------------------------------------------------------------------------------------------
etcd_members=()
for i in 0 1 2; do
  etcd_members+=("$(jq -Rs --argjson pid "${etcd_pids[i]}" --arg log "$work/etcd/m$i.log" \
    '{argv: (split("\u0000") | if .[-1] == "" then .[:-1] else . end), pid: $pid, log: $log}' \
    <"$work/etcd/m$i.argv")") # jq 1.6 leaves no "" after the last NUL: .[:-1] alone cut the last argument
done
vm_json=$(for k in 1 2 3 4 5 6; do
  jq -nc --arg vm "vm$k" --arg a "${addresses[k - 1]}" --arg d "$work/agent-vm$k" \
    --arg log "$CASSANDRA_CLUSTER_DIR/node$k/logs/system.log" '{($vm): {address: $a, dir: $d, system_log: $log}}'
done | jq -sc add)
jq -n --arg admin "$admin" --arg cluster "$cluster" --arg agent "$bin_dir/cassandra-lifecycle-agent" \
  --arg work "$work" --argjson vms "$vm_json" --argjson etcd "$(printf '%s\n' "${etcd_members[@]}" | jq -sc .)" '{
    admin: $admin, cluster: $cluster, agent_bin: $agent, work: $work, impacts: ($work + "/impacts.jsonl"),
    delay_dir: ($work + "/delay"), hang_dir: ($work + "/hang"), vms: $vms, etcd: $etcd}' >"$work/rig.json"
progress "the client runs; the player starts the agents and plays the schedule"
sleep 10
player_rc=0
/usr/bin/python3 -I -u "$root/scripts/bench/gameday_player.py" --rig "$work/rig.json" \
  --schedule "$work/schedule.json" --actions "$work/actions.jsonl" &
player=$!
cleanup_pid "$player"
wait "$player" || player_rc=$?
forget_pids "$player"
sleep 10
kill -TERM "$client"
wait_until 600 "the client's read-back at ALL" client_done
forget_pids "$client"
client_rc=0
wait "$client" || client_rc=$?
((client_rc == 0)) || die "the client failed (or its books do not balance): $work/client.err, $work/summary.json"
((player_rc == 0)) || die "the player failed (exit $player_rc: above); the run's files: $work"

curl -sf --noproxy '*' "$admin/admin/approvals" >"$work/approvals.json" || die "could not read the emulator's approvals"
progress "the checker"
/usr/bin/python3 -I "$root/scripts/bench/gameday_check.py" --seed "$seed" --actions "$work/actions.jsonl" \
  --impacts "$work/impacts.jsonl" --approvals "$work/approvals.json" --agents "$work" --requests "$work/requests" \
  --summary "$work/summary.json" --picture "$work/gameday.png" "${check_options[@]}"
