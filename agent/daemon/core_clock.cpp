// CoreClock: the core's monotonic time, anchored to the wall clock at start.
#include "agent/daemon/core_clock.hpp"

namespace cla {

CoreClock::CoreClock(std::function<WallTime()> wall, std::function<SteadyTime()> steady)
    : wall_(std::move(wall)), steady_(std::move(steady)), anchor_wall_(wall_()), anchor_steady_(steady_()) {}

WallTime CoreClock::now() const {
  return anchor_wall_ + std::chrono::duration_cast<WallClock::duration>(steady_() - anchor_steady_);
}

std::optional<std::chrono::milliseconds> CoreClock::observe_step() {
  const WallClock::duration measured = wall_() - now();
  const auto step = std::chrono::duration_cast<std::chrono::milliseconds>(measured - offset_);
  if (step < kStepThreshold && step > -kStepThreshold) return std::nullopt;
  offset_ = measured;
  return step;
}

void CoreClock::convert(EventsDocument& doc) const {
  for (ScheduledEvent& event : doc.events)
    if (event.not_before) event.not_before = from_wall(*event.not_before);
}

}  // namespace cla
