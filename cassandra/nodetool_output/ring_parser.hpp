// Parser for `nodetool ring` stdout (every token of every node, per datacenter): pure, never throws.
#pragma once

#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "state/result.hpp"

namespace cla {

struct RingRow {
  std::string datacenter, address, rack;
  std::string status;  // "Up", "Down" or "?"
  std::string state;   // "Normal", "Joining", "Leaving" or "Moving"
  std::string load;    // as printed: "96.5 KiB" or "?"
  std::string owns;    // as printed: "33.33%" or "?"
  std::string token;   // as printed
  friend bool operator==(const RingRow&, const RingRow&) = default;
};
std::ostream& operator<<(std::ostream& os, const RingRow& row);

struct RingTable {
  std::vector<RingRow> rows;       // in output order: by DC, then by token
  std::vector<std::string> notes;  // "Note: ..." lines (ownership), as printed
  bool vnodes_warning = false;     // the "nodetool ring is used to output all the tokens" warning was printed
  friend bool operator==(const RingTable&, const RingTable&) = default;
};
std::ostream& operator<<(std::ostream& os, const RingTable& table);

// A row is read from both ends: the address first, then from the right the token, owns, load (a number and a
// unit, or "?"), state and status; the rack is what lies between, so padding and wide cells do not matter (a
// rack of 12 characters or more, which nodetool prints glued to the status, "fault-domain-1Up", is split off
// it). The line under each header holding only the DC's last token (the ring's wrap-around) is skipped. Fails
// on output without a "Datacenter:" section or without a row, an "Error:" line, a row before its header, or a
// cell out of its set.
Result<RingTable> parse_nodetool_ring(std::string_view stdout_text);

}  // namespace cla
