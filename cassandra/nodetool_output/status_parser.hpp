// Parser for `nodetool status` stdout (Cassandra 2.x fixed-width, 4.x/5.x TableBuilder layouts): pure, never
// throws.
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "state/result.hpp"

namespace cla {

struct StatusRow {
  std::string datacenter;
  char status = '?';  // U, D or ?
  char state = '?';   // N, L, J or M
  std::string address;
  std::string load;     // as printed, e.g. "1.13 TiB" or "?"
  std::string host_id;  // "" when nodetool printed no host id
  std::string rack;
  bool up_normal() const { return status == 'U' && state == 'N'; }
  friend bool operator==(const StatusRow&, const StatusRow&) = default;
};
std::ostream& operator<<(std::ostream& os, const StatusRow& row);

struct ClusterStatus {
  std::vector<StatusRow> rows;      // in output order (which is NOT sorted by anything)
  std::optional<std::string> note;  // text after "Note: " (ownership unavailable), if any
  friend bool operator==(const ClusterStatus&, const ClusterStatus&) = default;
};
std::ostream& operator<<(std::ostream& os, const ClusterStatus& status);

// Columns are located from each section's header line; rows are read field by field in that order, so
// values overflowing a fixed-width 3.x column still parse. Fails on output with no "Datacenter:" section,
// a header with an unknown column, or a row that cannot be read (the message names the line).
Result<ClusterStatus> parse_nodetool_status(std::string_view stdout_text);

}  // namespace cla
