// The watcher (SPEC 9), one per DC, as a pure decision: which role this agent tries for (leader, secondary in
// another rack of the DC), and, as the leader, the agentless drain records to put and delete for known VMs of
// this cluster whose agent is gone and that a pending event lists, with the agentless_impact lines to log.
// The shell reads etcd, hands the records and the document here with the time, and carries out the plan.
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "state/coordination_decisions.hpp"
#include "state/scheduled_event.hpp"

namespace cla {

enum class WatcherRole { none, secondary, leader };
std::string_view to_string(WatcherRole role);

// <prefix>/watcher/<dc>/leader and <prefix>/watcher/<dc>/secondary: bound to the holder's lease.
struct RoleHolder {
  std::string vm;
  int fault_domain = -1;
  std::string rack;  // absent in older agents' values:
  bool operator==(const RoleHolder&) const = default;
};
boost::json::object to_json(const RoleHolder& holder);

// Who holds one DC's watcher keys; nullopt: nobody (or a value that does not decode).
struct WatcherRoles {
  std::optional<RoleHolder> leader, secondary;
};
Result<RoleHolder> role_holder_from_json(std::string_view text);

// Who holds which role, and the role this agent tries for: the leader's key when both keys are absent, or
// when it is the secondary and the leader's key is gone (the secondary goes first); the secondary's key when
// a leader in another rack holds its key and nobody holds the secondary's. Fault domain numbers repeat in
// every region and a zonal deployment may report one for every VM, so the rack decides; a leader whose value
// names no rack (an older agent) is compared by fault domain.
struct RoleDecision {
  WatcherRole current = WatcherRole::none;
  std::optional<WatcherRole> try_for;
};
RoleDecision decide_role(const RoleHolder& self, const std::optional<RoleHolder>& leader,
                         const std::optional<RoleHolder>& secondary);

// agentless_impact (error, once per event): what the shell logs after the record listing it was written.
struct AgentlessImpact {
  std::string vm, event_id, event_type, not_before;  // not_before as IMDS gave it ("" once Started)
  bool operator==(const AgentlessImpact&) const = default;
};

struct WatcherInput {
  std::string self;                    // this agent's VM
  std::vector<MemberRecord> members;   // live member keys of this agent's DC
  std::vector<KnownRecord> known;      // known/<dc>/<vm> of this agent's DC
  std::vector<DrainRecord> drains;     // the drain records of this DC, with their mod_revision and key
  std::vector<ScheduledEvent> events;  // the document's, every VM's, NotBefore in `now`'s clock
  std::chrono::seconds drain_lead{0};  // policy.drain_lead_s
  // The host ids UN in the last nodetool status and when it was started (nullopt: none read yet).
  std::set<std::string> up_host_ids;
  std::optional<WallTime> status_taken_at;
  WallTime now;
};

struct WatcherPlan {
  // Agentless records to write (each compared against the mod_revision it replaces, 0 for none).
  std::vector<DrainRecord> put;
  std::vector<AgentlessImpact> impacts;  // log once `put` is written
  std::vector<DrainRecord> remove;       // agentless records whose events are gone and node is UN again
  // A record's events are gone but no status taken since says whether its node is UN: read one.
  bool needs_status = false;
  bool operator==(const WatcherPlan&) const = default;
};

// The leader's duty, one poll at a time. It remembers when each agentless record's events were first seen
// gone from the document, so that only a status taken after that releases it (a new leader counts from its
// own first sighting).
class AgentlessWatch {
 public:
  WatcherPlan decide(const WatcherInput& input);

 private:
  std::map<std::string, WallTime> gone_at_;  // upper-case VM -> its agentless record's events first seen gone
};

}  // namespace cla
