# shellcheck shell=bash disable=SC2154 # work, coordinated, failures and ts_jq come from demo.sh and demo_view.sh
# demo.sh --coordinated: the agents' coordination section over lib.sh's 3-member etcd (start_etcd), and the
# checks and figures of the coordinated wave. Sourced by demo.sh after scripts/lib.sh; uses its $work and
# failures.

# The coordination section of each agent's config, as JSON.
coordination_json() {
  etcd_coordination_json demo '{"lease_ttl_s": 5}'
}

# name, EventId: remembered with the event's NotBefore (Unix seconds) for coordinated_summary.
note_fd_event() { printf '%s\t%s\t%s\n' "$1" "$2" "$(event_field "$2" not_before)" >>"$work/fd_events.tsv"; }

# The fault-domain events list 3 VMs. Uncoordinated, approve_shared_events false keeps them unapproved (the
# emulator's --shared-approval any would start them for all 3 at the first approval): they start at
# NotBefore. Coordinated, each is approved once, by its first VM, when all three are drained.
check_approval_count() {
  if ((coordinated)); then
    (($1 == 5)) || failures+=("expected 5 approvals (one per fault-domain event, by its first listed VM; the short Freeze; the user Reboot), got $1")
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
