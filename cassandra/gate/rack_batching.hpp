// Whether the drains of one rack can be admitted together (issue 40: a rack's 50 agents admitted one
// transaction at a time made the reaction grow with the agents per rack). Two nodes of one rack leaving at
// once can only short a range that holds both of them; when no range of any keyspace places two replicas in
// the rack (NetworkTopologyStrategy with at least as many racks as the DC's factor), each node's verdict
// holds whatever its rack's other nodes do, and only other racks' changes need guarding. Pure.
#pragma once

#include <string>

#include "cassandra/gate/replication_verdict.hpp"

namespace cla {

// False when a range of any placement holds two replicas of (datacenter, rack), or when the ring is changing
// (pending ranges add replicas that the natural placement does not show).
bool rack_holds_one_replica_per_range(const ReplicationSnapshot& snapshot, const std::string& datacenter,
                                      const std::string& rack);

}  // namespace cla
