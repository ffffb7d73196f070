// What the agent persists (SPEC 2.6): events seen and what was done for each, and the node's drain state.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "state/event_plan.hpp"
#include "state/scheduled_event.hpp"

namespace cla {

struct EventRecord {
  ScheduledEvent event;  // the latest version seen
  EventPlan plan = EventPlan::other_vm;
  WallTime first_seen{};
  bool started_seen = false;
  bool drain_complete = false;  // every step this event needs is done and persisted
  bool drain_failed = false;
  bool forced_unsafe = false;  // drained although unsafe: never approved
  bool emergency = false;      // first seen Started with the node not drained for it: drained at once
  // The VM rebooted while the node was drained for it (SPEC 3.6): its restart came, so taking the node out
  // again runs disablebinary and disablegossip only, never a flush of the fresh Cassandra.
  bool rebooted_through = false;
  bool approved = false;
  bool approval_rejected = false;  // IMDS answered 4xx: not retried
  bool approval_withheld = false;  // policy forbids approving it (logged once)
  bool unsafe_logged = false;
  bool impact_warned = false;
  bool notified_scheduled = false;
  bool notified_starting = false;
  bool notified_start = false;
  std::optional<WallTime> drained_at;
  std::optional<WallTime> approved_at;
};

// An event that is gone but whose NodeMaintenanceEnded waits for the node to be back in service.
struct PendingEnded {
  ScheduledEvent event;  // as last seen, for the notification's fields
};

struct NodeDrainState {
  bool out_of_service = false;  // set and persisted before the first mutating command
  bool binary_disabled = false;
  bool gossip_disabled = false;
  bool flushed = false;
  std::set<std::string> drained_for;  // upper-case EventIds the node is out of service for
  std::optional<WallTime> out_since;
  std::string boot_id_at_drain;
  // Cassandra started afresh (the VM rebooted, restart_command ran) and has not served CQL since: its
  // enablebinary waits for the binary hold, also after a further drain or an agent restart in between.
  bool started_afresh = false;
};

// After a restore (SPEC 3.10): the node serves again, but its peers still replay the outage's hints to it.
struct CatchUpState {
  WallTime since{};             // the node UN again: restore_completed, or a restarted node's binary hold
  std::int64_t out_s = 0;       // the outage it catches up on
  std::int64_t hint_files = 0;  // the most hints files for it that one reading found on the other nodes
};

struct AgentState {
  static constexpr int schema_version = 1;
  std::optional<std::int64_t> last_incarnation{};
  std::map<std::string, EventRecord> events{};  // key: upper-case EventId
  NodeDrainState node{};
  std::vector<PendingEnded> pending_ended{};
  std::string boot_id{};  // the boot id when the state was last written
  // The last few measured gate + drain durations (oldest first): the drain starts earlier by the longest
  // of them x1.5 (SPEC 3.3).
  std::vector<std::int64_t> drain_durations_ms{};
  std::optional<CatchUpState> catch_up{};
  // The last restore came after max_hint_window (SPEC 3.10): until a restore within it.
  bool repair_needed = false;
};

}  // namespace cla
