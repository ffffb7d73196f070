// One nodetool-sim call: read-modify-write under the file lock, fault latency slept outside it, call log.
#include "cassandra/sim/sim_call.hpp"

#include <chrono>
#include <ctime>
#include <filesystem>
#include <optional>
#include <thread>

#include "cassandra/sim/sim_store.hpp"

namespace cla {

namespace {

SimReply sim_failure(const std::string& message) {
  return SimReply{2, "", "nodetool-sim: " + message + "\n"};
}

std::string resolve_call_log(const std::string& cluster_path, const std::string& call_log) {
  if (call_log.empty() || call_log.front() == '/') return call_log;
  return (std::filesystem::path(cluster_path).parent_path() / call_log).string();
}

// One locked session: finds the node, then lets `step` work on it; saves when step reports a change.
// Fills an empty call_log from the file first, so even a call naming an unknown node is logged.
template <class Step>
std::optional<SimReply> with_node(const std::string& cluster_path, const std::string& address,
                                  std::string& call_log, Step step) {
  auto file = LockedClusterFile::open(cluster_path);
  if (!file) return sim_failure(file.error().message);
  if (call_log.empty()) call_log = resolve_call_log(cluster_path, file->cluster().call_log);
  auto ref = find_node(file->cluster(), address);
  if (!ref) return sim_failure("no node with address " + address + " in " + cluster_path);
  bool changed = false;
  std::optional<SimReply> reply = step(file->cluster(), *ref, changed);
  if (changed)
    if (auto saved = file->save(); !saved) return sim_failure(saved.error().message);
  return reply;
}

// A read-only subcommand with no fault to apply, answered from a snapshot read without the lock, so that many
// nodes' gate checks (status, info) never queue behind each other or behind a writer. Empty when the call
// must take the locked path: the snapshot is unreadable or invalid, the node unknown (the locked path reports
// both), or a fault applies (a counted one is used up and saved).
std::optional<SimReply> answer_from_snapshot(const std::string& cluster_path, const std::string& address,
                                             std::string& call_log, const std::string& subcommand,
                                             const std::vector<std::string>& args, std::int64_t now_unix) {
  if (!is_read_only_subcommand(subcommand)) return std::nullopt;
  auto cluster = read_cluster_snapshot(cluster_path);
  if (!cluster) return std::nullopt;
  auto ref = find_node(*cluster, address);
  if (!ref || fault_for(*ref->node, subcommand)) return std::nullopt;
  if (call_log.empty()) call_log = resolve_call_log(cluster_path, cluster->call_log);
  bool changed = false;
  return execute_sim_command(*cluster, *ref, subcommand, args, now_unix, changed);
}

}  // namespace

SimReply run_sim_call(const std::string& cluster_path, const std::string& address,
                      const std::string& call_log_override, const std::string& subcommand,
                      const std::vector<std::string>& args) {
  const auto now = [] { return static_cast<std::int64_t>(std::time(nullptr)); };
  std::string call_log = call_log_override;
  std::optional<SimFault> fault;
  auto first = answer_from_snapshot(cluster_path, address, call_log, subcommand, args, now());
  if (!first)
    first =
        with_node(cluster_path, address, call_log, [&](SimCluster& cluster, SimNodeRef& ref, bool& changed) {
          fault = take_fault(*ref.node, subcommand);
          changed = fault && fault->times;  // a counted fault was used up by one: save that
          std::optional<SimReply> reply;
          if (fault && fault->latency_ms > 0) return reply;  // answered after the delay, outside the lock
          if (fault && (fault->exit_code || fault->signal)) return reply = fault_reply(*fault);
          return reply = execute_sim_command(cluster, ref, subcommand, args, now(), changed);
        });
  SimReply reply;
  if (first) {
    reply = *first;
  } else {
    std::this_thread::sleep_for(std::chrono::milliseconds(fault->latency_ms));
    if (fault->exit_code || fault->signal) {
      reply = fault_reply(*fault);
    } else {
      reply = *with_node(cluster_path, address, call_log,
                         [&](SimCluster& cluster, SimNodeRef& ref, bool& changed) {
                           return std::optional<SimReply>(
                               execute_sim_command(cluster, ref, subcommand, args, now(), changed));
                         });
    }
  }
  if (!call_log.empty())
    if (auto logged =
            append_call_log(call_log, std::chrono::system_clock::now(), address, subcommand, reply.exit_code);
        !logged)
      reply.err += "nodetool-sim: " + logged.error().message + "\n";
  return reply;
}

}  // namespace cla
