// The drain half of the core: when to drain, the safety gate's verdicts, the forced drain, one step at a
// time.
#include <algorithm>
#include <boost/json.hpp>

#include "state/core.hpp"

namespace cla {
namespace {
// Gate + drain durations (and nodetool call durations) kept to predict the next drain (SPEC 3.3: "the last
// few").
constexpr std::size_t kDrainSamples = 5;
constexpr std::chrono::milliseconds kExpectedDrainCap = std::chrono::seconds(300);

double seconds(std::chrono::milliseconds d) {
  return static_cast<double>(d.count()) / 1000.0;
}

// unsafe_to_drain's and drain_forced_unsafe's fields: the replication verdict's exact ones (SPEC 3.4) with
// the racks and a line for people as `detail`; the rack count's down_racks and reason otherwise.
boost::json::object unsafe_fields(const std::optional<SafetyResult>& unsafe) {
  boost::json::array racks;
  if (unsafe)
    for (const auto& r : unsafe->down_racks) racks.emplace_back(r);
  if (!unsafe || unsafe->fields.empty())
    return {{"down_racks", std::move(racks)}, {"reason", unsafe ? unsafe->reason : ""}};
  boost::json::object fields = unsafe->fields;
  fields["down_racks"] = std::move(racks);
  fields["detail"] = unsafe->reason;
  return fields;
}
}  // namespace

WallTime Core::drain_at(const EventRecord& rec) const {
  if (rec.plan == EventPlan::user_drain || !rec.event.not_before) return rec.first_seen;
  const WallTime computed = *rec.event.not_before - policy_.drain_lead -
                            std::chrono::duration_cast<WallTime::duration>(expected_drain(rec));
  // Once found due, a drain stays due for that NotBefore: the estimate shrinks as faster calls (the gate's
  // own) replace slower ones among the last few, and the verdict asked for the drain must still be used.
  const auto due = drain_due_.find(to_upper(rec.event.id));
  if (due != drain_due_.end() && due->second.first == *rec.event.not_before)
    return std::min(computed, due->second.second);
  return computed;
}

// What the drain's start was planned by: NotBefore - drain_lead - its due instant (which stays put once found
// due, while expected_drain may shrink), else the current expectation.
std::chrono::milliseconds Core::planned_drain(const EventRecord& rec) const {
  if (rec.plan != EventPlan::platform_drain || !rec.event.not_before) return expected_drain(rec);
  return std::chrono::duration_cast<std::chrono::milliseconds>(*rec.event.not_before - policy_.drain_lead -
                                                               drain_at(rec));
}

std::chrono::milliseconds Core::expected_drain(const EventRecord& rec) const {
  const auto longest_of_last = [](const std::vector<std::int64_t>& samples) -> std::int64_t {
    const auto first = samples.size() > kDrainSamples ? samples.end() - kDrainSamples : samples.begin();
    return first == samples.end() ? 0 : *std::max_element(first, samples.end());
  };
  std::int64_t longest = longest_of_last(state_.drain_durations_ms);
  if (state_.drain_durations_ms.empty()) {
    // No drain measured yet (a new agent, a new state file): each nodetool call is a JVM start whose cost the
    // calls already made show (the start-up's statusgossip and statusbinary at least). The path runs them
    // one after another: the gate's round (status, with info beside it), disablebinary, disablegossip, and
    // drain for a flush. A bench at load ~16 took 20 + 16 + 9 s for a Freeze against a 30 s lead.
    const std::int64_t calls = 3 + (needs_flush(rec.event.type, policy_) ? 1 : 0);
    longest = longest_of_last(call_durations_ms_) * calls;
  }
  // Capped (SPEC 3.9): one drain retried for minutes must not make every later drain start on sight.
  return std::min(std::chrono::milliseconds(longest + longest / 2), kExpectedDrainCap);
}

void Core::note_nodetool_call(std::chrono::milliseconds took) {
  call_durations_ms_.push_back(took.count());
  if (call_durations_ms_.size() > kDrainSamples)
    call_durations_ms_.erase(call_durations_ms_.begin(), call_durations_ms_.end() - kDrainSamples);
}

void Core::record_drain_duration(WallTime now) {
  if (!drain_measured_from_) return;
  auto& samples = state_.drain_durations_ms;
  samples.push_back(
      std::chrono::duration_cast<std::chrono::milliseconds>(now - *drain_measured_from_).count());
  if (samples.size() > kDrainSamples) samples.erase(samples.begin(), samples.end() - kDrainSamples);
  drain_measured_from_.reset();
}

bool Core::drain_under_way() const {
  if (drain_step_in_flight()) return true;
  return std::any_of(
      state_.node.drained_for.begin(), state_.node.drained_for.end(), [&](const std::string& key) {
        const auto it = state_.events.find(key);
        return it != state_.events.end() && !it->second.drain_complete && !it->second.drain_failed;
      });
}

WallTime Core::forced_at(const EventRecord& rec) const {
  if (!rec.event.not_before) return rec.first_seen;  // no known impact time: the impact may come at once
  return *rec.event.not_before - policy_.unsafe_drain_lead;
}

WallTime Core::impact_deadline(const EventRecord& rec, WallTime now) const {
  if (rec.event.not_before && *rec.event.not_before > now) return *rec.event.not_before;
  return now + policy_.drain_deadline_without_not_before;
}

// First the drains that go first (goes_first), so that no other event's gate check is asked ahead of them;
// then the others, in EventId order.
bool Core::drain_work(WallTime now, Actions& out) {
  for (const bool first_pass : {true, false})
    for (auto& [key, rec] : state_.events) {
      if (rec.plan != EventPlan::user_drain && rec.plan != EventPlan::platform_drain) continue;
      if (rec.drain_complete || rec.drain_failed) continue;
      if (first_pass != goes_first(key, rec)) continue;
      if (drain_event(key, rec, first_pass, now, out)) return true;
    }
  return false;
}

// One event's drain: start it when due and allowed, run its next step, or mark it complete. True when the
// core now waits for something (a step, a check, an admission).
bool Core::drain_event(const std::string& key, EventRecord& rec, bool first_pass, WallTime now,
                       Actions& out) {
  if (!state_.node.drained_for.count(key)) {
    if (rec.emergency) {
      // The impact is under way: no gate, no waiting. Coordinated, the drain is recorded unconditionally
      // beside its first command (others count the rack).
      begin_drain(rec, false, now, out);
    } else if (first_pass) {
      // The forced instant came while the gate's answer was out: that read was abandoned, the drain is
      // forced without it.
      forced_without_answer_.erase(key);
      begin_drain(rec, !node_is_out(), now, out);
    } else {
      if (rec.event.status != EventStatus::scheduled)
        return false;  // an unknown status: wait for a known one
      if (now < drain_at(rec)) return false;
      if (rec.event.not_before)
        drain_due_.insert_or_assign(key, std::pair{*rec.event.not_before, drain_at(rec)});
      bool forced = false;
      if (rec.plan == EventPlan::platform_drain && !gate_allows(rec, now, out, forced))
        return reads_in_flight();
      // A user drain skips the gates, but in coordinated mode it is recorded too, so others count its rack.
      if (rec.plan == EventPlan::user_drain && !node_is_out() && !admission_allows(rec, now, out, true))
        return admission_in_flight_;
      begin_drain(rec, forced, now, out);
    }
  } else if (rec.rebooted_through && !document_seen_) {
    return false;  // taken out again only once a document shows the event still listed (SPEC 3.6)
  }
  if (auto step = next_drain_step(rec)) {
    step_in_flight_ = step;
    out.push_back(RunStep{*step, impact_deadline(rec, now)});
    if (record_beside_) {
      // Beside the first command, never before it (SPEC 3.9): etcd's answer is not waited for.
      record_beside_ = false;
      out.push_back(Admit{rec.event.id, true, false});
    }
    return true;
  }
  // Every step this event needs is done: mark it (persisted before any approval, which comes next).
  for (auto& [other_key, other] : state_.events) {
    if (!state_.node.drained_for.count(other_key) || other.drain_complete || other.drain_failed) continue;
    if (next_drain_step(other)) continue;
    other.drain_complete = true;
    other.drained_at = now;
    boost::json::object extra{{"flushed", state_.node.flushed}, {"emergency", other.emergency}};
    if (other.rebooted_through) extra["after_reboot"] = true;
    if (drain_started_at_)
      extra["duration_ms"] =
          std::chrono::duration_cast<std::chrono::milliseconds>(now - *drain_started_at_).count();
    if (drain_measured_from_)
      extra["gate_and_drain_ms"] =
          std::chrono::duration_cast<std::chrono::milliseconds>(now - *drain_measured_from_).count();
    log_event(out, Severity::info, "drain_completed", other, std::move(extra));
  }
  record_drain_duration(now);
  drain_started_at_.reset();
  // Out again after a reboot: the drain now belongs to this boot (a flush from here on needs a restart), and
  // the Cassandra that boot started has not served yet.
  if (rebooted_since_drain()) state_.node.started_afresh = true;
  state_.node.boot_id_at_drain = boot_id_;
  out.push_back(Persist{});
  return false;
}

// A drain under way (its next steps: the node is leaving anyway, and another event's gate would only delay
// them), an emergency drain, a platform drain whose forced instant found the gate's answer still out.
bool Core::goes_first(const std::string& key, const EventRecord& rec) const {
  if (state_.node.drained_for.count(key)) return true;
  return rec.emergency || forced_without_answer_.count(key) > 0;
}

std::optional<WallTime> Core::reads_asked_at() const {
  std::optional<WallTime> earliest;
  for (const auto& [in_flight, at] :
       {std::pair{safety_in_flight_, safety_asked_at_}, std::pair{admission_in_flight_, admission_asked_at_}})
    if (in_flight && at && (!earliest || *at < *earliest)) earliest = at;
  return earliest;
}

// With no step running, a read the core waits for is given up when an emergency drain is due, or when a
// platform drain's forced instant comes while it is out (SPEC 3.9). A read asked at or after that instant
// (the event was seen that late, or at start-up) gets late_check_grace, so that a fast gate may still allow
// an approval, and is given up then: disablebinary within 1 s of the sighting (SPEC 4), not at the check's
// timeout.
void Core::preempt_reads(WallTime now, Actions& out) {
  if (step_in_flight_ || !reads_in_flight()) return;
  const std::optional<WallTime> asked = reads_asked_at();
  for (auto& [key, rec] : state_.events) {
    if (rec.plan != EventPlan::user_drain && rec.plan != EventPlan::platform_drain) continue;
    if (rec.drain_complete || rec.drain_failed || state_.node.drained_for.count(key)) continue;
    const bool forced_instant = rec.plan == EventPlan::platform_drain && !rec.emergency &&
                                rec.event.status == EventStatus::scheduled && !node_is_out() &&
                                now >= forced_at(rec) && asked &&
                                (*asked < forced_at(rec) || now >= *asked + policy_.late_check_grace);
    if (!rec.emergency && !forced_instant) continue;
    boost::json::array abandoned;
    if (safety_in_flight_) abandoned.emplace_back("gate_check");
    if (admission_in_flight_) abandoned.emplace_back("etcd_admission");
    log_event(out, Severity::warning, "reads_abandoned", rec,
              {{"abandoned", std::move(abandoned)},
               {"for", rec.emergency ? "emergency_drain" : "forced_drain"},
               {"waited_ms",
                asked ? std::chrono::duration_cast<std::chrono::milliseconds>(now - *asked).count() : 0}});
    if (forced_instant) {
      forced_without_answer_.insert(key);
      // What drain_forced_unsafe says: the last unsafe verdict when there is one, else what did not answer.
      if (safety_in_flight_ && !last_unsafe_)
        last_unsafe_ = SafetyResult{
            false, "no verdict by the forced-drain instant: the gate's check was abandoned", {}, {}};
      if (!safety_in_flight_ && admission_in_flight_)
        last_unsafe_ = SafetyResult{
            false, "no verdict by the forced-drain instant: etcd's admission was abandoned", {}, {}};
    }
    safety_in_flight_ = false;
    admission_in_flight_ = false;
    return;
  }
}

// The gates are consulted only when the drain would take a serving node out; a node already out stays out.
// Both must allow: the nodetool gate, then (coordinated) etcd's admission.
bool Core::gate_allows(EventRecord& rec, WallTime now, Actions& out, bool& forced) {
  if (node_is_out()) return true;
  if (!local_gate_allows(rec, now, out, forced)) return false;
  if (!forced && admission_refusal_ && now >= forced_at(rec)) {
    // etcd refused until the impact is unavoidable: drain anyway, recorded, never approved (as unsafe).
    forced = true;
    last_unsafe_ = SafetyResult{false,
                                "etcd did not admit the drain: " + admission_refusal_->detail,
                                admission_refusal_->out_racks,
                                {}};
  }
  if (forced) return true;  // recorded beside its first command, not waited for (SPEC 3.9)
  return admission_allows(rec, now, out, false);
}

bool Core::local_gate_allows(EventRecord& rec, WallTime now, Actions& out, bool& forced) {
  if (safety_ == Safety::safe) return true;
  // An unsafe verdict speaks for this event only when it was taken once the event was due; an older one
  // (asked for an event since gone) must not force or hold this drain without asking again.
  const bool verdict_covers_event = safety_at_ && *safety_at_ >= drain_at(rec);
  if (safety_ == Safety::unsafe && verdict_covers_event) {
    if (!rec.unsafe_logged && last_unsafe_) {
      rec.unsafe_logged = true;
      log_event(out, Severity::warning, "unsafe_to_drain", rec, unsafe_fields(last_unsafe_));
    }
    if (now >= forced_at(rec)) {
      forced = true;
      return true;
    }
    if (safety_at_ && now < *safety_at_ + policy_.unsafe_recheck) return false;  // each check is a JVM
  }
  if (!safety_in_flight_) {
    safety_in_flight_ = true;
    safety_asked_at_ = now;
    out.push_back(CheckSafety{});
  }
  return false;
}

void Core::begin_drain(EventRecord& rec, bool forced, WallTime now, Actions& out) {
  NodeDrainState& node = state_.node;
  const std::string key = to_upper(rec.event.id);
  // A gated drain that takes a serving node out is what the next drain's start is planned by: measure it
  // from the moment its gate was asked.
  const bool gated = rec.plan == EventPlan::platform_drain && !rec.emergency && !forced && !node_is_out();
  if (gated && !drain_started_at_) drain_measured_from_ = safety_asked_at_.value_or(now);
  if (!node.out_of_service) {
    drop_catch_up();
    node.out_of_service = true;
    node.out_since = now;
    node.boot_id_at_drain = boot_id_;
    reset_quiet();
  }
  // A forced or emergency drain waits for no read (SPEC 3.9): whatever reads the shell still runs (a schema
  // refresh, the start-up observation) are killed, and in coordinated mode the drain is recorded beside its
  // first command.
  if (forced || rec.emergency) {
    out.push_back(AbandonReads{});
    record_beside_ = policy_.coordinated && !node_is_out();
  }
  node.drained_for.insert(key);
  rec.forced_unsafe = forced;
  safety_ = Safety::unknown;  // a verdict is used once; the next drain asks again
  admission_.reset();
  admission_refusal_.reset();
  admission_stale_ = true;
  if (!drain_started_at_) drain_started_at_ = now;
  if (forced) log_event(out, Severity::error, "drain_forced_unsafe", rec, unsafe_fields(last_unsafe_));
  boost::json::object extra{{"forced_unsafe", forced},
                            {"flush", needs_flush(rec.event.type, policy_)},
                            {"emergency", rec.emergency},
                            {"expected_drain_s", seconds(planned_drain(rec))}};
  log_event(out, Severity::info, "drain_started", rec, std::move(extra));
  // NodeMaintenanceStarting announces a drain ahead of the impact; an event first seen Started has had
  // its NodeMaintenanceStart already (SPEC 3.7: Start, then Ended).
  if (!rec.notified_starting && !rec.emergency) {
    rec.notified_starting = true;
    out.push_back(notification(MaintenancePhase::starting, rec.event, rec.event.not_before));
  }
  out.push_back(Persist{});  // the intent is on disk before the first mutating command
}

std::optional<Step> Core::next_drain_step(const EventRecord& rec) const {
  const NodeDrainState& node = state_.node;
  if (node.flushed) return std::nullopt;  // nodetool drain already stopped both, and refuses more
  if (!node.binary_disabled) return Step::disable_binary;
  if (!node.gossip_disabled) return Step::disable_gossip;
  if (needs_flush(rec.event.type, policy_) && !rec.rebooted_through) return Step::flush;
  return std::nullopt;
}

void Core::drain_step_done(Step step, const StepOutcome& outcome, WallTime /*now*/, Actions& out) {
  NodeDrainState& node = state_.node;
  if (outcome.ok) {
    if (step == Step::disable_binary) {
      node.binary_disabled = true;
      binary_unknown_after_boot_ = false;
    }
    if (step == Step::disable_gossip) {
      node.gossip_disabled = true;
      gossip_unknown_after_boot_ = false;
    }
    if (step == Step::flush) {
      node.flushed = node.binary_disabled = node.gossip_disabled = true;
      gossip_unknown_after_boot_ = binary_unknown_after_boot_ = false;
    }
    out.push_back(Persist{});
    return;
  }
  // `nodetool drain` was asked and did not answer success: it may have drained the node, or the impact (a
  // killed JVM) cut it short. With a restart_command the restore then treats the node as flushed: it asks
  // whether the node serves and restarts it if not, instead of retrying enable* on a dead process.
  if (step == Step::flush && policy_.has_restart_command) node.flushed = true;
  // The step failed until the impact was due: no approval; Azure proceeds at NotBefore.
  for (auto& [key, rec] : state_.events) {
    if (!node.drained_for.count(key) || rec.drain_complete || rec.drain_failed) continue;
    rec.drain_failed = true;
    log_event(out, Severity::error, "nodetool_failed", rec,
              {{"step", to_string(step)},
               {"detail", outcome.detail},
               {"timeout", outcome.timed_out},
               {"approved", false},
               {"emergency", rec.emergency}});
  }
  drain_started_at_.reset();
  drain_measured_from_.reset();  // a failed drain predicts nothing
  out.push_back(Persist{});
}

}  // namespace cla
