// Parser for `nodetool getmaxhintwindow` stdout: the node's hint window (SPEC 3.10), pure, never throws.
#pragma once

#include <chrono>
#include <string_view>

#include "state/result.hpp"

namespace cla {

// Cassandra 4.0-5.0 print one line, "Current max hint window: 10800000 ms" (GetMaxHintWindow.java: the
// int of StorageProxy's MaxHintWindow). Anything else (another line, no number, a negative or unreadable
// number, a second non-blank line) is an error quoting the line.
Result<std::chrono::milliseconds> parse_getmaxhintwindow(std::string_view stdout_text);

}  // namespace cla
