// Parser for `nodetool statusbinary` / `statusgossip` stdout: exactly "running" or "not running".
#pragma once

#include <string_view>

#include "state/result.hpp"

namespace cla {

// true for "running", false for "not running" (whole trimmed output); anything else is an error quoting it.
// A substring test would be wrong: "not running" contains "running".
Result<bool> parse_running(std::string_view stdout_text);

}  // namespace cla
