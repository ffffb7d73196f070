// Pending ranges as Cassandra's PendingRangeCalculator computes them while nodes join or leave: per range,
// the natural replicas (placed on normal tokens) and the pending ones (that receive writes for it). Pure.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cassandra/gate/replica_placement.hpp"
#include "cassandra/gate/token_ring.hpp"
#include "cassandra/nodetool_output/replication.hpp"
#include "cassandra/nodetool_output/ring_parser.hpp"
#include "state/result.hpp"

namespace cla {

// What `nodetool ring` says is changing, and the future rings pending ranges are placed on.
struct RingChanges {
  std::vector<RingEndpoint> endpoints;  // every endpoint of the ring, joining ones too; by address
  std::vector<std::string> joining, leaving, moving;  // addresses with a Joining/Leaving/Moving row, sorted
  std::optional<TokenRing> settled;  // the natural ring without leaving nodes; when any leaves
  std::vector<TokenRing>
      with_joining;  // per joining[i]: the ring without leaving nodes, plus joining[i]'s tokens

  std::optional<EndpointIndex> find(std::string_view address) const;  // into endpoints
  bool changing() const { return !joining.empty() || !leaving.empty(); }
};

// Fails when every node leaves (no ring is left to place on) or a future ring cannot be built.
Result<RingChanges> make_ring_changes(const RingTable& table);

// One range of the write path: (start, end], with its replicas as indices into RingChanges::endpoints.
struct WriteRange {
  std::string start, end;
  std::vector<EndpointIndex> natural;  // in Cassandra's order (the natural placement's)
  std::vector<EndpointIndex> pending;  // sorted; never a natural replica
  friend bool operator==(const WriteRange&, const WriteRange&) = default;
};

// The ranges of `natural` (its ring's placement of `replication`), split at every joining node's token so
// that each range has one natural and one pending set. As Cassandra 4.0+/5.0's PendingRangeCalculator:
// - leaving nodes: in a range one of them replicates, the replicas placed on `settled` (no leaving node)
//   that are not natural replicas are pending;
// - joining nodes, one at a time: joining node J is pending in the ranges it replicates on `settled` plus
//   J's tokens (only J itself: the nodes J pushes out keep the range until J has joined).
// Moving nodes are placed where they are: their destination token is not printed, so their pending ranges
// cannot be computed (the verdict refuses to judge a ring with one). Without joining or leaving nodes: the
// natural ranges, none pending.
std::vector<WriteRange> place_write_ranges(const RingChanges& changes, const TokenRing& natural_ring,
                                           const Placement& natural, const Replication& replication);

}  // namespace cla
