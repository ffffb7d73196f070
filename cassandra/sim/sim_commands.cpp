// nodetool-sim's subcommands: real nodetool 4.1 output, error streams and exit codes over the cluster model.
#include "cassandra/sim/sim_commands.hpp"

#include <algorithm>
#include <array>
#include <string_view>

#include "cassandra/sim/sim_output.hpp"
#include "cassandra/sim/sim_schema.hpp"
#include "cassandra/sim/sim_schema_output.hpp"

namespace cla {

namespace {

constexpr std::array<std::string_view, 15> kNodetool{"status",
                                                     "info",
                                                     "statusbinary",
                                                     "statusgossip",
                                                     "disablebinary",
                                                     "enablebinary",
                                                     "disablegossip",
                                                     "enablegossip",
                                                     "drain",
                                                     "describecluster",
                                                     "ring",
                                                     "describering",
                                                     "tpstats",
                                                     "listpendinghints",
                                                     "getmaxhintwindow"};
constexpr std::array<std::string_view, 4> kLifecycle{"joined", "restart", "start", "stop"};

constexpr std::string_view kSeeHelp = "See 'nodetool help' or 'nodetool help <command>'.\n";

// nodetool's answer to an IllegalStateException thrown by Cassandra: stdout, exit 1.
SimReply refused(std::string_view message) {
  return SimReply{1, "nodetool: " + std::string(message) + "\n" + std::string(kSeeHelp), ""};
}

SimReply set_flag(bool& flag, bool value, bool& changed) {
  changed = changed || flag != value;
  flag = value;
  return {};
}

void start_process(SimNode& node, std::int64_t now_unix, bool& changed) {
  node.completed_tasks = 0;  // a new process counts from zero, from its start
  node.tasks_counted_at = now_unix;
  node.gossip_stopped_at = 0;
  node.running = node.gossip = node.binary = true;
  node.drained = false;
  node.generation = now_unix;
  changed = true;
}

}  // namespace

bool is_nodetool_subcommand(const std::string& name) {
  return std::find(kNodetool.begin(), kNodetool.end(), name) != kNodetool.end();
}

bool is_lifecycle_subcommand(const std::string& name) {
  return std::find(kLifecycle.begin(), kLifecycle.end(), name) != kLifecycle.end();
}

bool is_read_only_subcommand(const std::string& name) {
  return name == "status" || name == "info" || name == "statusbinary" || name == "statusgossip" ||
         name == "describecluster" || name == "ring" || name == "describering" || name == "tpstats" ||
         name == "listpendinghints" || name == "getmaxhintwindow";
}

namespace {

template <class Node>
auto find_fault(Node& node, const std::string& subcommand) {
  auto it = node.faults.find(subcommand);
  if (it == node.faults.end() && is_nodetool_subcommand(subcommand)) it = node.faults.find("*");
  return it;
}

}  // namespace

const SimFault* fault_for(const SimNode& node, const std::string& subcommand) {
  const auto it = find_fault(node, subcommand);
  return it == node.faults.end() ? nullptr : &it->second;
}

std::optional<SimFault> take_fault(SimNode& node, const std::string& subcommand) {
  const auto it = find_fault(node, subcommand);
  if (it == node.faults.end()) return std::nullopt;
  SimFault fault = it->second;
  if (it->second.times && --*it->second.times <= 0) node.faults.erase(it);
  return fault;
}

SimReply fault_reply(const SimFault& fault) {
  SimReply reply{fault.exit_code.value_or(1), fault.stdout_text, fault.stderr_text};
  if (fault.signal) {
    reply.signal = *fault.signal;
    reply.exit_code = 128 + *fault.signal;
    return reply;
  }
  if (reply.out.empty() && reply.err.empty()) {
    if (reply.exit_code == 2)
      reply.err =
          "error: injected fault (nodetool-sim)\n-- StackTrace --\n"
          "java.lang.RuntimeException: injected fault (nodetool-sim)\n";
    else
      reply.out = "nodetool: injected fault (nodetool-sim)\n" + std::string(kSeeHelp);
  }
  return reply;
}

namespace {

SimReply run_sim_command(SimCluster& cluster, const SimNodeRef& ref, const std::string& subcommand,
                         const std::vector<std::string>& args, std::int64_t now_unix, bool& changed) {
  SimNode& node = *ref.node;
  const bool known = is_nodetool_subcommand(subcommand) || is_lifecycle_subcommand(subcommand);
  if (known && subcommand == "describering" && args.empty())
    return SimReply{1, "nodetool: Required parameters are missing: keyspace\n" + std::string(kSeeHelp), ""};
  if (!known || args.size() > (subcommand == "describering" ? 1u : 0u)) {
    std::string unexpected = known ? "" : subcommand;
    for (const auto& arg : args) unexpected += (unexpected.empty() ? "" : ", ") + arg;
    return SimReply{
        1, "nodetool: Found unexpected parameters: [" + unexpected + "]\n" + std::string(kSeeHelp), ""};
  }
  if (subcommand == "restart" || (subcommand == "start" && !node.running)) {
    start_process(node, now_unix, changed);
    return {};
  }
  if (subcommand == "start") return {};
  if (subcommand == "joined") {  // its join (or move, or leave) is over: a normal member of the ring
    changed = changed || node.ring_state != 'N';
    node.ring_state = 'N';
    return {};
  }
  if (subcommand == "stop") {
    count_sim_tasks(node, now_unix);
    return set_flag(node.running, false, changed);
  }
  if (!node.running)
    return SimReply{1, "",
                    "nodetool: Failed to connect to '" + node.address +
                        ":7199' - ConnectException: 'Connection refused'.\n"};

  if (subcommand == "status") return SimReply{0, format_status(cluster, node.address), ""};
  if (subcommand == "info") return SimReply{0, format_info(ref, now_unix), ""};
  if (subcommand == "describecluster")
    return SimReply{0, format_describecluster(sim_describecluster(cluster, node.address)), ""};
  if (subcommand == "ring") return SimReply{0, format_ring(sim_ring(cluster, node.address)), ""};
  if (subcommand == "describering") {
    if (auto ring = sim_describering(cluster, node.address, args[0]))
      return SimReply{0, format_describering(*ring), ""};
    const auto described = sim_describecluster(cluster, node.address);
    const std::string message = "There is no ring for the keyspace: " + args[0];
    return SimReply{2, "Schema Version:" + described.reachable_schema_versions().front() + "\nTokenRange: \n",
                    "error: " + message + "\n-- StackTrace --\njava.io.IOException: " + message + "\n"};
  }
  if (subcommand == "tpstats") {
    count_sim_tasks(node, now_unix);
    changed = true;
    return SimReply{0, format_tpstats(node), ""};
  }
  if (subcommand == "listpendinghints")
    return SimReply{0, format_listpendinghints(cluster, node, now_unix), ""};
  if (subcommand == "getmaxhintwindow")
    return SimReply{0, "Current max hint window: " + std::to_string(node.max_hint_window_ms) + " ms\n", ""};
  if (subcommand == "statusbinary") return SimReply{0, node.binary ? "running\n" : "not running\n", ""};
  if (subcommand == "statusgossip") return SimReply{0, node.gossip ? "running\n" : "not running\n", ""};
  if (subcommand == "disablebinary") return set_flag(node.binary, false, changed);
  if (subcommand == "enablebinary") {
    if (node.drained) return refused("Unable to start native transport because the node was drained.");
    return set_flag(node.binary, true, changed);
  }
  if (subcommand == "disablegossip") {
    if (node.drained)
      return refused(
          "Unable to stop gossip because the node is not in the normal state. Try to stop the node instead.");
    count_sim_tasks(node, now_unix);
    if (node.gossip) node.gossip_stopped_at = now_unix;
    return set_flag(node.gossip, false, changed);
  }
  if (subcommand == "enablegossip") {
    if (node.drained) return refused("Unable to start gossip because the node was drained.");
    count_sim_tasks(node, now_unix);
    return set_flag(node.gossip, true, changed);
  }
  // drain: a second drain returns at once (Cassandra only logs a warning).
  count_sim_tasks(node, now_unix);
  if (!node.drained) {
    node.binary = node.gossip = false;
    node.drained = changed = true;
  }
  return {};
}

}  // namespace

// The hints model's clock (sim_cluster.hpp): a change of the node's liveness as its peers see it.
SimReply execute_sim_command(SimCluster& cluster, const SimNodeRef& ref, const std::string& subcommand,
                             const std::vector<std::string>& args, std::int64_t now_unix, bool& changed) {
  SimNode& node = *ref.node;
  const bool was_up = seen_up_by_others(node);
  SimReply reply = run_sim_command(cluster, ref, subcommand, args, now_unix, changed);
  const bool up = seen_up_by_others(node);
  if (was_up && !up) {
    node.down_since = now_unix;
    changed = true;
  } else if (!was_up && up && node.down_since) {
    node.back_at = now_unix;
    node.back_out_s = now_unix - node.down_since;
    node.down_since = 0;
    changed = true;
  }
  return reply;
}

}  // namespace cla
