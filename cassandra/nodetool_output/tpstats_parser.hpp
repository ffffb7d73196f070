// Parser for `nodetool tpstats` stdout: the replica stages' completed tasks (SPEC 3.10), pure, never throws.
#pragma once

#include <string_view>

#include "state/core_io.hpp"
#include "state/result.hpp"

namespace cla {

// The "Completed" column of the thread pool table (the section under "Pool Name ... Completed ..."), for
// ReadStage, MutationStage and CounterMutationStage. Cassandra creates a stage's executor on its first task:
// a stage not listed has completed none (0). No pool table, no "Completed" column, or a row of the table
// that is not a name and its counts, is an error quoting the line.
Result<StageCounts> parse_tpstats(std::string_view stdout_text);

}  // namespace cla
