// What a node holds for its peers (SPEC 3.10): its pending hints per target host, and its hint window.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
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

// Host id -> closed hints files: what a member key publishes (hints_for) and the gate counts.
inline std::map<std::string, std::int64_t> files_by_host(const PendingHintsList& hints) {
  std::map<std::string, std::int64_t> out;
  for (const auto& h : hints) out[h.host_id] = h.total_files;
  return out;
}

}  // namespace cla
