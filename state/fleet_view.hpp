// What `cassandra-lifecycle-agent fleet` shows (SPEC 9), as a pure function of etcd's records and the
// events IMDS lists: every member (phase, rack, age), every recorded drain (marked when the watcher wrote it
// for an agentless VM), every known VM (marked when no agent runs for it), the watcher's leader and
// secondary, and per pending event which of its listed VMs are drained for it.
#pragma once

#include <boost/json/object.hpp>
#include <optional>
#include <string>
#include <vector>

#include "state/coordination_decisions.hpp"
#include "state/scheduled_event.hpp"
#include "state/watcher.hpp"

namespace cla {

struct FleetInput {
  std::vector<MemberRecord> members;
  std::vector<DrainRecord> drains;
  std::vector<KnownRecord> known;
  std::map<std::string, WatcherRoles> watchers;       // by DC ("": older agents' flat keys)
  std::optional<std::vector<ScheduledEvent>> events;  // nullopt: IMDS could not be read
  WallTime now;
};

// {"members":[{"vm","phase","datacenter","rack","fault_domain","events","age_s"}],
//  "drains":[{"vm","datacenter","rack","host_id","events","age_s","member_alive","agentless"}],
//  "known":[{"vm","fault_domain","datacenter","rack","address","host_id","agent"}] (agent: a live member
//  key),
//  "watcher":{"<dc>":{"leader":{"vm","fault_domain","rack"}|null,"secondary":...|null}} (one per DC),
//  "events":[{"event_id","event_type","status","resources","drained","not_drained","without_member_key"}]}
// Events come from IMDS when given, else from the EventIds in the records (resources then unknown: []).
boost::json::object fleet_view(const FleetInput& input);
// The same as aligned text for a terminal.
std::string fleet_text(const boost::json::object& view);

}  // namespace cla
