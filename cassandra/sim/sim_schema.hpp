// nodetool-sim's schema and ring: each node's tokens, and what describecluster, ring and describering report,
// as the values the agent's parsers produce (sim_schema_output.hpp prints them in nodetool's layouts). Pure.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "cassandra/nodetool_output/describecluster_parser.hpp"
#include "cassandra/nodetool_output/describering_parser.hpp"
#include "cassandra/nodetool_output/ring_parser.hpp"
#include "cassandra/sim/sim_cluster.hpp"

namespace cla {

// Every node's tokens by address: its ring_tokens, else generated. Generated tokens are evenly spaced over
// the Murmur3 ring (slot s of S: s * 2^64/S - 2^63, ccm's formula), handed out in rounds; each round takes
// every node with tokens left, DCs and racks interleaved (DC 1 rack 1, DC 1 rack 2, ..., DC 2 rack 1, ...)
// and within a rack in the file's order in round 0, a per-round shuffle after. So with 1 token and equal
// racks the ring alternates racks as the real cluster of scripts/cassandra-cluster.sh does, and consecutive
// tokens are in distinct racks (SimpleStrategy with RF up to the racks is rack-safe, as in a well-planned
// cluster).
std::map<std::string, std::vector<std::string>> sim_tokens(const SimCluster& cluster);

// Nodes seen from `caller`: the caller always up; others up when running with gossip on and not drained.
bool sim_reachable(const SimNode& node, const std::string& caller);

// `nodetool describecluster` on the caller: one schema version for the reachable nodes (a node's own
// schema_version plays a disagreement), UNREACHABLE for the others, the counts, DCs, 5.0.9, the keyspaces,
// and the ownership Note when the non-system keyspaces differ in replication.
ClusterDescription sim_describecluster(const SimCluster& cluster, const std::string& caller);

// `nodetool ring` on the caller: per DC (by name) every token in order, Up/Down from the caller's view, each
// node's effective ownership when the non-system keyspaces share one replication ("?" and a Note otherwise).
RingTable sim_ring(const SimCluster& cluster, const std::string& caller);

// `nodetool describering KEYSPACE` on the caller: the replicas of every range as Cassandra places them,
// ranges in a stable hash order (Cassandra's is a HashMap's). nullopt for a keyspace without a ring
// (LocalStrategy, unknown): nodetool then fails with "There is no ring for the keyspace".
std::optional<DescribedRing> sim_describering(const SimCluster& cluster, const std::string& caller,
                                              const std::string& keyspace);

}  // namespace cla
