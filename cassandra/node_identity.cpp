// This node's status row by host id.
#include "cassandra/node_identity.hpp"

#include "state/scheduled_event.hpp"

namespace cla {

std::optional<NodeInfo> identity_in_status(const ClusterStatus& status, const std::string& host_id) {
  if (host_id.empty()) return std::nullopt;
  for (const StatusRow& row : status.rows)
    if (iequals(row.host_id, host_id)) return NodeInfo{row.host_id, row.datacenter, row.rack, false, false};
  return std::nullopt;
}

}  // namespace cla
