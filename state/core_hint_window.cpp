// Past the hint window (SPEC 3.10): Cassandra keeps hints for a node only while it has been down less than
// max_hint_window (3 h by default); a node out longer has lost writes that only a repair brings back. The
// window is the shell's reading (at start and with each schema refresh); without one nothing is judged.
#include <boost/json.hpp>

#include "state/core.hpp"

namespace cla {

namespace {
std::int64_t whole_seconds(WallTime::duration d) {
  return std::chrono::duration_cast<std::chrono::seconds>(d).count();
}
}  // namespace

void Core::note_hint_window(std::chrono::milliseconds window) {
  hint_window_ = window;
}

std::optional<WallTime> Core::hint_window_closing_at() const {
  if (!hint_window_ || !state_.node.out_of_service || !state_.node.out_since || hint_window_warned_)
    return std::nullopt;
  return *state_.node.out_since + *hint_window_ * 4 / 5;
}

// While the node stays out (a restore that cannot finish, back-to-back holds): a warning at 80 % of the
// window, once per outage.
void Core::hint_window_work(WallTime now, Actions& out) {
  const auto closing_at = hint_window_closing_at();
  if (!closing_at || now < *closing_at) return;
  hint_window_warned_ = true;
  const auto window_end = *state_.node.out_since + *hint_window_;
  log(out, Severity::warning, "hint_window_closing",
      {{"out_s", whole_seconds(now - *state_.node.out_since)},
       {"window_s", whole_seconds(*hint_window_)},
       {"closes_in_s", std::max<std::int64_t>(0, whole_seconds(window_end - now))},
       {"note", "past the window peers stop keeping hints for this node: a repair will be needed"}});
}

// At restore_completed: out longer than the window, the node has lost hints (repair_needed, the gauge at 1
// and NodeRepairNeeded); a restore within it clears the gauge.
void Core::judge_hint_window(std::optional<WallTime> out_since, WallTime now, Actions& out) {
  hint_window_warned_ = false;
  if (!out_since || !hint_window_) return;
  const bool lost = now - *out_since > *hint_window_;
  if (lost) {
    log(out, Severity::error, "repair_needed",
        {{"out_s", whole_seconds(now - *out_since)},
         {"window_s", whole_seconds(*hint_window_)},
         {"note", "the node was out longer than max_hint_window: run a repair (nodetool repair) on it"}});
    const ScheduledEvent last =
        state_.pending_ended.empty() ? ScheduledEvent{} : state_.pending_ended.back().event;
    out.push_back(notification(MaintenancePhase::repair_needed, last, std::nullopt));
  }
  state_.repair_needed = lost;
}

}  // namespace cla
