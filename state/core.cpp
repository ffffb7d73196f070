// The decision core: documents in, actions out (SPEC 3.1, 3.2, 3.6); drain, restore and approval live beside
// it.
#include "state/core.hpp"

#include <algorithm>
#include <boost/json.hpp>
#include <set>

namespace cla {

Core::Core(CorePolicy policy, AgentState state) : policy_(std::move(policy)), state_(std::move(state)) {
  incarnation_ = state_.last_incarnation;
}

const EventRecord* Core::record_of(const std::string& event_id) const {
  const auto it = state_.events.find(to_upper(event_id));
  return it == state_.events.end() ? nullptr : &it->second;
}

EventRecord* Core::find(const std::string& event_id) {
  return const_cast<EventRecord*>(record_of(event_id));
}

void Core::log(Actions& out, Severity severity, std::string msg, boost::json::object fields) const {
  out.push_back(LogAction{severity, std::move(msg), std::move(fields)});
}

boost::json::object Core::event_fields(const ScheduledEvent& e) const {
  boost::json::object f;
  f["event_id"] = e.id;
  f["event_type"] = e.type;
  f["event_status"] = e.status_text.empty() ? status_name(e.status) : e.status_text;
  f["event_source"] = e.source_text;
  boost::json::array resources;
  for (const auto& r : e.resources) resources.emplace_back(r);
  f["resources"] = std::move(resources);
  f["not_before"] = e.not_before_text;
  f["duration_s"] = e.duration_s;
  if (incarnation_) f["document_incarnation"] = *incarnation_;
  return f;
}

void Core::log_event(Actions& out, Severity severity, std::string msg, const EventRecord& rec,
                     boost::json::object extra) const {
  boost::json::object f = event_fields(rec.event);
  for (auto& kv : extra) f[kv.key()] = std::move(kv.value());
  out.push_back(LogAction{severity, std::move(msg), std::move(f)});
}

Notify Core::notification(MaintenancePhase phase, const ScheduledEvent& event,
                          std::optional<WallTime> start) const {
  return Notify{phase, event.id, event.type, start, event_fields(event)};
}

Actions Core::on_document(const EventsDocument& doc, WallTime now) {
  Actions out;
  if (incarnation_ && doc.incarnation < *incarnation_)
    log(out, Severity::warning, "incarnation_went_backwards",
        {{"previous", *incarnation_}, {"document_incarnation", doc.incarnation}});
  const bool changed_incarnation = !incarnation_ || *incarnation_ != doc.incarnation;
  incarnation_ = doc.incarnation;
  state_.last_incarnation = doc.incarnation;

  // The whole document is evaluated on every poll: it is small, and it makes restarts and IMDS resets
  // trivial.
  std::set<std::string> present;
  bool changed = changed_incarnation;
  for (const ScheduledEvent& event : doc.events) {
    present.insert(to_upper(event.id));
    const EventRecord* before = record_of(event.id);
    const bool is_new = before == nullptr;
    const EventStatus old_status = is_new ? EventStatus::unknown : before->event.status;
    note_event(event, now, out);
    changed = changed || is_new || old_status != event.status;
  }
  for (auto it = state_.events.begin(); it != state_.events.end();) {
    if (present.count(it->first)) {
      ++it;
      continue;
    }
    on_removed(it->second, out);
    it = state_.events.erase(it);
    changed = true;
  }

  if (adopt_disabled_node_) {
    // After a corrupt state file the node was found disabled: it stays out for this node's pending impacts.
    for (auto& [key, rec] : state_.events)
      if (rec.plan == EventPlan::user_drain || rec.plan == EventPlan::platform_drain)
        state_.node.drained_for.insert(key);
    adopt_disabled_node_ = false;
    changed = true;
  }

  document_seen_ = true;
  admission_stale_ = true;  // a refused or unavailable admission is asked again at every poll
  shared_checked_.clear();  // and so is a shared event not ready yet
  if (changed) out.push_back(Persist{});
  advance(now, out);
  return out;
}

Actions Core::note_before_start(const EventsDocument& doc, WallTime now) {
  Actions out;
  // The lines carry this document's incarnation; on_document still compares the next one with the last.
  const std::optional<std::int64_t> last_incarnation = incarnation_;
  incarnation_ = doc.incarnation;
  for (const ScheduledEvent& event : doc.events)
    if (event.status == EventStatus::scheduled && !record_of(event.id)) note_event(event, now, out);
  incarnation_ = last_incarnation;
  // The schema is refreshed at start anyway.
  std::erase_if(out, [](const Action& a) { return std::holds_alternative<RefreshSchema>(a); });
  return out;
}

void Core::note_event(const ScheduledEvent& event, WallTime now, Actions& out) {
  const std::string key = to_upper(event.id);
  auto it = state_.events.find(key);
  if (it == state_.events.end()) {
    EventRecord rec;
    rec.event = event;
    rec.plan = plan_for(event, policy_);
    rec.first_seen = now;
    it = state_.events.emplace(key, std::move(rec)).first;
    EventRecord& r = it->second;
    log_event(out, Severity::info, "event_seen", r,
              {{"affects_this_node", r.plan != EventPlan::other_vm}, {"plan", to_string(r.plan)}});
    const bool drains = r.plan == EventPlan::user_drain || r.plan == EventPlan::platform_drain;
    if (drains && event.status == EventStatus::scheduled) {
      if (r.plan == EventPlan::platform_drain) out.push_back(RefreshSchema{});  // a user drain passes no gate
      r.notified_scheduled = true;
      out.push_back(notification(MaintenancePhase::scheduled, event, event.not_before));
    }
  } else {
    EventRecord& r = it->second;
    const bool status_changed = r.event.status != event.status;
    // Azure moved the impact, or this VM's wall clock was stepped (NotBefore is wall time): the drain's
    // due time follows the new value, so say so.
    const bool moved = event.status == EventStatus::scheduled && r.event.not_before && event.not_before &&
                       *r.event.not_before != *event.not_before;
    const std::string previous_not_before = r.event.not_before_text;
    r.event = event;
    if (status_changed && r.plan != EventPlan::other_vm)
      log_event(out, Severity::info, "event_status_changed", r);
    if (moved && r.plan != EventPlan::other_vm)
      log_event(out, Severity::warning, "not_before_changed", r,
                {{"previous_not_before", previous_not_before}});
  }
  EventRecord& r = it->second;
  if (event.status == EventStatus::started && !r.started_seen) {
    r.started_seen = true;
    on_started(r, out);
  }
}

void Core::on_started(EventRecord& rec, Actions& out) {
  if (rec.plan == EventPlan::other_vm || rec.plan == EventPlan::no_impact) return;  // expected: no warning
  if (!rec.notified_start) {
    rec.notified_start = true;
    out.push_back(notification(MaintenancePhase::start, rec.event, std::nullopt));
  }
  const std::string key = to_upper(rec.event.id);
  if (state_.node.drained_for.count(key)) return;  // drained, or its drain under way: it goes on
  if (node_is_out()) {
    // Drained already for another event: keep the node out until this impact is over too.
    state_.node.drained_for.insert(key);
    return;
  }
  // The impact is under way and the node serves (a hardware failure, a shared event another VM approved,
  // an event first seen late, an agent started mid-event): a node that leaves cleanly beats a frozen or
  // vanishing one, whatever the gate would say. drain_work drains it at once.
  rec.emergency = true;
  if (!rec.impact_warned) {
    rec.impact_warned = true;
    log_event(out, Severity::warning, "impact_without_drain", rec, {{"emergency", true}});
  }
}

void Core::on_removed(EventRecord& rec, Actions& out) {
  if (rec.plan == EventPlan::other_vm) return;
  const std::string key = to_upper(rec.event.id);
  drain_due_.erase(key);
  log_event(out, Severity::info, "event_removed", rec,
            {{"was_drained_for", state_.node.drained_for.count(key) > 0}, {"approved", rec.approved}});
  state_.node.drained_for.erase(key);
  approval_retry_at_.erase(key);
  approval_attempts_.erase(key);
  shared_ready_.erase(key);
  shared_logged_.erase(key);
  admission_refused_logged_.erase(key);
  forced_without_answer_.erase(key);
  if (rec.notified_scheduled || rec.notified_start) state_.pending_ended.push_back(PendingEnded{rec.event});
}

Actions Core::on_timer(WallTime now) {
  Actions out;
  advance(now, out);
  return out;
}

Actions Core::on_safety(const SafetyResult& result, WallTime now) {
  Actions out;
  // No check is out: it was abandoned for a forced or emergency drain (SPEC 3.9), and its answer is stale.
  if (!safety_in_flight_) return out;
  safety_in_flight_ = false;
  safety_ = result.safe ? Safety::safe : Safety::unsafe;
  safety_at_ = now;
  if (result.safe) {
    last_unsafe_.reset();
  } else {
    last_unsafe_ = result;
  }
  advance(now, out);
  // A "safe" answer is used at once or not at all: the event it was asked for may be gone (cancelled while
  // the check ran), and a later drain must ask the cluster again.
  if (safety_ == Safety::safe && !admission_in_flight_) safety_ = Safety::unknown;
  return out;
}

Actions Core::on_step_done(Step step, const StepOutcome& outcome, WallTime now) {
  Actions out;
  // No such step is out: it was abandoned for a drain (SPEC 3.9), and its answer is stale.
  if (step_in_flight_ != step) return out;
  step_in_flight_.reset();
  if (is_drain_step(step)) {
    drain_step_done(step, outcome, now, out);
  } else {
    restore_step_done(step, outcome, now, out);
  }
  advance(now, out);
  return out;
}

void Core::advance(WallTime now, Actions& out) {
  // One nodetool operation at a time; an impact coming beats a restore. Approvals run beside them, last,
  // so that a drain completed in this pass is approved in this pass. A forced or emergency drain waits for
  // no read: the reads in flight are abandoned first.
  preempt_reads(now, out);
  preempt_restore(now, out);
  if (!busy()) defer_restore(now, out);
  if (!busy() && !drain_work(now, out) && !restore_work(now, out)) emit_pending_ended(out);
  approval_work(now, out);
  catch_up_work(now, out);
  hint_window_work(now, out);
}

std::optional<WallTime> Core::next_wakeup(WallTime now) const {
  std::optional<WallTime> best;
  auto consider = [&](WallTime t) {
    if (t > now && (!best || t < *best)) best = t;
  };
  for (const auto& [key, rec] : state_.events) {
    if (rec.event.status != EventStatus::scheduled) continue;
    if (rec.plan == EventPlan::platform_drain && !state_.node.drained_for.count(key) && !rec.drain_failed) {
      consider(drain_at(rec));
      const bool etcd_holds = admission_refusal_ || (admission_ == CoordinationResult::unavailable &&
                                                     policy_.hold_without_coordination);
      // A read still out at the forced instant is abandoned then (SPEC 3.9): wake for it.
      // So is a restore's step still out then (preempt_restore).
      const bool restore_step_out = step_in_flight_ && !is_drain_step(*step_in_flight_);
      if (safety_ == Safety::unsafe || etcd_holds || reads_in_flight() || restore_step_out)
        consider(forced_at(rec));
      // A read asked at or after that instant is given up late_check_grace after it was asked.
      if (const auto asked = reads_asked_at(); asked && *asked >= forced_at(rec))
        consider(*asked + policy_.late_check_grace);
      if (safety_ == Safety::unsafe && safety_at_) consider(*safety_at_ + policy_.unsafe_recheck);
    }
  }
  for (const auto& [key, at] : approval_retry_at_) consider(at);
  if (!quiet_ && !stages_in_flight_ && stages_next_read_) consider(*stages_next_read_);
  if (restore_retry_at_) consider(*restore_retry_at_);
  if (const auto closing = hint_window_closing_at()) consider(*closing);
  if (binary_hold_) {
    consider(binary_hold_->since + policy_.catch_up_max);
    if (binary_hold_->next_read && !binary_hold_->reading) consider(*binary_hold_->next_read);
  }
  if (state_.catch_up) {
    consider(state_.catch_up->since + policy_.catch_up_max);
    if (catch_up_next_read_ && !catch_up_in_flight_) consider(*catch_up_next_read_);
  }
  return best;
}

}  // namespace cla
