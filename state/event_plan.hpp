// How the core treats one scheduled event: the SPEC 3.2 table as pure functions of the event and the policy.
#pragma once

#include <chrono>
#include <string>

#include "state/scheduled_event.hpp"

namespace cla {

struct CorePolicy {
  std::string resource_name;
  std::chrono::seconds drain_lead{30};
  std::chrono::seconds unsafe_drain_lead{10};
  std::chrono::seconds unsafe_recheck{5};   // an unsafe verdict is asked again at most this often (SPEC 3.4)
  std::int64_t no_impact_freeze_max_s = 0;  // 0: every impactful event is drained for (SPEC 2.3)
  // Back to back (SPEC 3.2): a restore waits when another event's drain would start within this.
  std::chrono::seconds hold_between_events{120};
  bool approve_user_events = true;
  bool approve_shared_events = false;
  bool flush_before_restart = true;
  bool has_restart_command = false;
  std::chrono::seconds restore_retry{60};
  // Quiet before approval (SPEC 3.10): the replica stages' completed tasks unchanged this long; 0 approves at
  // once.
  std::chrono::seconds quiet{2};
  // Catching up (SPEC 3.10): caught up once no node holds hints for this one, not before catch_up_min (a
  // hints file is listed only once closed), and at the latest at catch_up_max; catch_up_max 0: no wait.
  std::chrono::seconds catch_up_min{30};
  std::chrono::seconds catch_up_max{1800};
  // Who holds hints is asked this often while the node catches up (coordinated: one etcd read; peers'
  // hints are dispatched every 10 s).
  std::chrono::seconds catch_up_read_interval{5};
  std::chrono::seconds starting_node_retry{5};  // enable* refused by a node still starting after a restart
  std::chrono::seconds drain_deadline_without_not_before{60};
  // A gate check or admission asked at or after an event's forced instant (seen late) is waited for this long
  // at most (SPEC 4: disablebinary within 1 s of the instant, whatever call is in flight).
  std::chrono::milliseconds late_check_grace{500};
  std::chrono::seconds restore_step_window{120};
  // Coordinated mode (SPEC 9): etcd admits drains and approves shared events. hold_without_coordination:
  // on_unavailable "hold" (no platform drain without etcd before the forced instant) instead of "local_gate".
  bool coordinated = false;
  bool hold_without_coordination = false;
  std::chrono::seconds coordination_log_interval{60};  // coordination_unavailable at most this often
};

enum class EventPlan {
  other_vm,        // Resources do not name this node: logged once, ignored
  no_impact,       // platform Freeze shorter than no_impact_freeze_max_s: approve at once, no drain
  user_drain,      // EventSource User: drain now, no gate, approve if approve_user_events
  platform_drain,  // anything else: gate and drain at NotBefore - drain_lead_s
};

std::string_view to_string(EventPlan plan);

bool names_node(const ScheduledEvent& event, const std::string& resource_name);
EventPlan plan_for(const ScheduledEvent& event, const CorePolicy& policy);
// Types after which Cassandra must be restarted anyway: flush memtables before them.
bool expects_restart(const std::string& event_type);
bool needs_flush(const std::string& event_type, const CorePolicy& policy);
// An approval releases every VM in Resources: does this one name VMs other than ours?
bool is_shared(const ScheduledEvent& event, const std::string& resource_name);
// Must this event's drain start at `now` without waiting for any read (SPEC 3.9)? True for an event of this
// node that is Started, a user event, and a platform drain whose forced instant (NotBefore -
// unsafe_drain_lead; at once without NotBefore) has come. The start-up's observation is given up for it.
bool drains_without_waiting(const ScheduledEvent& event, const CorePolicy& policy, WallTime now);

}  // namespace cla
