// The real suite's Cassandra: one 3-node cluster (scripts/cassandra-cluster.sh --jolokia; with CLA_REAL_DCS=2
// six nodes in two DCs) for the whole test binary, on 127.0.0.11.. (CLA_REAL_FIRST_HOST moves them) under the
// build dir so it cannot collide with a developer's cluster, and helpers to read every node's view and to
// bring a node back after a case.
#pragma once

#include <atomic>
#include <boost/json/object.hpp>
#include <chrono>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "imds/process/process_runner.hpp"
#include "state/scheduled_event.hpp"

namespace cla::test::real {

// Node K (1..nodes(), rack (K-1)%3+1 of its DC) listens on 127.0.0.(first_host() - 1 + K): 11 unless
// CLA_REAL_FIRST_HOST says otherwise (so that two worktrees' real suites can run at once).
int first_host();
// The cluster's DCs: 1, or 2 with CLA_REAL_DCS=2 (cassandra-cluster.sh start --nodes 6 --dcs 2: dc1 on nodes
// 1-3, dc2 on nodes 4-6, every keyspace at {dc1: 3, dc2: 3}); 3 nodes a DC.
int datacenters();
int nodes();
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

// cassandra-cluster.sh status's line of node K: address, rack, jmx_port, pid, state, and with --jolokia its
// jolokia_url, jolokia_user, jolokia_password_file.
boost::json::object status_line(int k);
// cassandra-cluster.sh ARGS... to completion (bounded by `limit`).
CommandOutcome cluster(std::vector<std::string> args, std::chrono::seconds limit = std::chrono::seconds(300));
CommandOutcome nodetool(const std::string& address, const std::string& subcommand);

// What `viewer`'s nodetool status says of `node`: "UN", "DN", ... ("" when nodetool failed or omits it).
std::string seen_as(const std::string& viewer, const std::string& node);
bool up_in_every_view();  // every node UN in every node's view
// True when both statusgossip and statusbinary answer "running".
bool serving(const std::string& address);
// The thread that last opened node K's CQL port, from its system.log ("Starting listening for CQL clients"):
// "main" when Cassandra opened it while starting, an "RMI TCP Connection(...)" thread when `nodetool
// enablebinary` did; "" when the log has no such line.
std::string cql_opened_by(int k);

// Fails the test (with nodetool's summary) unless the command succeeded.
void require_ok(const CommandOutcome& out);
// Takes the node out as a drained rack is (disablebinary, disablegossip) and waits until `observer`'s
// nodetool status shows it DN.
void take_out(const std::string& address, const std::string& observer);

// Leaves the node as the next case expects: running (continued if frozen, started if down, restarted if
// drained), gossip and binary enabled, every node UN in every view. Fails the test when it cannot.
void bring_back(const std::string& address);

// What node K's JVM did, sampled every 20 ms from its pid file and /proc/<pid>/stat (the cluster script's
// own source of truth): spans of "running", "frozen" (state T) or "gone" (no process, or a zombie). The
// evidence that an impact really landed, independent of the hook that played it.
class JvmWatcher {
 public:
  struct Span {
    std::string state;
    WallTime from, to;  // `to` is the last sample in that state
    std::chrono::milliseconds length() const {
      return std::chrono::duration_cast<std::chrono::milliseconds>(to - from);
    }
  };
  explicit JvmWatcher(int k);
  ~JvmWatcher();
  JvmWatcher(const JvmWatcher&) = delete;
  JvmWatcher& operator=(const JvmWatcher&) = delete;

  std::vector<Span> spans() const;
  // The first span in `state` that began at or after `after` (the sampling interval earlier allowed).
  std::optional<Span> first(const std::string& state, WallTime after) const;
  std::string describe() const;  // every span, for a failure message

 private:
  void sample();
  std::string pid_file_;
  std::atomic<bool> stop_{false};
  mutable std::mutex mutex_;
  std::vector<Span> spans_;
  std::thread thread_;
};

// Fails the test unless `watcher` saw the JVM in `state` ("frozen" or "gone") from within `within` of
// `started` (the instant the event started) for at least `at_least`; the span found.
JvmWatcher::Span require_impact(const JvmWatcher& watcher, const std::string& state, WallTime started,
                                std::chrono::milliseconds within, std::chrono::milliseconds at_least);

}  // namespace cla::test::real

namespace cla::test::real {

// A case's fixture: after the case (passed or failed), the nodes in `touched` are brought back.
struct RealCase {
  std::vector<int> touched{1, 2, 3};
  void teardown();
};

}  // namespace cla::test::real
