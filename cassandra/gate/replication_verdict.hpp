// The replication-exact gate of SPEC 3.4: if this node leaves now, does every token range of every keyspace
// keep the replicas the clients' consistency level needs? Pure: the inputs are parsed nodetool outputs.
#pragma once

#include <boost/json/object.hpp>
#include <cstddef>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "cassandra/gate/consistency.hpp"
#include "cassandra/gate/pending_ranges.hpp"
#include "cassandra/gate/replica_placement.hpp"
#include "cassandra/gate/token_ring.hpp"
#include "cassandra/nodetool_output/describecluster_parser.hpp"
#include "cassandra/nodetool_output/ring_parser.hpp"
#include "cassandra/nodetool_output/status_parser.hpp"
#include "state/result.hpp"

namespace cla {

// What one schema refresh reads (describecluster and ring: two nodetool runs) with every distinct replication
// placed once; kept until the next refresh, while each gate check brings only a fresh `nodetool status`.
struct ReplicationSnapshot {
  ClusterDescription cluster;
  TokenRing ring;  // the natural ring: normal, leaving and moving tokens
  KeyspacePlacements placements;
  RingChanges changes;  // joining, leaving and moving nodes, and the future rings
  std::map<std::string, std::vector<WriteRange>> write_ranges;  // by placement_key(): natural + pending
};

// Fails when describecluster lists no keyspaces (before Cassandra 4.0), the ring (or a future ring: every
// node leaving) cannot be built, or the two disagree on the nodes of a DC (the ring changed between the
// calls, or an output was cut short: run nodetool with an output limit far above the ring's size, ~130 bytes
// a token): the caller then refreshes again or falls back to the rack count (SPEC 3.4, gate_fallback).
Result<ReplicationSnapshot> make_replication_snapshot(ClusterDescription cluster, const RingTable& ring);

// The node that would leave, as the ring and `nodetool status` name it.
struct VerdictNode {
  std::string address, datacenter;
};

enum class VerdictReason {
  safe,
  schema_disagreement,  // more than one schema version among the reachable nodes
  ring_changing,        // a node moving, or the ring's states changed since the refresh (status disagrees)
  replicas_short,       // a range this node replicates would keep fewer available replicas than needed
  node_not_in_ring,     // this node's address owns no token of the ring: nothing can be judged
};
std::string_view to_string(VerdictReason reason);  // "safe", "schema_disagreement", ...
std::ostream& operator<<(std::ostream& os, VerdictReason reason);

// What falls short in a range. Writes need `needed + P` of natural and pending replicas, reads `needed` of
// the natural ones: reads short means writes short too, so a range is short for writes alone or for both.
enum class ShortAccess { reads_and_writes, writes };
std::string_view to_string(ShortAccess access);  // "reads_and_writes", "writes"
std::ostream& operator<<(std::ostream& os, ShortAccess access);

// One range that would fall short (SPEC 3.4's unsafe_to_drain fields). The counts are the writes' (the
// stricter): with no pending replica they are the reads' too.
struct ShortRange {
  std::string keyspace, start_token, end_token;
  std::string datacenter;  // the DC the level counts in (LOCAL_*, EACH_QUORUM); "" when it counts every DC
  int needed = 0, available = 0;  // writes: the level's count + P; available natural + pending replicas
  std::vector<std::string>
      down;  // the replicas the level counts that are not available (not this node), sorted
  std::vector<std::string> pending;  // the range's pending replicas the level counts (P of them), sorted
  ShortAccess access = ShortAccess::reads_and_writes;
  friend bool operator==(const ShortRange&, const ShortRange&) = default;
};

// A keyspace that cannot meet the level without this node even with every other replica up, in some range
// this node replicates: left out of the verdict and reported (SPEC 3.4's keyspace_unprotectable fields).
struct UnprotectableKeyspace {
  std::string keyspace, strategy_class;
  std::variant<int, std::map<std::string, int>> rf;  // DC -> factor (NetworkTopologyStrategy), else a number
  Consistency consistency = Consistency::local_quorum;
  friend bool operator==(const UnprotectableKeyspace&, const UnprotectableKeyspace&) = default;
};

struct ReplicationVerdict {
  bool safe = false;
  VerdictReason reason = VerdictReason::node_not_in_ring;
  std::optional<ShortRange> short_range;  // reason replicas_short: the range with the largest shortfall
  std::vector<UnprotectableKeyspace> unprotectable;  // by keyspace name
  std::vector<std::string>
      unjudged;        // keyspaces of a strategy that cannot be placed (not LocalStrategy): "ks (Class)"
  std::string detail;  // schema_disagreement: the versions; ring_changing: who; else ""
  std::size_t keyspaces_checked = 0, ranges_checked = 0;  // for the debug line; not compared by ==
};
bool operator==(const ReplicationVerdict& a, const ReplicationVerdict& b);
std::ostream& operator<<(std::ostream& os, const ReplicationVerdict& verdict);
std::ostream& operator<<(std::ostream& os, const ShortRange& range);
std::ostream& operator<<(std::ostream& os, const UnprotectableKeyspace& keyspace);

// Per keyspace (LocalStrategy and the virtual system_views/system_virtual_schema left out; EverywhereStrategy
// counted with a replica on every node) and per range this node replicates (as a natural or a pending
// replica), this node removed, against the level's count `needed`: ONE 1 of all, LOCAL_ONE 1 in this node's
// DC, QUORUM sum(RF)/2+1 of all, LOCAL_QUORUM RF(own DC)/2+1 in it, EACH_QUORUM RF(dc)/2+1 in every DC with a
// factor. As Cassandra counts them, a strategy other than NetworkTopologyStrategy has one RF: its
// LOCAL_QUORUM is RF/2+1 counted in this node's DC, its EACH_QUORUM is QUORUM. Reads need `needed` natural
// replicas that `status` shows UN; writes, as Cassandra's ConsistencyLevel.blockForWrite, `needed + P` (P =
// the range's pending replicas counted where the level counts: this DC for LOCAL_*, each DC for EACH_QUORUM,
// all for QUORUM/ONE) of the UN natural replicas and the up (U?) pending ones. Safe when both hold in every
// range. Checked first, in this order: schema disagreement, a ring changing (a node moving: describecluster's
// count, a ring row or a status row M; or a status row whose J/L/N state is not the one the refresh's ring
// showed). A replication is evaluated once for all the keyspaces that share it.
ReplicationVerdict evaluate_replication(const ReplicationSnapshot& snapshot, const ClusterStatus& status,
                                        const VerdictNode& self, Consistency consistency);

// SPEC 9's admission: the same verdict with `drained` (addresses of nodes with a recorded drain) counted as
// not available, whatever `status` shows. This node among them changes nothing.
ReplicationVerdict evaluate_admission(const ReplicationSnapshot& snapshot, const ClusterStatus& status,
                                      const VerdictNode& self, Consistency consistency,
                                      const std::vector<std::string>& drained);

// The unprotectable keyspaces alone (they depend on the schema and ring, not on who is up): what a refresh
// logs.
std::vector<UnprotectableKeyspace> find_unprotectable(const ReplicationSnapshot& snapshot,
                                                      const VerdictNode& self, Consistency consistency);

// The addresses `status` shows for these host ids (drain records name nodes by host id); unknown ids are
// skipped.
std::vector<std::string> addresses_of_host_ids(const ClusterStatus& status,
                                               const std::vector<std::string>& host_ids);

// SPEC 3.4's exact log fields: unsafe_to_drain's (keyspace, start_token, end_token, needed, available, down,
// then pending and "for": "writes" or "reads_and_writes"; or reason) for an unsafe verdict, {} for a safe
// one; keyspace_unprotectable's (keyspace, class, rf, consistency).
boost::json::object unsafe_log_fields(const ReplicationVerdict& verdict);
boost::json::object unprotectable_log_fields(const UnprotectableKeyspace& keyspace);

}  // namespace cla
