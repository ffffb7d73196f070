// The real suite's Cassandra: one 3-node cluster (scripts/cassandra-cluster.sh) for the whole test binary,
// on 127.0.0.11..13 under the build dir so it cannot collide with a developer's cluster, and helpers to read
// every node's view and to bring a node back after a case.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "cassandra/process_runner.hpp"

namespace cla::test::real {

inline constexpr int kFirstHost = 11;  // node K (1..3, rack K) listens on 127.0.0.(10 + K)
inline constexpr int kNodes = 3;
std::string node_address(int k);   // "127.0.0.11" for k = 1
std::string cluster_script();      // <repo>/scripts/cassandra-cluster.sh
std::string impact_hook_script();  // <repo>/scripts/cluster/impact-hook.sh

// Starts the cluster (after stopping and removing whatever a crashed run left) in the process environment
// that every child inherits: CASSANDRA_CLUSTER_DIR, CASSANDRA_FIRST_HOST. Throws with the script's output
// when the cluster cannot start (no Java, Maven unreachable, a port in use): the suite fails, never skips.
struct ClusterFixture {
  ClusterFixture();
  ~ClusterFixture();
};

// cassandra-cluster.sh ARGS... to completion (bounded by `limit`).
CommandOutcome cluster(std::vector<std::string> args, std::chrono::seconds limit = std::chrono::seconds(300));
CommandOutcome nodetool(const std::string& address, const std::string& subcommand);

// What `viewer`'s nodetool status says of `node`: "UN", "DN", ... ("" when nodetool failed or omits it).
std::string seen_as(const std::string& viewer, const std::string& node);
bool up_in_every_view();  // every node UN in every node's view
// True when both statusgossip and statusbinary answer "running".
bool serving(const std::string& address);

// Leaves the node as the next case expects: running (continued if frozen, started if down, restarted if
// drained), gossip and binary enabled, every node UN in every view. Fails the test when it cannot.
void bring_back(const std::string& address);

}  // namespace cla::test::real

namespace cla::test::real {

// A case's fixture: after the case (passed or failed), the nodes in `touched` are brought back.
struct RealCase {
  std::vector<int> touched{1, 2, 3};
  void teardown();
};

}  // namespace cla::test::real
