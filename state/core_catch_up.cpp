// Catching up (SPEC 3.10): after restore_completed the node serves, but its peers still replay the outage's
// hints to it; until they are done every write of the outage lives on fewer replicas. The node stays
// `catching_up` (its member key's phase; coordinated, its drain record stays too, so no other rack is
// admitted) until no other node holds hints for it, not before policy.catch_up_min (a peer's hints file is
// listed only once closed, which happens only after the peer saw the node alive) and at the latest at
// policy.catch_up_max.
#include <boost/json.hpp>

#include "state/core.hpp"

namespace cla {

namespace {
std::int64_t seconds_between(WallTime from, WallTime to) {
  return std::chrono::duration_cast<std::chrono::seconds>(to - from).count();
}
}  // namespace

void Core::begin_catch_up(std::optional<WallTime> out_since, WallTime since, WallTime now, Actions& out) {
  const std::int64_t out_s = out_since ? seconds_between(*out_since, now) : 0;
  if (policy_.catch_up_max.count() == 0) {  // no catch-up wait: back as soon as restored
    if (policy_.coordinated) out.push_back(ReleaseDrain{});
    return;
  }
  // A restarted node's hold before enablebinary was the catch-up's start (core_binary_hold.cpp).
  state_.catch_up = CatchUpState{since, out_s, held_hint_files_};
  reset_catch_up_reads();
  log(out, Severity::info, "catching_up",
      {{"out_s", out_s},
       {"catch_up_min_s", policy_.catch_up_min.count()},
       {"catch_up_max_s", policy_.catch_up_max.count()}});
}

void Core::reset_catch_up_reads() {
  catch_up_in_flight_ = false;
  catch_up_failure_logged_ = false;
  catch_up_next_read_.reset();
  catch_up_holders_.clear();
}

// The node goes out again (another drain) before it caught up: that outage's restore starts a new catch-up.
void Core::drop_catch_up() {
  if (!state_.catch_up) return;
  state_.catch_up.reset();
  reset_catch_up_reads();
}

void Core::catch_up_work(WallTime now, Actions& out) {
  if (!state_.catch_up || state_.node.out_of_service) return;
  if (now >= state_.catch_up->since + policy_.catch_up_max) {  // also over a read that has not answered
    end_catch_up(now, true, out);
    return;
  }
  if (catch_up_in_flight_ || (catch_up_next_read_ && now < *catch_up_next_read_)) return;
  catch_up_in_flight_ = true;
  out.push_back(ReadCatchUp{});
}

Actions Core::on_catch_up(const CatchUpOutcome& outcome, WallTime now) {
  Actions out;
  if (binary_hold_ && binary_hold_->reading) {
    on_binary_hold_read(outcome, now, out);
    advance(now, out);
    return out;
  }
  if (!catch_up_in_flight_) return out;  // the node went out again meanwhile: an answer about nothing
  catch_up_in_flight_ = false;
  CatchUpState& c = *state_.catch_up;
  catch_up_next_read_ = now + policy_.catch_up_read_interval;
  if (!outcome.read) {
    // No view of the holders: not caught up on that (catch_up_max still ends it).
    if (!catch_up_failure_logged_) {
      catch_up_failure_logged_ = true;
      log(out, Severity::warning, "catch_up_unreadable",
          {{"detail", outcome.detail}, {"retry_in_s", policy_.catch_up_read_interval.count()}});
    }
  } else {
    catch_up_failure_logged_ = false;
    catch_up_holders_ = outcome.holders;
    if (outcome.hint_files > c.hint_files) {
      c.hint_files = outcome.hint_files;
      out.push_back(Persist{});
    }
    if (outcome.holders.empty() && now >= c.since + policy_.catch_up_min) {
      end_catch_up(now, false, out);
    } else if (outcome.holders.empty()) {
      catch_up_next_read_ = c.since + policy_.catch_up_min;  // an empty answer counts from catch_up_min on
    }
  }
  advance(now, out);
  return out;
}

void Core::end_catch_up(WallTime now, bool timed_out, Actions& out) {
  const CatchUpState c = *state_.catch_up;
  boost::json::object f{
      {"out_s", c.out_s}, {"catch_up_s", seconds_between(c.since, now)}, {"hint_files", c.hint_files}};
  if (timed_out) {
    boost::json::array holders;
    for (const auto& h : catch_up_holders_) holders.emplace_back(h);
    f["holders"] = std::move(holders);
    f["catch_up_max_s"] = policy_.catch_up_max.count();
    f["note"] =
        "counted as caught up; hints still held are delivered later, or a repair makes the data whole";
  }
  log(out, timed_out ? Severity::warning : Severity::info, timed_out ? "catch_up_timeout" : "caught_up",
      std::move(f));
  state_.catch_up.reset();
  reset_catch_up_reads();
  if (policy_.coordinated) out.push_back(ReleaseDrain{});
  out.push_back(Persist{});
}

}  // namespace cla
