#!/usr/bin/env bash
# imds-emulator --impact-hook for a scripts/cassandra-cluster.sh cluster: plays Azure's impact on the node of
# the VM (SPEC 5, 8). A Freeze stops the node's JVM for DurationInSeconds; a Reboot, Redeploy or Preempt kills
# it (as the VM's loss would) and starts it again when the event ends. It checks that the impact landed (the
# JVM's state in /proc, through cassandra-cluster.sh status) and exits 1 when it did not.
set -euo pipefail

usage() {
  cat <<'USAGE'
Usage: imds-emulator --impact-hook scripts/cluster/impact-hook.sh ...   (or run it by hand with the variables below)

From imds-emulator (the event):
  IMDS_PHASE          start (the event became Started) | end (it left the document)
  IMDS_VM             the emulated VM, e.g. vm2
  IMDS_EVENT_TYPE     Freeze | Reboot | Redeploy | Preempt | Terminate | ...
  IMDS_DURATION_S     DurationInSeconds (-1 when Azure gives none)
  IMDS_EVENT_ID, IMDS_EVENT_SOURCE   logged
What it does:
  Freeze start                      cassandra-cluster.sh freeze ADDRESS D   (D = IMDS_DURATION_S; -1/0 -> 5)
  Reboot|Redeploy|Preempt start     cassandra-cluster.sh kill ADDRESS
  Reboot|Redeploy|Preempt end       cassandra-cluster.sh start ADDRESS, in the background (it waits until
                                    the node is UN in every view), output to IMPACT_HOOK_LOG; with --no-binary
                                    when the VM's agent holds the node drained (IMPACT_HOOK_AGENT_STATE)
  Terminate start                   cassandra-cluster.sh kill ADDRESS (the VM is gone: no start)
  anything else                     nothing (logged)
After a start's impact the hook reads the node's JVM state (cassandra-cluster.sh status: /proc/PID/stat) until
it is frozen (Freeze) or stopped (the others), for at most 5 s; exit 1 when it is not: the impact did not land.
A Freeze that starts while the VM is down for another of its impacts (a Reboot, Redeploy, Preempt or Terminate
whose start landed, per IMPACT_HOOK_RECORD, and has not ended: both approved together) has nothing left to
stop: it is recorded as landed "absorbed", with that event as down_by, and exits 0.
Configuration (environment):
  IMPACT_HOOK_NODES     the VM -> node map, "vm1=127.0.0.1,vm2=127.0.0.2"; without it vmK -> 127.0.0.K
  IMPACT_HOOK_RESTART   1 (default): the end of a Reboot/Redeploy/Preempt starts the node; 0: it stays
                        down (an agent's restart_command or an operator brings it back)
  IMPACT_HOOK_LOG       where the background start writes (default: CASSANDRA_CLUSTER_DIR/impact-hook.log,
                        else /tmp/impact-hook.log)
  IMPACT_HOOK_AGENT_STATE  the VM's agent's state file, %s standing for the VM (e.g. /run/agent-%s/state.json):
                        when it says the node is drained ("node": {"drained": true}), the VM boots Cassandra
                        without its native transport, as deploy/README.md's unit drop-in does, and the
                        agent's restore opens it; unset, or no such file: Cassandra starts as configured
  IMPACT_HOOK_RECORD    a file: one JSON line appended per start and end played: t_ms, vm, event_id, type,
                        phase, address, pid (before), state_before, state (after the impact: frozen |
                        stopped | running), landed (true | false | "absorbed" | null when nothing was to
                        land), down_by (the EventId that had the VM down, for "absorbed")
  IMPACT_HOOK_DELAY_DIR a directory: a file DIR/VM holding a Unix time in ms delays that VM's next start
                        impact until then, and is removed (an event that appears already Started with its
                        impact a little later, as a hardware failure's does)
  CASSANDRA_CLUSTER_DIR, CASSANDRA_FIRST_HOST   passed to cassandra-cluster.sh
USAGE
}

# shellcheck source=../lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

case ${1:-} in
  -h | --help) usage; exit 0 ;;
  "") ;;
  *) usage >&2; die "takes no arguments (it reads IMDS_* from the environment)" ;;
esac

cluster=$cla_root/scripts/cassandra-cluster.sh
phase=${IMDS_PHASE:?IMDS_PHASE is not set (run by imds-emulator --impact-hook; see --help)}
vm=${IMDS_VM:?IMDS_VM is not set (see --help)}
type=${IMDS_EVENT_TYPE:?IMDS_EVENT_TYPE is not set (see --help)}
duration=${IMDS_DURATION_S:--1}
log_file=${IMPACT_HOOK_LOG:-${CASSANDRA_CLUSTER_DIR:-/tmp}/impact-hook.log}

# The node of this VM: from IMPACT_HOOK_NODES, else vmK -> 127.0.0.K.
address=""
if [[ -n ${IMPACT_HOOK_NODES:-} ]]; then
  IFS=',' read -ra pairs <<<"$IMPACT_HOOK_NODES"
  for pair in "${pairs[@]}"; do
    [[ $pair == *=* ]] || die "IMPACT_HOOK_NODES entry '$pair' is not VM=ADDRESS"
    [[ ${pair%%=*} == "$vm" ]] && address=${pair#*=}
  done
  [[ -n $address ]] || { say "$vm is not in IMPACT_HOOK_NODES: no node, nothing to do"; exit 0; }
elif [[ $vm =~ ^vm([0-9]+)$ ]]; then
  address=127.0.0.${BASH_REMATCH[1]}
else
  die "cannot map VM '$vm' to a node: set IMPACT_HOOK_NODES (e.g. $vm=127.0.0.1)"
fi

say "$phase $type ${IMDS_EVENT_ID:-?} (${IMDS_EVENT_SOURCE:-?}, ${duration} s) on $vm -> $address"

node_status() { "$cluster" status | jq -c --arg a "$address" 'select(.address == $a)'; }
# record STATE_BEFORE_JSON LANDED [DOWN_BY]: one line to IMPACT_HOOK_RECORD (when set) with the node's state now.
record() {
  [[ -n ${IMPACT_HOOK_RECORD:-} ]] || return 0
  local now
  now=$(node_status) || now='{}'
  jq -nc --argjson before "${1:-{\}}" --argjson now "${now:-{\}}" --argjson landed "$2" --arg vm "$vm" \
    --arg id "${IMDS_EVENT_ID:-}" --arg type "$type" --arg phase "$phase" --arg address "$address" \
    --arg down_by "${3:-}" --argjson t "$(date +%s%3N)" '{t_ms: $t, vm: $vm, event_id: $id, type: $type,
      phase: $phase, address: $address, pid: $before.pid, state_before: $before.state, state: $now.state,
      landed: $landed} + (if $down_by == "" then {} else {down_by: $down_by} end)' >>"$IMPACT_HOOK_RECORD"
}
# The EventId of this VM's impact that has it down now (a kill whose start landed and that has not ended), if any.
down_for() {
  [[ -n ${IMPACT_HOOK_RECORD:-} && -f $IMPACT_HOOK_RECORD ]] || return 0
  jq -rs --arg vm "$vm" '[.[] | select(.vm == $vm and (.type | IN("Reboot", "Redeploy", "Preempt", "Terminate")))]
    | group_by(.event_id) | map(select(any(.[]; .phase == "start" and .landed == true) and all(.[]; .phase != "end")))
    | .[0][0].event_id // empty' "$IMPACT_HOOK_RECORD"
}
# land STATE CMD...: runs CMD (the impact), then waits up to 5 s for the JVM to show STATE; records it and
# fails when the command failed or the state never came.
land() {
  local want=$1 before deadline status=0
  shift
  before=$(node_status)
  "$@" || status=$?
  deadline=$((SECONDS + 5))
  until [[ $(node_status | jq -r .state) == "$want" ]] || ((SECONDS >= deadline)); do sleep 0.05; done
  if ((status == 0)) && [[ $(node_status | jq -r .state) == "$want" ]]; then
    record "$before" true
    return 0
  fi
  record "$before" false
  die "the impact did not land on $address: command exit $status, JVM $(node_status | jq -r .state) (wanted $want)"
}
delay_until_due() { # IMPACT_HOOK_DELAY_DIR/VM: sleep until the Unix ms it holds, then remove it
  local file=${IMPACT_HOOK_DELAY_DIR:-}/$vm due
  [[ -n ${IMPACT_HOOK_DELAY_DIR:-} && -f $file ]] || return 0
  due=$(<"$file")
  rm -f "$file"
  say "impact delayed until $due (ms)"
  while (($(date +%s%3N) < due)); do sleep 0.05; done
}

case $phase:$type in
  start:Freeze)
    ((duration > 0)) || duration=5
    delay_until_due
    before=$(node_status)
    if [[ $(jq -r .state <<<"$before") == stopped ]]; then
      down=$(down_for)
      if [[ -n $down ]]; then
        say "$address is down for $down (the VM is rebooting): the Freeze has nothing left to stop"
        record "$before" '"absorbed"' "$down"
        exit 0
      fi
    fi
    land frozen "$cluster" freeze "$address" "$duration"
    ;;
  start:Reboot | start:Redeploy | start:Preempt | start:Terminate)
    delay_until_due
    land stopped "$cluster" kill "$address"
    ;;
  end:Reboot | end:Redeploy | end:Preempt)
    if [[ ${IMPACT_HOOK_RESTART:-1} == 0 ]]; then
      say "IMPACT_HOOK_RESTART=0: $address stays down"
      record "$(node_status)" null
      exit 0
    fi
    start_args=("$address")
    if [[ -n ${IMPACT_HOOK_AGENT_STATE:-} ]]; then
      state_file=${IMPACT_HOOK_AGENT_STATE//%s/$vm}
      if [[ -f $state_file ]] && jq -e '.node.drained == true' "$state_file" >/dev/null; then
        start_args+=(--no-binary)
        say "$state_file: the agent holds $address drained, so Cassandra starts without its native transport"
      fi
    fi
    # The start waits until the node is UN in every view (tens of seconds): not in the emulator's run.
    setsid "$cluster" start "${start_args[@]}" </dev/null >>"$log_file" 2>&1 &
    say "starting ${start_args[*]} in the background (pid $!, log $log_file)"
    record "$(node_status)" null
    ;;
  start:* | end:*)
    say "nothing to play for $phase of $type"
    record "$(node_status)" null
    ;;
  *) die "IMDS_PHASE must be start or end, not '$phase'" ;;
esac
