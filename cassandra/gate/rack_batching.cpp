// See the header: one replica per range in a rack, over every placement of the snapshot.
#include "cassandra/gate/rack_batching.hpp"

namespace cla {

bool rack_holds_one_replica_per_range(const ReplicationSnapshot& snapshot, const std::string& datacenter,
                                      const std::string& rack) {
  if (snapshot.changes.changing() || !snapshot.changes.moving.empty()) return false;
  const auto& endpoints = snapshot.ring.endpoints;
  const auto in_rack = [&](EndpointIndex i) {
    return endpoints[i].datacenter == datacenter && endpoints[i].rack == rack;
  };
  for (const auto& [key, placement] : snapshot.placements.by_key)
    for (const auto& replicas : placement.replicas) {
      int in = 0;
      for (const EndpointIndex i : replicas)
        if (in_rack(i) && ++in > 1) return false;
    }
  return true;
}

}  // namespace cla
