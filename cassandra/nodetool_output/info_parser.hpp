// Parser for `nodetool info` stdout ("%-23s: %s" lines, 2.x to 5.0): pure, never throws.
#pragma once

#include <ostream>
#include <string>
#include <string_view>

#include "state/result.hpp"

namespace cla {

struct NodeInfo {
  std::string host_id, datacenter, rack;
  bool gossip_active = false, native_transport_active = false;
  friend bool operator==(const NodeInfo&, const NodeInfo&) = default;
};
std::ostream& operator<<(std::ostream& os, const NodeInfo& info);

// Needs the lines ID, Gossip active, Native Transport active, Data Center and Rack; other lines (Thrift
// active, caches, 5.0's bootstrap lines...) are ignored. A missing key or a non-boolean flag is an error
// naming the key.
Result<NodeInfo> parse_nodetool_info(std::string_view stdout_text);

}  // namespace cla
