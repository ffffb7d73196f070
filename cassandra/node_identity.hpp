// This node's identity in the cluster (host id, DC, rack) from `nodetool status`, once `nodetool info` has
// told its host id: the gate then needs one nodetool JVM per check instead of two. Pure.
#pragma once

#include <optional>
#include <string>

#include "cassandra/nodetool_output/info_parser.hpp"
#include "cassandra/nodetool_output/status_parser.hpp"

namespace cla {

// The row of `status` whose host id is `host_id` (case-insensitive), as a NodeInfo with its DC and rack
// (the info flags are left false: the gate does not read them). nullopt when no row has it (an empty
// host_id, a status without host ids, the node replaced under a new id): the caller asks `info` again.
std::optional<NodeInfo> identity_in_status(const ClusterStatus& status, const std::string& host_id);

}  // namespace cla
