// CQL reopened after a restart only once the node caught up (SPEC 3.3, 3.10). A node that Cassandra started
// afresh (the VM rebooted, or restart_command ran) is cold, and its peers replay the outage's hints to it: as
// a coordinator it then fails clients' requests (measured on the 6-node wave: 157-218 client timeouts at the
// two rebooted coordinators in the 30 s after enablebinary, none with binary held until the hints were
// replayed). So before a restarted node's enablebinary the restore holds, as the catch-up does: until no
// other node holds hints for it, not before policy.catch_up_min, at most policy.catch_up_max. The node is UN
// again from the hold's start, so the catch-up after restore_completed counts from there.
#include <boost/json.hpp>

#include "state/core.hpp"

namespace cla {

namespace {
std::int64_t seconds_between(WallTime from, WallTime to) {
  return std::chrono::duration_cast<std::chrono::seconds>(to - from).count();
}
}  // namespace

bool Core::binary_held(WallTime now, Actions& out) {
  if (binary_hold_done_ || policy_.catch_up_max.count() == 0) return false;
  // Set by the restore's start after a reboot and by restart_command's success (core_restore.cpp), kept
  // through a further drain and an agent restart until the node serves.
  if (!state_.node.started_afresh) return false;  // a warm node: it serves, then catches up
  const bool rebooted = rebooted_since_drain();
  if (!binary_hold_) {
    binary_hold_ = BinaryHold{now};
    log(out, Severity::info, "binary_held",
        {{"rebooted", rebooted},
         {"restarted", restart_done_},
         // neither: a further drain (or an agent restart) came after that start, before the node served
         {"started_afresh_earlier", !rebooted && !restart_done_},
         {"catch_up_min_s", policy_.catch_up_min.count()},
         {"catch_up_max_s", policy_.catch_up_max.count()},
         {"detail",
          "Cassandra started afresh: enablebinary once no other node holds hints for this node (not before "
          "catch_up_min_s, at most catch_up_max_s), so that a cold node catching up does not coordinate "
          "clients' requests"}});
  }
  BinaryHold& h = *binary_hold_;
  if (now >= h.since + policy_.catch_up_max) {  // also over a read that has not answered
    end_binary_hold(now, true, out);
    return false;
  }
  if (h.reading || (h.next_read && now < *h.next_read)) return true;
  h.reading = true;
  out.push_back(ReadCatchUp{});
  return true;
}

void Core::on_binary_hold_read(const CatchUpOutcome& outcome, WallTime now, Actions& out) {
  BinaryHold& h = *binary_hold_;
  h.reading = false;
  h.next_read = now + policy_.catch_up_read_interval;
  h.hint_files = std::max(h.hint_files, outcome.hint_files);
  if (outcome.read) h.holders = outcome.holders;
  // Unreadable (etcd gone, no host id): not held past catch_up_min on that; the catch-up after the restore
  // still holds the next rack until it knows.
  const bool none_known = !outcome.read || outcome.holders.empty();
  if (!outcome.read && !h.failure_logged) {
    h.failure_logged = true;
    log(out, Severity::warning, "catch_up_unreadable",
        {{"detail", outcome.detail},
         {"binary_held", true},
         {"retry_in_s", policy_.catch_up_read_interval.count()}});
  }
  if (none_known && now >= h.since + policy_.catch_up_min)
    end_binary_hold(now, false, out);
  else if (none_known)
    h.next_read = h.since + policy_.catch_up_min;  // an empty answer counts from catch_up_min on
}

void Core::end_binary_hold(WallTime now, bool timed_out, Actions& out) {
  const BinaryHold& h = *binary_hold_;
  boost::json::object f{{"held_s", seconds_between(h.since, now)}, {"hint_files", h.hint_files}};
  if (timed_out) {
    boost::json::array holders;
    for (const auto& holder : h.holders) holders.emplace_back(holder);
    f["holders"] = std::move(holders);
    f["catch_up_max_s"] = policy_.catch_up_max.count();
  }
  log(out, timed_out ? Severity::warning : Severity::info, "binary_hold_ended", std::move(f));
  binary_hold_done_ = true;
  un_since_ = h.since;
  held_hint_files_ = h.hint_files;
  binary_hold_.reset();
}

void Core::reset_binary_hold() {
  binary_hold_.reset();
  binary_hold_done_ = false;
  un_since_.reset();
  held_hint_files_ = 0;
}

std::optional<WallTime> Core::binary_held_since() const {
  return binary_hold_ ? std::optional(binary_hold_->since) : std::nullopt;
}

}  // namespace cla
