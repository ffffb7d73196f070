// Parser for `nodetool describecluster` stdout (4.0+ layout: cluster information, schema versions, stats for
// all nodes, data centers, database versions, keyspaces with their replication): pure, never throws.
#pragma once

#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "cassandra/nodetool_output/replication.hpp"
#include "state/result.hpp"

namespace cla {

// "Stats for all nodes": counts of every node the queried node knows.
struct NodeCounts {
  int live = 0, joining = 0, moving = 0, leaving = 0, unreachable = 0;
  friend bool operator==(const NodeCounts&, const NodeCounts&) = default;
};

struct DatacenterCount {
  std::string name;
  int nodes = 0, down = 0;
  friend bool operator==(const DatacenterCount&, const DatacenterCount&) = default;
};

struct KeyspaceReplication {
  std::string name;
  Replication replication;
  friend bool operator==(const KeyspaceReplication&, const KeyspaceReplication&) = default;
};

// The schema version nodetool files the nodes it cannot reach under (not a version of their schema).
inline constexpr std::string_view kUnreachableSchemaVersion = "UNREACHABLE";

struct ClusterDescription {
  std::string name, snitch, partitioner;
  std::optional<bool> dynamic_snitch;  // "DynamicEndPointSnitch: enabled|disabled"
  // version -> endpoints, as printed; nodes down are listed under "UNREACHABLE".
  std::map<std::string, std::vector<std::string>> schema_versions;
  std::optional<NodeCounts> counts;                                   // absent before 4.0
  std::vector<DatacenterCount> datacenters;                           // in output order
  std::map<std::string, std::vector<std::string>> database_versions;  // release -> endpoints (with port)
  std::optional<std::vector<KeyspaceReplication>> keyspaces;          // in output order; absent before 4.0
  std::vector<std::string> notes;  // "Note: ..." and "Error: ..." lines nodetool adds (ownership), as printed

  // The schema versions other than UNREACHABLE: more than one is a schema disagreement.
  std::vector<std::string> reachable_schema_versions() const;
  friend bool operator==(const ClusterDescription&, const ClusterDescription&) = default;
};
std::ostream& operator<<(std::ostream& os, const ClusterDescription& description);
std::ostream& operator<<(std::ostream& os, const NodeCounts& counts);
std::ostream& operator<<(std::ostream& os, const DatacenterCount& datacenter);

// Lines are told apart by their section and their text, not by tabs or padding; lines before "Cluster
// Information:" and unknown "Key: value" lines of the first sections are ignored. Needs "Cluster
// Information:" and at least one schema version. A keyspace line that cannot be read, a keyspace or version
// given twice, or a count that is not a number is an error naming the line. A keyspace nodetool could not
// read ("something went wrong for keyspace", then "Replication class: null") is kept with kind `other`, the
// message in `notes`.
Result<ClusterDescription> parse_nodetool_describecluster(std::string_view stdout_text);

}  // namespace cla
