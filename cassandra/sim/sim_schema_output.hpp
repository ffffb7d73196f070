// What nodetool 5.0 prints for `describecluster`, `ring` and `describering`, from the values the agent's
// parsers read: the layouts of Cassandra 5.0.9 (tests/data/cassandra/real-5.0/placement/), byte for byte in
// layout.
#pragma once

#include <string>

#include "cassandra/nodetool_output/describecluster_parser.hpp"
#include "cassandra/nodetool_output/describering_parser.hpp"
#include "cassandra/nodetool_output/ring_parser.hpp"

namespace cla {

// Sections as DescribeCluster prints them: tabs, a blank line after each version line, "Data Centers: " (with
// its trailing blank), the keyspaces "\tks -> Replication class: Class {k=v}", then the notes after a blank
// line. Schema versions in key order, UNREACHABLE last.
std::string format_describecluster(const ClusterDescription& description);

// A blank line, then per DC "Datacenter: X", "==========", the header and the wrap-around line (the DC's last
// token; an empty line for a DC of one token), the rows in "%-Ns  %-12s%-7s%-8s%-16s%-20s%-44s" (N: the
// longest address with its ":7000"), a blank line; the vnodes warning when set; then "\n  " and the notes,
// each ending in a newline (without notes the output ends in those two blanks, as nodetool's does).
std::string format_ring(const RingTable& table);

// "Schema Version:V", "TokenRange: " (with its trailing blank), then "\tTokenRange(...)" per range.
std::string format_describering(const DescribedRing& ring);

}  // namespace cla
