// Hints the HintsService counters call undelivered while no hints file is listed for their host (SPEC 3.10):
// pending while Cassandra still writes them or has not closed their file yet, or lost to the counters for
// good (hints truncated, expired or dropped are never delivered, so the difference stays). A difference that
// no listed file explains counts only until it has stood still for kUndeliveredSettle, so that a lost one
// cannot hold every peer's gate for ever.
#pragma once

#include <chrono>
#include <map>
#include <string>

#include "state/pending_hints.hpp"

namespace cla {

// Cassandra closes a hints file of a live target within its hints_flush_period (10 s) and lists it for
// dispatch at once; 6 x (flush + the 10 s dispatch period) leaves room for a loaded node.
inline constexpr std::chrono::seconds kUndeliveredSettle{120};

class UndeliveredHints {
 public:
  using SteadyTime = std::chrono::steady_clock::time_point;

  // `hints` with the undelivered count of each host without a listed file kept while it is new or moved
  // within kUndeliveredSettle (by this filter's readings), else dropped; an entry left with neither goes.
  PendingHintsList filter(PendingHintsList hints, SteadyTime now);

 private:
  struct Seen {
    std::int64_t undelivered = 0;
    SteadyTime since{};
  };
  std::map<std::string, Seen> seen_;  // host id -> its undelivered count and when this filter first saw it
};

}  // namespace cla
