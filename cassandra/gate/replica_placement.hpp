// Replica placement as Cassandra 4.0+/5.0 computes it (NetworkTopologyStrategy.calculateNaturalReplicas,
// SimpleStrategy): the replicas of every token range of the ring, once per distinct replication. Pure.
#pragma once

#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "cassandra/gate/token_ring.hpp"
#include "cassandra/nodetool_output/describecluster_parser.hpp"
#include "cassandra/nodetool_output/replication.hpp"

namespace cla {

struct Placement {
  // replicas[i]: the replicas of range i of the ring, (tokens[i-1], tokens[i]], in Cassandra's order (the
  // first is the primary). Empty for a strategy that places nothing here (LocalStrategy, an unknown class).
  std::vector<std::vector<EndpointIndex>> replicas;
  friend bool operator==(const Placement&, const Placement&) = default;
};

// Walks the ring clockwise from each range's end token (that token's owner first):
// - SimpleStrategy: the next replication_factor distinct endpoints (all of them when there are fewer).
// - NetworkTopologyStrategy, per DC with a factor > 0 and nodes: an endpoint of a rack not yet seen is taken;
//   one of a seen rack only while the DC has fewer racks than its factor (factor - racks such repeats, the
//   first met); min(factor, nodes of the DC) replicas in all. DCs fill in one walk, so replicas interleave by
//   ring order. Transient counts do not change where replicas go.
// - EverywhereStrategy: every endpoint, in ring order.
Placement place_replicas(const TokenRing& ring, const Replication& replication);

// The placements of a set of keyspaces: one per distinct placement_key(), shared by its keyspaces.
struct KeyspacePlacements {
  std::map<std::string, Placement> by_key;

  // Null for a replication that was not placed (local or unknown strategy).
  const Placement* find(const Replication& replication) const;
};

// Whether a strategy's replicas can be placed from the ring (simple, network_topology, everywhere).
bool is_placeable(const Replication& replication);

KeyspacePlacements place_keyspaces(const TokenRing& ring, const std::vector<KeyspaceReplication>& keyspaces);

}  // namespace cla
