// `nodetool describecluster` rebuilt from its MBeans' attributes, the snitch's DC of each endpoint and the
// replication of each keyspace, the way Cassandra 5.0's DescribeCluster.java computes it: pure.
#pragma once

#include <map>
#include <span>
#include <string>
#include <vector>

#include "cassandra/jolokia/jolokia_answers.hpp"
#include "cassandra/jolokia/jolokia_ring.hpp"
#include "cassandra/nodetool_output/describecluster_parser.hpp"

namespace cla {

// The answers of describe_calls().
struct DescribeView {
  std::string name, snitch, partitioner;
  bool dynamic_snitch = false;
  RingView ring;  // the liveness sets and the token map (no loads, no host ids)
  std::map<std::string, std::vector<std::string>> schema_versions;   // version -> "host:port"...
  std::map<std::string, std::vector<std::string>> release_versions;  // release -> "host:port"...
  std::vector<std::string> keyspaces;                                // as StorageService lists them
};

// SnitchName is the DynamicEndpointSnitch's class when the dynamic snitch wraps the configured one; nodetool
// then prints the DynamicEndpointSnitch MBean's SubsnitchClassName (that MBean exists only then, so its read
// may be refused otherwise).
Result<DescribeView, JolokiaError> read_describe_view(std::span<const JolokiaValue> values);

// The calls of describecluster's second round: places_calls of the view's endpoints, then replication_calls
// of its keyspaces.
std::vector<JolokiaCall> describe_second_calls(const DescribeView& view);

// From the view and the answers of describe_second_calls(view), what parse_nodetool_describecluster reads
// from nodetool's output: schema versions with their endpoints as nodetool prints them (without the port,
// nodes it could not ask under UNREACHABLE), the counts, the DCs (sorted, with their endpoints and those
// unreachable), the database versions (with the port), the keyspaces in StorageService's order with their
// replication (parse_replication of getKeyspaceReplicationInfo). No ownership note (see make_cluster_status).
// Fails on a refused replication (a keyspace dropped between the rounds: the next read has it right).
Result<ClusterDescription, JolokiaError> make_cluster_description(const DescribeView& view,
                                                                  std::span<const JolokiaValue> second);

}  // namespace cla
