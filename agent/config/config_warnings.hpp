// What --check warns about in a valid configuration: settings the agent runs with that give something away
// or that it would refuse at start.
#pragma once

#include <string>
#include <vector>

#include "agent/config/config.hpp"

namespace cla {

struct ConfigWarning {
  std::string path;  // the key path, e.g. `cassandra.nodetool[3]`
  std::string what;
};

// The JMX password on nodetool's command line (`-pw`/`--password`, with its value apart or after `=`), and a
// state directory or state file the daemon would refuse (check_state_location, its owner left to the start:
// --check may run as another user than the agent), and etcd password auth over a plain http:// endpoint that
// is not loopback. Reads the state directory's metadata.
std::vector<ConfigWarning> config_warnings(const Config& config);

// `config warning: <file>: <key.path>: <what>`, on one line.
std::string format_config_warning(const std::string& file, const ConfigWarning& warning);

}  // namespace cla
