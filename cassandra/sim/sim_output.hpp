// What nodetool 4.1 prints for `status` and `info`, rendered from nodetool-sim's cluster model.
#pragma once

#include <cstdint>
#include <string>

#include "cassandra/sim/sim_cluster.hpp"

namespace cla {

// FileUtils.stringifyFileSize: 1024-based units (bytes, KiB, MiB, GiB, TiB), at most two decimals,
// trailing zeros dropped ("1 TiB", "1017.09 GiB", "975 bytes").
std::string stringify_file_size(double bytes);

// `nodetool status` as seen from the node at caller_address: DCs sorted by name, rows in a stable hash
// order (not sorted), widths over all rows and headers of all DCs, every cell padded (the Rack column
// too), one empty line at the end, then the Note: trailer when ownership is unavailable. The caller always
// sees itself U; another node is D when stopped, gossip disabled or drained.
std::string format_status(const SimCluster& cluster, const std::string& caller_address);

// `nodetool info` of one node, "%-23s: %s" lines in 4.1 order.
std::string format_info(const SimNodeRef& node, std::int64_t now_unix);

// `nodetool tpstats` of one node (5.0's TableBuilder layout): its thread pools with the replica stages'
// completed tasks from the node's traffic (sim_cluster.hpp), then the dropped messages' table.
std::string format_tpstats(const SimNode& node);
// 5.0's `listpendinghints` on `caller`: the closed hints files it holds for every node that came back less
// than its hint_replay_s ago (sim_cluster.hpp's model), or the line that says there are none.
std::string format_listpendinghints(const SimCluster& cluster, const SimNode& caller, std::int64_t now_unix);

}  // namespace cla
