// One gate check's answer (SPEC 3.4) from its `nodetool status`: the replication verdict over the last schema
// refresh, or the rack count when no refresh could be read (gate_fallback). Pure; also when a refresh is due.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "cassandra/gate/consistency.hpp"
#include "cassandra/gate/replication_verdict.hpp"
#include "cassandra/nodetool_output/info_parser.hpp"
#include "cassandra/nodetool_output/status_parser.hpp"
#include "state/core_io.hpp"

namespace cla {

// The address `status` shows for this host id (case-insensitive); "" when no row has it.
std::string address_of_host_id(const ClusterStatus& status, const std::string& host_id);

struct GateInput {
  const ClusterStatus& status;
  const NodeInfo& self;      // host id, DC and rack, as the node's own status row (or info) says
  std::string self_address;  // the node's row in `status`
  const ReplicationSnapshot* snapshot = nullptr;  // the last refresh; nullptr: the rack count decides
  Consistency consistency = Consistency::local_quorum;
  int replication_factor = 3;        // the rack count's RF (topology.replication_factor)
  std::vector<std::string> drained;  // addresses counted unavailable whatever status shows (SPEC 9)
};

struct GateDecision {
  SafetyResult result;  // what the core gets: unsafe_to_drain's exact fields in result.fields
  std::optional<ReplicationVerdict> verdict;  // nullopt when the rack count decided
};

// With a snapshot: evaluate_admission (evaluate_replication when nothing is drained); result.fields are
// unsafe_log_fields, result.reason one line for people, result.down_racks the racks (from status) of the
// short range's replicas that are down. Without: the rack count (evaluate_safety), fields empty.
GateDecision decide_gate(const GateInput& input);

// A refresh is due when none was attempted yet or the last attempt is `interval` old (the attempt, not the
// success, so a cluster whose schema cannot be read is asked at most once an interval).
bool schema_refresh_due(std::optional<std::chrono::steady_clock::time_point> last_attempt,
                        std::chrono::steady_clock::time_point now, std::chrono::seconds interval);

}  // namespace cla
