// nodetool-sim's behaviour: what each subcommand prints and does to the simulated cluster. Pure (no I/O).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cassandra/sim/sim_cluster.hpp"

namespace cla {

struct SimReply {
  int exit_code = 0;
  std::string out, err;
  int signal = 0;  // not 0: the process dies of it after printing (exit_code is then 128 + signal)
};

// nodetool subcommands the simulator implements (status, info, statusbinary, ..., drain).
bool is_nodetool_subcommand(const std::string& name);
// Simulator-only lifecycle commands: restart, start, stop.
bool is_lifecycle_subcommand(const std::string& name);

// Subcommands that never change the cluster: status, info, statusbinary, statusgossip.
bool is_read_only_subcommand(const std::string& name);

// The fault that applies to this subcommand (its own entry, else "*" for nodetool subcommands), or null.
const SimFault* fault_for(const SimNode& node, const std::string& subcommand);

// The fault for this call, consuming one of its `times` (a fault whose times reach 0 is removed): the
// subcommand's own entry, else "*" (which applies to nodetool subcommands only, never to lifecycle ones).
std::optional<SimFault> take_fault(SimNode& node, const std::string& subcommand);

// The reply of a fault with an exit code: its stdout/stderr, or nodetool-like defaults when both are empty.
SimReply fault_reply(const SimFault& fault);

// Runs one subcommand as `node`; `changed` tells whether the cluster must be written back.
// Semantics follow Cassandra 4.1: a stopped node refuses the JMX connection; drain stops binary and gossip
// for good (enable* and disablegossip are refused until a restart, a second drain is a no-op).
SimReply execute_sim_command(SimCluster& cluster, const SimNodeRef& node, const std::string& subcommand,
                             const std::vector<std::string>& args, std::int64_t now_unix, bool& changed);

}  // namespace cla
