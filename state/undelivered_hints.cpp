// See undelivered_hints.hpp.
#include "state/undelivered_hints.hpp"

#include <algorithm>

namespace cla {

PendingHintsList UndeliveredHints::filter(PendingHintsList hints, SteadyTime now) {
  std::map<std::string, Seen> seen;
  for (auto& h : hints) {
    if (h.undelivered <= 0) continue;
    const auto it = seen_.find(h.host_id);
    Seen s =
        it != seen_.end() && it->second.undelivered == h.undelivered ? it->second : Seen{h.undelivered, now};
    seen[h.host_id] = s;
    if (h.total_files == 0 && now - s.since >= kUndeliveredSettle) h.undelivered = 0;
  }
  seen_ = std::move(seen);
  std::erase_if(hints, [](const PendingHints& h) { return h.total_files == 0 && h.undelivered <= 0; });
  return hints;
}

}  // namespace cla
