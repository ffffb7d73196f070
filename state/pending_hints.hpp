// What a node holds for its peers (SPEC 3.10): its pending hints per target host, and its hint window.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace cla {

// One target host's closed hints files on this node: Cassandra's PendingHintsInfo (HintsService
// PendingHints, `nodetool listpendinghints`). A file being written is not listed until it is closed.
struct PendingHints {
  std::string host_id;
  std::int64_t total_files = 0;
  std::int64_t oldest_ms = 0;  // epoch milliseconds of the oldest and newest hint
  std::int64_t newest_ms = 0;
  friend bool operator==(const PendingHints&, const PendingHints&) = default;
};
using PendingHintsList = std::vector<PendingHints>;

}  // namespace cla
