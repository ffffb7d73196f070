// `cassandra-lifecycle-agent fleet --config FILE [--json]` (SPEC 9): reads the cluster's records from etcd
// and the pending events from IMDS, and prints them.
#pragma once

#include <ostream>

#include "agent/config/config.hpp"

namespace cla {

// Exit 0 when etcd answered (IMDS may fail: the events then come from the records), 1 when etcd could not be
// read, 2 when the config has no coordination.etcd_endpoints.
int run_fleet(const Config& config, bool json, std::ostream& out, std::ostream& err);

}  // namespace cla
