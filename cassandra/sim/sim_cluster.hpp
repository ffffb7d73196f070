// nodetool-sim's model of a cluster: datacenters -> racks -> nodes with process/gossip/binary/drain state.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cassandra/nodetool_output/replication.hpp"

namespace cla {

// An injected failure or delay for one subcommand (or "*") of one node.
struct SimFault {
  std::optional<int> exit_code;  // absent (and no signal): latency only, then the command runs normally
  std::string stdout_text, stderr_text;
  int latency_ms = 0;
  std::optional<int> times;   // applications left; absent = forever
  std::optional<int> signal;  // the command prints its texts, then dies of this signal
};

struct SimNode {
  std::string address;
  std::string host_id;
  std::string load = "?";
  int tokens = 16;
  bool running = true;  // the Cassandra process (false: JMX connection refused)
  bool gossip = true;
  bool binary = true;
  bool drained = false;
  char ring_state = 'N';                 // N, L, J or M as nodetool status prints it
  std::int64_t generation = 0;           // unix time of the last start (Generation No, Uptime)
  std::vector<std::string> ring_tokens;  // its tokens; empty: generated (sim_schema.hpp), `tokens` of them
  std::string schema_version;            // "" = the cluster's; another plays a schema disagreement
  // The replica stages' traffic (tpstats): kSimTasksPerSecond while peers see the node up, and for
  // announce_echo_s after disablegossip (peers that marked it up again during Cassandra's shutdown
  // announce keep sending it requests); counted from the process's start (generation) up to tasks_counted_at
  // (unix seconds).
  std::int64_t completed_tasks = 0;
  std::int64_t tasks_counted_at = 0;
  std::int64_t gossip_stopped_at = 0;
  std::int64_t announce_echo_s = 0;
  // Hints (SPEC 3.10). While the node is seen down its peers write hints for it into files they do not list;
  // once it is seen up again, every running peer lists them (listpendinghints) from a second after it came
  // back (the peer must see it alive to close the file) until hint_replay_s after (0: no hints at all).
  // down_since / back_at: unix seconds of the last change as others see it; back_out_s: that outage's length.
  std::int64_t hint_replay_s = 0;
  std::int64_t down_since = 0;
  std::int64_t back_at = 0;
  std::int64_t back_out_s = 0;
  std::int64_t max_hint_window_ms = 10800000;  // getmaxhintwindow: Cassandra's default, 3 h
  std::map<std::string, SimFault> faults;
};

struct SimRack {
  std::string name;
  std::vector<SimNode> nodes;
};

struct SimDatacenter {
  std::string name;
  std::vector<SimRack> racks;
};

// A keyspace as describecluster lists it: its name and replication ("SimpleStrategy {replication_factor=1}").
struct SimKeyspace {
  std::string name;
  Replication replication;
};

struct SimCluster {
  std::vector<SimDatacenter> datacenters;
  int replication_factor = 3;          // only for the "Owns (effective)" column
  bool ownership_unavailable = false;  // print "Owns" / "?" and the Note: trailer instead
  std::string call_log;                // JSON-lines file every call is appended to ("" = none)
  std::string cluster_name = "cla-sim";
  std::vector<SimKeyspace> keyspaces;  // in describecluster's order; a file without them gets the defaults
};

struct SimNodeRef {
  SimDatacenter* datacenter = nullptr;
  SimRack* rack = nullptr;
  SimNode* node = nullptr;
};

std::optional<SimNodeRef> find_node(SimCluster& cluster, std::string_view address);

// A node seen from another node's `nodetool status`: down when stopped, gossip disabled or drained.
inline bool seen_up_by_others(const SimNode& node) {
  return node.running && node.gossip && !node.drained;
}

// Hints files a peer holds for a node that was out `out_s` seconds (one per 10 s of outage, at least one).
inline std::int64_t sim_hint_files(std::int64_t out_s) {
  return 1 + out_s / 10;
}

inline constexpr std::int64_t kSimTasksPerSecond = 150;  // ReadStage; MutationStage gets a third of it
// Brings completed_tasks up to `now_unix` (SPEC 3.10's traffic, as the model above has it).
void count_sim_tasks(SimNode& node, std::int64_t now_unix);

struct SimInitOptions {
  std::vector<std::string> datacenters{"dc1"};
  int racks = 3;
  int nodes_per_rack = 3;
  std::string base_address = "127.0.1.";  // node k (1-based, across all DCs): sim_node_address(base, k)
  int tokens = 16;
  std::string call_log;
  std::vector<SimKeyspace> keyspaces;  // empty: default_sim_keyspaces()
};

// The keyspaces of a fresh Cassandra 5.0 cluster plus the project's own, as the real cluster lists them:
// system_traces (SimpleStrategy 2), system_distributed (3), system_auth (1: the classic trap), lifecycle
// (NetworkTopologyStrategy dc1: 3), system_schema and system (LocalStrategy).
std::vector<SimKeyspace> default_sim_keyspaces();

// "NAME:simple:N", "NAME:nts:dc1=3,dc2=2" (N or N/T), "NAME:local", "NAME:everywhere" (--init-cluster
// --keyspace).
Result<SimKeyspace> parse_sim_keyspace_option(std::string_view text);

// The address --init-cluster gives node k (1-based, across all DCs): base + k, except that a base of three
// dotted octets ("127.0.1.") counts on as IPv4 addresses, .1 to .254 of each /24 in turn (127.0.1.254, then
// 127.0.2.1: never .0 or .255), so nodes 1..254 keep base + k. nullopt when that runs past 255.255.255.254.
std::optional<std::string> sim_node_address(const std::string& base, int k);

// A fresh cluster, every node up; host ids and loads derived deterministically from the addresses. Every
// node's address must exist (sim_node_address); one that does not is left empty.
SimCluster make_sim_cluster(const SimInitOptions& options, std::int64_t generation);

// What --init-cluster gives a node, also the defaults when a cluster file leaves host_id or load out.
std::string default_host_id(const std::string& address);
std::string default_load(const std::string& address);

// FNV-1a 64 bits + a finalizer: stable across builds and platforms (row order, host ids, loads).
std::uint64_t stable_hash(std::string_view text, std::uint64_t seed = 0);

}  // namespace cla
