// The replication-safety gate (SPEC 3.4): may this node leave without costing its DC a quorum? Pure.
#pragma once

#include <string>
#include <vector>

#include "cassandra/nodetool_output/info_parser.hpp"
#include "cassandra/nodetool_output/status_parser.hpp"

namespace cla {

struct SafetyVerdict {
  bool safe = false;
  std::string reason;  // human text for the log
  std::string own_datacenter, own_rack;
  std::vector<std::string> down_racks;  // own DC racks with a node not UN (excluding this node), sorted
  int allowed_out = 0;                  // RF - (RF/2 + 1): racks (or nodes) that may be out at once
  int would_be_out = 0;                 // racks (or nodes) out if this node leaves
  bool counted_nodes = false;           // fewer racks than RF in the DC: nodes were counted, not racks
  std::vector<std::string> down_nodes;  // own DC nodes not UN (excluding this node), addresses, sorted
};

// Only the own DC (self.datacenter) matters. A rack is down when any of its nodes is not UN; this node,
// found by host id, always counts as up (a drained node still sees itself U). Safe when the down racks
// plus the own rack (counted once) are at most RF - (RF/2 + 1); with fewer racks than RF, when the down
// nodes plus this node are. Fails closed: RF < 1, own DC or own node missing from the status -> unsafe.
SafetyVerdict evaluate_safety(const ClusterStatus& status, const NodeInfo& self, int replication_factor);

}  // namespace cla
