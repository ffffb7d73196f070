// The decision core's clock (SPEC 3.9): monotonic, expressed as wall time.
#pragma once

#include <chrono>
#include <functional>
#include <optional>

#include "state/scheduled_event.hpp"

namespace cla {

// Starts equal to the wall clock, then advances with the steady clock only: the core's timers, its retry
// deadlines and the drain durations it measures never jump when the wall clock is stepped. Wall instants from
// outside (IMDS's NotBefore) are converted with the offset between the two clocks, which changes only when
// the wall clock steps by more than kStepThreshold (NTP's slewing moves both clocks alike): NotBefore is then
// read against the new wall clock at its next sighting, as Azure's NotBefore is a wall-clock instant.
class CoreClock {
 public:
  using SteadyTime = std::chrono::steady_clock::time_point;
  static constexpr std::chrono::milliseconds kStepThreshold{1000};

  explicit CoreClock(
      std::function<WallTime()> wall = [] { return WallClock::now(); },
      std::function<SteadyTime()> steady = [] { return std::chrono::steady_clock::now(); });

  WallTime now() const;
  // The wall clock's step since the offset was last taken, when larger than kStepThreshold: the offset
  // follows it. nullopt otherwise.
  std::optional<std::chrono::milliseconds> observe_step();
  WallTime from_wall(WallTime t) const { return t - offset_; }
  WallTime to_wall(WallTime t) const { return t + offset_; }
  // Every NotBefore of the document, into the core's time.
  void convert(EventsDocument& doc) const;

 private:
  std::function<WallTime()> wall_;
  std::function<SteadyTime()> steady_;
  WallTime anchor_wall_;
  SteadyTime anchor_steady_;
  WallClock::duration offset_{0};  // wall - core
};

}  // namespace cla
