# shellcheck shell=bash disable=SC2034,SC2154 # variables shared with demo.sh and demo_view.sh
# demo.sh --coordinated: the agents' coordination section over lib.sh's 3-member etcd (start_etcd), the checks
# and figures of the coordinated wave, and the watcher's two scenes played after it (SPEC 9, "Watcher"): an agent
# stopped while its VM is listed in a Reboot, and the watcher's leader killed. Sourced by demo.sh after
# scripts/lib.sh; uses its $work, failures, agents and timings.

readonly lease_ttl_s=5

# The coordination section of each agent's config, as JSON.
coordination_json() {
  etcd_coordination_json demo "{\"lease_ttl_s\": $lease_ttl_s}"
}

# name, EventId: remembered with the event's NotBefore (Unix seconds) for coordinated_summary.
note_fd_event() { printf '%s\t%s\t%s\n' "$1" "$2" "$(event_field "$2" not_before)" >>"$work/fd_events.tsv"; }

# The fault-domain events list 3 VMs. Uncoordinated, approve_shared_events false keeps them unapproved (the
# emulator's --shared-approval any would start them for all 3 at the first approval): they start at
# NotBefore. Coordinated, each is approved once, by its first VM, when all three are drained.
check_approval_count() {
  if ((coordinated)); then
    (($1 == 6)) || failures+=("expected 6 approvals (one per fault-domain event, by its first listed VM; the short Freeze; the user Reboot; scene 1's other Reboot, not the agentless VM's), got $1")
  else
    (($1 == 2)) || failures+=("expected 2 approvals (the short Freeze, the user Reboot; the fault-domain events list 3 VMs each and are not approved), got $1")
  fi
}

# For each fault-domain event ($work/fd_events.tsv: name, EventId, NotBefore as Unix seconds): how much
# earlier than NotBefore it ended (its event_removed), and that no listed VM was started before every listed
# VM had logged drain_completed for it (the approval is what starts a shared event). Appends to failures.
coordinated_summary() {
  local approvals=$1 name id nb removed approved last_drained earlier
  echo "== coordinated wave: each fault-domain event against its NotBefore"
  while IFS=$'\t' read -r name id nb; do
    removed=$(cat "$work"/agents/vm*/agent.jsonl | jq -s -r --arg id "$id" "$ts_jq"'
      map(select(.msg == "event_removed" and .event_id == $id) | t) | min // empty')
    last_drained=$(cat "$work"/agents/vm*/agent.jsonl | jq -s -r --arg id "$id" "$ts_jq"'
      map(select(.msg == "drain_completed" and .event_id == $id) | t) | max // empty')
    approved=$(jq -r --arg id "$id" 'map(select(.event_id == $id) | .t_ms / 1000) | min // empty' <<<"$approvals")
    if [[ -z $removed ]]; then
      failures+=("$name: no agent logged its removal")
      continue
    fi
    # Without the approval the event would start at NotBefore: the step ends as much earlier as it started.
    earlier=$(awk -v nb="$nb" -v a="${approved:-$nb}" 'BEGIN { printf "%.1f", nb - a }')
    echo "   $name: started and ended ${earlier} s earlier than at NotBefore (removed" \
      "$(awk -v nb="$nb" -v r="$removed" 'BEGIN { printf "%+.1f", r - nb }') s from NotBefore); approved by" \
      "$(jq -r --arg id "$id" '[.[] | select(.event_id == $id) | .vm] | join(",") | if . == "" then "nobody (NotBefore came)" else . end' <<<"$approvals")"
    if [[ -n $approved && -n $last_drained ]] && awk -v a="$approved" -v d="$last_drained" 'BEGIN { exit !(a + 0.001 < d) }'; then
      failures+=("$name was approved (started) at $approved, before its last VM drained at $last_drained")
    fi
    [[ -n $last_drained ]] || failures+=("$name: no listed VM logged drain_completed")
  done <"$work/fd_events.tsv"
}

# ---- the watcher's scenes (played by demo.sh's driver after the wave; noted in $work/scenes.tsv) ---------------
# Scene 1. The other rack's Reboot falls due other_due_before_s before the agentless VM's Reboot starts, so that
# only the watcher's record holds it back (every node is still UN). It may wait drain_lead_s - unsafe_lead_s
# (6 s) before its forced drain: within that, the agentless Reboot (agentless_reboot_s) must end, the leader see
# it gone and the node UN (a poll, its nodetool status, perhaps one more poll), and the other agent's gate, which
# said unsafe while the Reboot ran, be asked again (unsafe_recheck_s) and etcd admit it (a poll): ~2 s to spare.
readonly other_due_before_s=1 agentless_reboot_s=1
# The coordinated agents' policy.unsafe_recheck_s: nodetool-sim answers in milliseconds, and with the default 5 s
# the other agent's gate would not be asked again within those 6 s.
readonly unsafe_recheck_s=1
# Scene 2. The leader's key goes with its lease, at most lease_ttl_s after the kill, at etcd's next sweep of
# expired leases (every 500 ms in etcd 3.4); the secondary looks at every poll, then reads the roles and takes the
# key in one transaction: a poll's margin for those. A new secondary: an agent without a role looks every
# lease_ttl_s, or every catch_up_min_s / 2 when that is sooner, never more often than lease_ttl_s / 3
# (Daemon::idle_watch_interval, with the demo's catch_up_min_s).
readonly etcd_lease_sweep_ms=500
takeover_bound_ms() { echo $((lease_ttl_s * 1000 + etcd_lease_sweep_ms + poll_ms + poll_ms)); }
idle_watch_ms() {
  local ttl=$((lease_ttl_s * 1000)) half=$((${catch_up_min_s:?} * 1000 / 2))
  ((half > ttl / 3)) || half=$((ttl / 3))
  echo $((half < ttl ? half : ttl))
}
new_secondary_bound_ms() { echo $(($(idle_watch_ms) + poll_ms + poll_ms)); }

scene_note() { printf '%s\t%s\n' "$1" "$2" >>"$work/scenes.tsv"; } # KEY VALUE, for the checks after the wave
scene_value() { [[ ! -f $work/scenes.tsv ]] || awk -F'\t' -v k="$1" '$1 == k { v = $2 } END { print v }' "$work/scenes.tsv"; }
limit_s() { echo $((($1 + 999) / 1000 + 1)); } # milliseconds -> wait_until's whole seconds (it may stop 1 s short)
# wait_until's limit until the emulator's instant $1 (Unix seconds, its fraction cut by the admin API: + 1) has passed.
until_s() { echo $(($1 + 1 - EPOCHSECONDS + 1)); }
in_s() { awk -v ms="$1" 'BEGIN { printf "%.1f", ms / 1000 }'; }
fault_domain() { echo $(($1 / 3)); } # of vm$1, as demo.sh lays them out (fault domain k: rack k+1)
sim_node() { "$sim_bin" --cluster "$cluster" --node "127.0.1.$(($1 + 1))" "$2" >/dev/null; } # vm$1's node: stop, start
# cassandra-lifecycle-agent fleet (the operator's view of etcd), with any agent's config: ARGS are its options.
fleet_view() { "$agent_bin" fleet --config "$work/agents/vm0/config.json" "$@"; }

# Every agent's lines with msg $1 whose fields include the JSON object $2, at or after Unix time $3 (default 0), as
# a JSON array of {by (the VM whose log), t (Unix seconds, ms precision), line}, oldest first.
lines_of() {
  jq -n -c --arg m "$1" --argjson fields "$2" --argjson since "${3:-0}" "$ts_jq"'[inputs | select(.msg == $m
    and t >= $since and (. as $l | $fields | to_entries | all($l[.key] == .value)))
    | {by: (input_filename | split("/")[-2]), t: t, line: .}] | sort_by(.t)' "$work"/agents/vm*/agent.jsonl
}
# The first of those lines logged by vm$4 (by anybody without $4), as {by, t, line}; nothing when there is none.
first_line() { lines_of "$1" "$2" "${3:-0}" | jq -c --arg by "${4:+vm$4}" 'map(select($by == "" or .by == $by)) | .[0] // empty'; }
logged() { [[ -n $(first_line "$@") ]]; }
of_event() { jq -nc --arg id "$1" '{event_id: $id}'; } # the fields to look for: that EventId
# The first watcher_role secondary after Unix time $1 of an agent neither vm$2 (killed) nor in vm$3's fault domain.
new_secondary() {
  lines_of watcher_role '{"role": "secondary"}' "$1" |
    jq -c --arg k "vm$2" --argjson fd "$(fault_domain "$3")" \
      'map(select(.by != $k and (.by[2:] | tonumber / 3 | floor) != $fd)) | .[0] // empty'
}
has_new_secondary() { [[ -n $(new_secondary "$@") ]]; }

# Scene 1: the agent of a VM holding no watcher role (its stop moves no role) stopped, then a Reboot of its VM
# and, in another fault domain, a Reboot of a VM whose drain falls due while the watcher's record holds the
# first VM's rack out. The driver plays the agentless VM's reboot on its node (nobody drained it).
agentless_scene() {
  local watcher i x="" y="" rack ea eb nb_a nb_b removal restores since=$EPOCHREALTIME
  watcher=$(fleet_view --json | jq -c '[.watcher[]][0] // {}')  # the one DC's watcher
  for ((i = vms - 1; i >= 0; i--)); do
    jq -e --arg vm "vm$i" '.leader.vm == $vm or .secondary.vm == $vm' <<<"$watcher" >/dev/null && continue
    if [[ -z $x ]]; then
      x=$i
    elif (($(fault_domain "$i") != $(fault_domain "$x"))); then
      y=$i
      break
    fi
  done
  rack=rack$(($(fault_domain "$x") + 1))
  restores=$(count_msg restore_completed)
  scene_note stopped "$x"
  scene_note other "$y"
  narrate "scene 1: vm$x's agent stopped (SIGTERM: it revokes its lease, its member key goes); then a Reboot of vm$x:" \
    "the watcher's leader ($(jq -r .leader.vm <<<"$watcher")) holds $rack out in the agent's stead"
  kill -TERM "${agent_pid[x]}"
  # At SIGTERM the agent revokes its lease (the member key goes with it), and gives that at most 3 s.
  wait_until "$(limit_s 3000)" "vm$x's lease revoked at its stop" \
    logged coordination_lease_revoked '{"ok": true}' "$since" "$x"
  ea=$(post_event "$(jq -nc --arg vm "vm$x" --argjson nb "$drain_lead_s" --argjson c "$agentless_reboot_s" \
    '{type: "Reboot", resources: [$vm], not_before_in_s: $nb, complete_after_s: $c}')")
  nb_a=$(event_field "$ea" not_before)
  nb_b=$((nb_a - other_due_before_s + drain_lead_s))
  eb=$(post_event "$(jq -nc --arg vm "vm$y" --argjson nb "$((nb_b - EPOCHSECONDS))" --argjson c "$complete_after_s" \
    '{type: "Reboot", resources: [$vm], not_before_in_s: $nb, complete_after_s: $c}')")
  scene_note agentless_event "$ea"
  scene_note agentless_not_before "$nb_a"
  scene_note other_event "$eb"
  narrate "vm$x: platform Reboot, NotBefore in $((nb_a - EPOCHSECONDS)) s (within drain_lead_s: the watcher counts it" \
    "out from now); vm$y: platform Reboot, its drain due ${other_due_before_s} s before vm$x's reboot, while only the" \
    "watcher's record says $rack is out"
  # agentless_impact is logged once the record is in etcd.
  wait_until "$((nb_b - drain_lead_s - EPOCHSECONDS))" "the watcher's agentless record for vm$x, before vm$y's drain is due" \
    logged agentless_impact "$(of_event "$ea")" "$since"
  fleet_view >"$work/fleet.agentless.txt"
  narrate "fleet: $(grep -m1 "^  vm$x .*agentless" "$work/fleet.agentless.txt" | sed 's/^ *//')"
  wait_until "$(until_s "$nb_a")" "vm$x's Reboot to start" status_is "$ea" Started
  sim_node "$x" stop
  removal=$(event_field "$ea" removal_at)
  narrate "vm$x's Reboot Started: the platform reboots the VM (its node stopped; no agent drained it)"
  wait_until "$(until_s "$removal")" "vm$x's Reboot to end" event_gone "$ea"
  sim_node "$x" start
  narrate "vm$x's Reboot over, its node UN again: the leader drops the record once a nodetool status shows it"
  wait_until "$((nb_b - unsafe_lead_s - EPOCHSECONDS))" "vm$x's agentless record to go before vm$y's forced drain" \
    logged agentless_record_removed "{\"vm\": \"vm$x\"}" "$since"
  wait_until "$(until_s $((nb_b + complete_after_s)))" "vm$y's Reboot gone" event_gone "$eb"
  # A restore starts within a poll of the removal (SPEC 4), its commands each within command_timeout_s.
  wait_until "$(limit_s $((poll_ms + command_timeout_s * 1000)))" "vm$y restored" restores_at_least $((restores + 1))
  all_up || die "a node is out after scene 1"
  narrate "scene 1 over: vm$y drained and restored once the record was gone; vm$x's agent stays stopped"
}

# Scene 2: the watcher's leader killed (SIGKILL: no revoke, its lease expires), the secondary leads.
takeover_scene() {
  local watcher leader secondary killed_at took
  watcher=$(fleet_view --json | jq -c '[.watcher[]][0] // {}')  # the one DC's watcher
  leader=$(jq -r '.leader.vm // empty' <<<"$watcher")
  secondary=$(jq -r '.secondary.vm // empty' <<<"$watcher")
  [[ -n $leader && -n $secondary ]] || die "fleet shows no watcher leader and secondary: $watcher"
  leader=${leader#vm} secondary=${secondary#vm}
  scene_note killed "$leader"
  scene_note former_secondary "$secondary"
  narrate "scene 2: SIGKILL vm$leader's agent, the watcher's leader: its key goes when its lease expires; the secondary," \
    "vm$secondary, must lead within $(in_s "$(takeover_bound_ms)") s (lease_ttl_s, etcd's lease sweep, a poll, a poll's margin)"
  killed_at=$EPOCHREALTIME
  scene_note killed_at "$killed_at"
  kill -KILL "${agent_pid[leader]}"
  wait_until "$(limit_s "$(takeover_bound_ms)")" "vm$secondary to lead" \
    logged watcher_role '{"role": "leader"}' "$killed_at" "$secondary"
  took=$(first_line watcher_role '{"role": "leader"}' "$killed_at" "$secondary" | jq -r .t)
  narrate "vm$secondary leads, $(awk -v a="$killed_at" -v b="$took" 'BEGIN { printf "%.1f", b - a }') s after the kill;" \
    "the others look for the free secondary's key"
  wait_until "$(limit_s "$(new_secondary_bound_ms)")" "a new secondary" has_new_secondary "$took" "$leader" "$secondary"
  fleet_view >"$work/fleet.takeover.txt"
  narrate "fleet: $(grep -m1 '^watcher:' "$work/fleet.takeover.txt")"
}

# After the wave: the agents the scenes stopped, for stop_agents_and_emulator (SIGTERM: exit 0; SIGKILL: 128 + 9).
readonly sigkill_status=$((128 + 9))
scene_stops() {
  local i
  i=$(scene_value stopped)
  [[ -z $i ]] || stopped_on_purpose[i]=0
  i=$(scene_value killed)
  [[ -z $i ]] || stopped_on_purpose[i]=$sigkill_status
}
# The error lines scene 1 expects (check_no_error_lines): the leader's agentless_impact for the stopped VM's Reboot.
scene_expected_errors() {
  local ea
  ea=$(scene_value agentless_event)
  if [[ -z $ea ]]; then echo '[]'; else
    jq -nc --arg id "$ea" --arg vm "vm$(scene_value stopped)" '[{msg: "agentless_impact", event_id: $id, vm: $vm}]'
  fi
}

plus() { awk -v t="$1" -v t0="$t0" 'BEGIN { printf "+%.1f s", t - t0 }'; } # a Unix time as the feed shows it
before() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a < b) }'; }

# What each scene showed, from the agents' logs and the notes, with the checks that fail the game day without it.
scenes_summary() {
  agentless_summary
  takeover_summary
}

agentless_summary() {
  local x y ea eb rack impacts impact_t removed_t refused refused_t drained drained_t
  x=$(scene_value stopped) y=$(scene_value other) ea=$(scene_value agentless_event) eb=$(scene_value other_event)
  echo "== scene 1: an agent stopped, the watcher holds its rack"
  if [[ -z $ea || -z $eb ]]; then
    failures+=("scene 1 (an agent stopped, its VM's Reboot) did not run to its events")
    return
  fi
  rack=rack$(($(fault_domain "$x") + 1))
  impacts=$(lines_of agentless_impact "$(of_event "$ea")")
  impact_t=$(jq -r '.[0].t // empty' <<<"$impacts")
  removed_t=$(first_line agentless_record_removed "{\"vm\": \"vm$x\"}" | jq -r '.t // empty')
  refused=$(lines_of drain_not_admitted "$(of_event "$eb")" |
    jq -c --arg by "vm$y" --arg r "$rack" 'map(select(.by == $by and (.line.out_racks | index($r)))) | .[0] // empty')
  refused_t=$(jq -r '.t // empty' <<<"$refused")
  drained=$(first_line drain_started "$(of_event "$eb")" 0 "$y")
  drained_t=$(jq -r '.t // empty' <<<"$drained")
  echo "   vm$x's agent stopped (SIGTERM); its Reboot [${ea:0:8}], NotBefore $(plus "$(scene_value agentless_not_before)");" \
    "vm$y's Reboot [${eb:0:8}] due ${other_due_before_s} s before it"
  echo "   agentless_impact (an error, expected once): $(jq -r --arg t0 "$t0" 'map("\(.by) at +\(.t - ($t0 | tonumber)
    | . * 10 | round / 10) s for \(.line.vm)") | join("; ") | if . == "" then "none" else . end' <<<"$impacts")"
  if (($(jq length <<<"$impacts") != 1)) || [[ $(jq -r '.[0].line.vm' <<<"$impacts") != "vm$x" ]]; then
    failures+=("scene 1: expected one agentless_impact, for vm$x's Reboot $ea; got $(jq -c 'map(.line)' <<<"$impacts")")
  fi
  echo "   fleet --config FILE while the record stood:"
  sed 's/^/     /' "$work/fleet.agentless.txt" 2>/dev/null || echo "     (not captured)"
  grep -q "^  vm$x .*(agentless: written by the watcher)" "$work/fleet.agentless.txt" 2>/dev/null ||
    failures+=("scene 1: fleet showed no agentless drain record for vm$x")
  if [[ -z $impact_t || -z $removed_t ]]; then
    failures+=("scene 1: vm$x's agentless record was not both written and removed (agentless_impact, agentless_record_removed)")
    return
  fi
  echo "   the record held $rack out for $(awk -v a="$impact_t" -v b="$removed_t" 'BEGIN { printf "%.1f", b - a }') s" \
    "($(plus "$impact_t") to $(plus "$removed_t"), agentless_record_removed)"
  if [[ -n $refused_t ]]; then
    echo "   vm$y: drain_not_admitted at $(plus "$refused_t") (out racks: $(jq -r '.line.out_racks | join(",")' <<<"$refused"))"
  fi
  if [[ -z $refused_t ]] || ! before "$impact_t" "$refused_t" || ! before "$refused_t" "$removed_t"; then
    failures+=("scene 1: vm$y's drain was not refused (drain_not_admitted naming $rack) while vm$x's agentless record stood")
  fi
  if [[ -z $drained_t ]]; then
    failures+=("scene 1: vm$y never drained for its Reboot $eb")
    return
  fi
  echo "   vm$y: drain_started at $(plus "$drained_t")$(jq -r 'if .line.forced_unsafe then ", forced" else "" end' <<<"$drained")"
  before "$removed_t" "$drained_t" ||
    failures+=("scene 1: vm$y drained at $(plus "$drained_t") while vm$x's agentless record stood (removed at $(plus "$removed_t"))")
  [[ $(jq -r .line.forced_unsafe <<<"$drained") == false ]] || failures+=("scene 1: vm$y's drain was forced")
}

takeover_summary() {
  local killed secondary killed_at took_t took new new_t bound
  killed=$(scene_value killed) secondary=$(scene_value former_secondary) killed_at=$(scene_value killed_at)
  echo "== scene 2: the watcher's leader killed, the secondary takes over"
  if [[ -z $killed_at ]]; then
    failures+=("scene 2 (the watcher's leader killed) did not run")
    return
  fi
  took_t=$(first_line watcher_role '{"role": "leader"}' "$killed_at" "$secondary" | jq -r '.t // empty')
  if [[ -z $took_t ]]; then
    failures+=("scene 2: vm$secondary, the secondary, never logged watcher_role leader after vm$killed's agent was killed")
    return
  fi
  took=$(awk -v a="$killed_at" -v b="$took_t" 'BEGIN { printf "%.2f", b - a }')
  bound=$(takeover_bound_ms)
  echo "   SIGKILL vm$killed (leader) at $(plus "$killed_at"); vm$secondary (secondary) logged watcher_role leader $took s" \
    "later (bound: lease_ttl_s $lease_ttl_s + etcd's lease sweep $(in_s "$etcd_lease_sweep_ms") s + a poll $(in_s "$poll_ms") s" \
    "+ a poll's margin = $(in_s "$bound") s)"
  awk -v t="$took" -v b="$bound" 'BEGIN { exit !(t * 1000 <= b) }' ||
    failures+=("scene 2: vm$secondary took the leader's role $took s after the kill (bound $(in_s "$bound") s)")
  new=$(new_secondary "$took_t" "$killed" "$secondary")
  bound=$(new_secondary_bound_ms)
  if [[ -n $new ]]; then
    new_t=$(awk -v a="$took_t" -v b="$(jq -r .t <<<"$new")" 'BEGIN { printf "%.1f", b - a }')
    echo "   new secondary: $(jq -r .by <<<"$new") (fault domain $(jq -r '.by[2:] | tonumber / 3 | floor' <<<"$new")), $new_t s" \
      "after the takeover (bound: an idle watcher step $(in_s "$(idle_watch_ms)") s + a poll + a poll's margin = $(in_s "$bound") s)"
    awk -v t="$new_t" -v b="$bound" 'BEGIN { exit !(t * 1000 <= b) }' ||
      failures+=("scene 2: the new secondary came $new_t s after the takeover (bound $(in_s "$bound") s)")
  else
    failures+=("scene 2: no new secondary in another fault domain than vm$secondary's after the takeover")
  fi
  echo "   fleet afterwards: $(grep -m1 '^watcher:' "$work/fleet.takeover.txt" 2>/dev/null || echo "(not captured)")"
}
