// Parser for `nodetool listpendinghints` stdout: the hints this node holds per target host (SPEC 3.10), pure,
// never throws.
#pragma once

#include <string_view>

#include "state/pending_hints.hpp"
#include "state/result.hpp"

namespace cla {

// Cassandra 4.1-5.0 (ListPendingHints.java) print either the one line "This node does not have any pending
// hints" (an empty list), or a table (nodetool's TableBuilder: every cell left-aligned and padded to its
// column's widest, one space between columns) under the header
//   Host ID  Address  Rack  DC  Status  Total files  Newest  Oldest
// with one row per target host, in Cassandra's order. Kept of each row: the host id (a UUID), Total files,
// and Newest and Oldest, printed as "yyyy-MM-dd HH:mm:ss,SSS" in UTC from epoch milliseconds, which they are
// turned back into exactly. Address, Rack, DC and Status (looked up by nodetool, "Unknown" or blank for a
// host it cannot place) are not kept. Columns are found at their header's positions, so cells may hold
// spaces. Anything else (no such line or header, a row not aligned to the header, a cell that is not a UUID,
// a count or such a time) is an error quoting the line.
Result<PendingHintsList> parse_listpendinghints(std::string_view stdout_text);

}  // namespace cla
