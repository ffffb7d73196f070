// The command lines of the Cassandra JVMs on this host (SPEC 3.10: where the nodetool backend reads the
// shutdown announce's setting), from /proc/PID/cmdline.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace cla {

// The arguments of every process under `proc` whose command line runs org.apache.cassandra.service.
// CassandraDaemon; processes that vanish or cannot be read while listed are skipped. Tests point `proc` at a
// directory of their own.
std::vector<std::vector<std::string>> cassandra_command_lines(const std::filesystem::path& proc = "/proc");

}  // namespace cla
