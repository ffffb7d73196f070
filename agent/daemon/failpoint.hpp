// Failpoints (as etcd's gofail and TiKV's fail-rs): named places in the shell where a test makes the agent
// throw, to prove that an exception wedges nothing. Inert unless the environment variable CLA_FAILPOINTS
// names them (comma-separated; NAME:once throws at the first pass only), which the agent logs at start
// (failpoints_enabled) so that it is never on unnoticed. The places: schema_refresh, watcher_step,
// gate_check.
#pragma once

#include <string>
#include <string_view>

namespace cla {

// The failpoints CLA_FAILPOINTS names, as given; empty when unset.
const std::string& enabled_failpoints();

// Throws std::runtime_error("failpoint NAME") when CLA_FAILPOINTS names `name` (once, for NAME:once).
void failpoint(std::string_view name);

}  // namespace cla
