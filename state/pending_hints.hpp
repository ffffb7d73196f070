// What a node holds for its peers (SPEC 3.10): its pending hints per target host, and its hint window.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace cla {

// What this node holds for one target host: its closed hints files, Cassandra's PendingHintsInfo
// (HintsService PendingHints, `nodetool listpendinghints`), and the hints created for the host and not
// delivered yet by the HintsService counters (Jolokia only: Hints_created-<address> minus the deliveries
// Hint_delays-<address> counted, both since this JVM started; never negative). A file being written is not
// listed until it is closed, and Cassandra closes it only once the target is alive again: the counters see
// those hints, the list does not. An entry has files, or undelivered hints, or both.
struct PendingHints {
  std::string host_id;
  std::int64_t total_files = 0;
  std::int64_t oldest_ms = 0;  // epoch milliseconds of the oldest and newest hint (0: no file listed)
  std::int64_t newest_ms = 0;
  std::int64_t undelivered = 0;
  friend bool operator==(const PendingHints&, const PendingHints&) = default;
};
using PendingHintsList = std::vector<PendingHints>;

// Host id -> closed hints files, for every host this node holds hints for (0 files: hints not in a closed
// file yet): what a member key publishes (hints_for) and the gate counts.
inline std::map<std::string, std::int64_t> files_by_host(const PendingHintsList& hints) {
  std::map<std::string, std::int64_t> out;
  for (const auto& h : hints) out[h.host_id] = h.total_files;
  return out;
}

}  // namespace cla
