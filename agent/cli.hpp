// The command line (SPEC 2.2): --config FILE, --check, --dry-run, --help, --version, and the exit codes.
#pragma once

#include <string>

#include "state/result.hpp"

namespace cla {

inline constexpr int kExitClean = 0;  // clean stop, or --check/--help/--version done
inline constexpr int kExitFatal = 1;  // fatal runtime error
inline constexpr int kExitUsage = 2;  // usage or configuration error

enum class CliAction { run, check, help, version, fleet };

struct CliOptions {
  CliAction action = CliAction::run;
  std::string config_path;  // set for run and check
  bool dry_run = false;
  bool json = false;  // fleet --json
};

// A usage error is one line saying what is wrong (the caller adds "try --help").
Result<CliOptions> parse_cli(int argc, char** argv);

std::string help_text();
std::string version_text();  // "cassandra-lifecycle-agent X.Y.Z"

}  // namespace cla
