// A keyspace's replication as nodetool describecluster prints it ("NetworkTopologyStrategy {dc1=3, dc2=2}"):
// the strategy, its factors, and the key under which keyspaces of one setting share one placement. Pure.
#pragma once

#include <map>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "state/result.hpp"

namespace cla {

enum class StrategyKind {
  simple,            // SimpleStrategy {replication_factor=N}
  network_topology,  // NetworkTopologyStrategy {dc=N, ...}
  local,             // LocalStrategy {}: node-local system data, never replicated
  everywhere,        // EverywhereStrategy (DataStax): a replica on every node
  other,             // anything else (a custom class, or "null" when nodetool could not read it)
};
std::string_view to_string(StrategyKind kind);
std::ostream& operator<<(std::ostream& os, StrategyKind kind);

// A replication factor as written: "3" or, with transient replication, "3/1" (3 replicas, 1 of them
// transient).
struct ReplicaCount {
  int all = 0;
  int transient_replicas = 0;
  friend bool operator==(const ReplicaCount&, const ReplicaCount&) = default;
};

struct Replication {
  std::string strategy_class;  // as printed (a package prefix is dropped): "NetworkTopologyStrategy"
  StrategyKind kind = StrategyKind::other;
  std::vector<std::pair<std::string, std::string>> options;  // every key=value as printed, in order
  std::map<std::string, ReplicaCount> dc_factors;            // network_topology: DC -> factor
  ReplicaCount replication_factor;                           // simple: replication_factor

  // The factors summed over DCs (network_topology), the replication_factor (simple); 0 otherwise.
  int total_factor() const;
  bool has_transient() const;
  // What the placement depends on, as one canonical text: keyspaces with equal keys share one placement
  // ("NetworkTopologyStrategy{dc1=3,dc2=2}", "SimpleStrategy{3}"; transient counts leave it unchanged).
  std::string placement_key() const;
  friend bool operator==(const Replication&, const Replication&) = default;
};
std::ostream& operator<<(std::ostream& os, const Replication& replication);

// Parses what follows "Replication class: " in describecluster: "<Class> {k=v, k=v}" (Java's Map.toString).
// A known class with factors that do not read as N or N/T becomes kind `other` (kept, never guessed at); a
// class without braces ("null": nodetool could not read it) reads as with no options. Fails on text without a
// class name, an unclosed brace, or an option that is not key=value.
Result<Replication> parse_replication(std::string_view text);

// Java's AbstractMap.toString of the options: "{dc1=3, dc2=2}".
std::string format_replication_options(const Replication& replication);

}  // namespace cla
