// nodetool-sim: a stand-in for Cassandra's nodetool over a simulated cluster kept in a JSON file (SPEC 6).
#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <ctime>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "cassandra/sim/sim_call.hpp"
#include "cassandra/sim/sim_cluster_json.hpp"
#include "cassandra/sim/sim_store.hpp"

namespace {

constexpr const char* kHelp =
    R"help(nodetool-sim: a stand-in for Cassandra's nodetool over a simulated cluster (tests, demos).

Usage:
  nodetool-sim --cluster FILE --node ADDRESS [--call-log PATH] SUBCOMMAND
  nodetool-sim --init-cluster FILE [--dcs dc1,dc2] [--racks 3] [--nodes-per-rack 3]
               [--base-address 127.0.1.] [--tokens 16] [--call-log PATH]
               [--no-default-keyspaces] [--keyspace NAME:SPEC]...
  nodetool-sim --help

Like nodetool, its own options come first, then the subcommand, so an agent can be configured with
  "nodetool": ["nodetool-sim", "--cluster", "/tmp/cluster.json", "--node", "127.0.1.1"]
and append the subcommand. ADDRESS says which node the call runs on (real nodetool's JMX host).

Subcommands (output, streams and exit codes as Cassandra 4.1's nodetool):
  status                      every DC, rows in a stable but unsorted order; this node always shows
                              itself U; others show DN when stopped, gossip disabled or drained
  info                        ID, Gossip active, Native Transport active, Data Center, Rack, ...
  statusbinary, statusgossip  "running" / "not running"
  disablebinary, enablebinary, disablegossip, enablegossip
  drain                       binary and gossip off for good: enable* and disablegossip are refused
                              (stdout, exit 1) until a restart; a second drain does nothing
  describecluster             (5.0's layout) schema versions (UNREACHABLE for the nodes this node sees
                              down), node counts (joining/leaving/moving from ring_state), DCs, keyspaces
  ring                        (5.0's layout) every token of every node per DC, Up/Down as this node sees
                              them, effective ownership when the non-system keyspaces agree
  describering KEYSPACE       (5.0's layout) each range's replicas as Cassandra places them; a keyspace
                              without a ring (LocalStrategy, unknown): exit 2, "There is no ring ..."
Simulator-only lifecycle commands (what an agent's restart_command would call):
  restart   the Cassandra process restarted: running, gossip and binary on, not drained
  stop      the process stopped: every nodetool call on this node gets "Connection refused" (exit 1)
  start     like restart when stopped, nothing when running
  joined    its join (or move, or leave) is over: a normal member of the ring (ring_state N)
A subcommand nodetool does not have: "nodetool: Found unexpected parameters: [...]" on stdout, exit 1.
nodetool-sim's own problems (bad options, unreadable cluster file, unknown node): "nodetool-sim: ..." on
stderr, exit 2.

Cluster file (JSON; written back after every change, under flock(2), through temp file + rename):
  {
    "replication_factor": 3,            (optional, 3: only for the "Owns (effective)" column)
    "ownership_unavailable": false,     (optional: true prints "Owns", "?" and the "Note:" trailer)
    "call_log": "calls.jsonl",          (optional; relative to the cluster file's directory)
    "cluster_name": "cla-sim",          (optional)
    "keyspaces": [                      (optional; absent: the --init-cluster defaults below)
      {"name": "lifecycle", "class": "NetworkTopologyStrategy", "replication": {"dc1": 3}},
      {"name": "system_auth", "class": "SimpleStrategy", "replication": {"replication_factor": 1}}],
    "datacenters": [
      {"name": "dc1", "racks": [
        {"name": "rack1", "nodes": [
          {"address": "127.0.1.1",      (required, unique)
           "host_id": "...", "load": "1.13 TiB", "tokens": 16,      (optional, derived from the address)
           "running": true, "gossip": true, "binary": true, "drained": false,   (optional, as shown)
           "ring_state": "N",           (optional: N, L (leaving), J (joining), M (moving))
           "generation": 1718031234,    (optional: unix time of the last start)
           "ring_tokens": ["-9223372036854775808", ...],   (optional: its tokens; else generated,
                                        evenly spaced, DCs and racks interleaved, "tokens" of them)
           "schema_version": "...",     (optional: a version of its own, a schema disagreement)
           "faults": {                  (optional: per subcommand, or "*" for every nodetool subcommand)
             "disablegossip": {"exit_code": 2, "stderr": "error: ...\n", "stdout": "",
                               "latency_ms": 500, "times": 1}}}
        ]}
      ]}
    ]
  }
  A fault with an exit_code (0 too) prints its stdout/stderr (nodetool-like text when both are empty) and
  exits with it, changing nothing; one with a "signal" (1..31) prints them and dies of that signal,
  changing nothing; without either it only delays the command. "times" counts down and the
  fault disappears at 0; without "times" it stays. Latency is slept outside the file lock.

Call log: every call appends {"t": "...Z", "node": ADDRESS, "subcommand": ..., "exit_code": N} as one
JSON line to --call-log PATH, else to the cluster file's "call_log".

--init-cluster writes a fresh cluster, every node up: DCs from --dcs (comma-separated), racks rack1..N,
addresses base-address + 1, 2, ... across all DCs (a base of three dotted octets, as the default, counts on
as IPv4 addresses past .254 into the next /24: 127.0.1.254, 127.0.2.1, ...; never .0 or .255), host ids
and loads derived from the addresses, and the
keyspaces of a fresh Cassandra 5.0 with the project's own: system_traces (SimpleStrategy 2),
system_distributed (3), system_auth (1), lifecycle (NetworkTopologyStrategy dc1: 3), system_schema and
system (LocalStrategy). --no-default-keyspaces keeps only the two LocalStrategy ones; each --keyspace adds
one or replaces the one of its name: NAME:simple:N, NAME:nts:dc1=N,dc2=N (N or N/T), NAME:local,
NAME:everywhere.
)help";

struct Options {
  std::map<std::string, std::string> values;  // --name -> value
  std::vector<std::string> keyspaces;         // every --keyspace, in order
  std::string subcommand;
  std::vector<std::string> args;
};

const std::vector<std::string> kValueOptions{"--cluster", "--node",    "--call-log",       "--init-cluster",
                                             "--dcs",     "--racks",   "--nodes-per-rack", "--base-address",
                                             "--tokens",  "--keyspace"};
const std::vector<std::string> kFlagOptions{"--help", "--no-default-keyspaces"};

int sim_error(const std::string& message) {
  std::cerr << "nodetool-sim: " << message << "\n";
  return 2;
}

bool parse_options(int argc, char** argv, Options& options, std::string& error) {
  int i = 1;
  for (; i < argc && std::string_view(argv[i]).starts_with("--"); ++i) {
    std::string name = argv[i], value;
    if (const auto eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name.resize(eq);
    } else if (std::find(kFlagOptions.begin(), kFlagOptions.end(), name) == kFlagOptions.end()) {
      if (i + 1 >= argc) return (error = name + " needs a value"), false;
      value = argv[++i];
    }
    if (std::find(kFlagOptions.begin(), kFlagOptions.end(), name) == kFlagOptions.end() &&
        std::find(kValueOptions.begin(), kValueOptions.end(), name) == kValueOptions.end())
      return (error = "unknown option " + name + " (see --help)"), false;
    if (name == "--keyspace") options.keyspaces.push_back(value);
    options.values[name] = value;
  }
  if (i < argc) options.subcommand = argv[i++];
  options.args.assign(argv + i, argv + argc);
  return true;
}

int init_cluster(const Options& options) {
  cla::SimInitOptions init;
  auto get = [&](const std::string& name) {
    return options.values.count(name) ? options.values.at(name) : "";
  };
  if (auto dcs = get("--dcs"); !dcs.empty()) {
    init.datacenters.clear();
    for (std::size_t start = 0; start <= dcs.size();) {
      const auto end = std::min(dcs.find(',', start), dcs.size());
      if (end > start) init.datacenters.push_back(dcs.substr(start, end - start));
      start = end + 1;
    }
    if (init.datacenters.empty()) return sim_error("--dcs names no datacenter");
  }
  for (auto [name, target] :
       {std::pair{"--racks", &init.racks}, std::pair{"--nodes-per-rack", &init.nodes_per_rack},
        std::pair{"--tokens", &init.tokens}})
    if (auto text = get(name); !text.empty()) {
      char* end = nullptr;
      const long value = std::strtol(text.c_str(), &end, 10);
      if (*end != '\0' || value < 1 || value > 1000) return sim_error(std::string(name) + " must be 1..1000");
      *target = static_cast<int>(value);
    }
  if (options.values.count("--base-address")) init.base_address = get("--base-address");
  const int nodes = static_cast<int>(init.datacenters.size()) * init.racks * init.nodes_per_rack;
  if (!cla::sim_node_address(init.base_address, nodes))
    return sim_error("--base-address " + init.base_address + ": " + std::to_string(nodes) +
                     " nodes run past 255.255.255.254");
  init.keyspaces = cla::default_sim_keyspaces();
  if (options.values.count("--no-default-keyspaces"))
    std::erase_if(init.keyspaces,
                  [](const cla::SimKeyspace& ks) { return ks.replication.kind != cla::StrategyKind::local; });
  for (const auto& text : options.keyspaces) {
    auto keyspace = cla::parse_sim_keyspace_option(text);
    if (!keyspace) return sim_error(keyspace.error().message);
    const auto same = std::find_if(init.keyspaces.begin(), init.keyspaces.end(),
                                   [&](const cla::SimKeyspace& ks) { return ks.name == keyspace->name; });
    if (same != init.keyspaces.end())
      *same = std::move(keyspace.value());
    else  // before the LocalStrategy ones, as describecluster lists user keyspaces
      init.keyspaces.insert(std::find_if(init.keyspaces.begin(), init.keyspaces.end(),
                                         [](const cla::SimKeyspace& ks) {
                                           return ks.replication.kind == cla::StrategyKind::local;
                                         }),
                            std::move(keyspace.value()));
  }
  init.call_log = get("--call-log");
  const auto cluster = cla::make_sim_cluster(init, static_cast<std::int64_t>(std::time(nullptr)));
  const std::string path = get("--init-cluster");
  if (auto written = cla::write_file_atomically(path, cla::serialize_sim_cluster(cluster)); !written)
    return sim_error(written.error().message);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  if (std::string error; !parse_options(argc, argv, options, error)) return sim_error(error);
  if (options.values.count("--help")) {
    std::cout << kHelp;
    return 0;
  }
  if (options.values.count("--init-cluster")) return init_cluster(options);
  if (!options.values.count("--cluster") || !options.values.count("--node") || options.subcommand.empty())
    return sim_error("usage: nodetool-sim --cluster FILE --node ADDRESS SUBCOMMAND (see --help)");
  const cla::SimReply reply =
      cla::run_sim_call(options.values["--cluster"], options.values["--node"], options.values["--call-log"],
                        options.subcommand, options.args);
  std::cout << reply.out << std::flush;
  std::cerr << reply.err << std::flush;
  if (reply.signal != 0) {
    std::signal(reply.signal, SIG_DFL);
    std::raise(reply.signal);
  }
  return reply.exit_code;
}
