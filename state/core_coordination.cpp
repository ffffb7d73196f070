// The coordinated half of the core (SPEC 9): etcd's drain admission beside the nodetool gate, shared-event
// approval, what the member key says, and how the core lives without etcd (on_unavailable).
#include <boost/json.hpp>

#include "state/core.hpp"

namespace cla {
namespace {

boost::json::array json_strings(const std::vector<std::string>& values) {
  boost::json::array out;
  for (const auto& v : values) out.emplace_back(v);
  return out;
}

}  // namespace

// unconditional: record the drain without the budget (a user drain, or a forced one: the impact comes
// anyway).
bool Core::admission_allows(EventRecord& rec, WallTime now, Actions& out, bool unconditional) {
  if (!policy_.coordinated) return true;
  if (admission_in_flight_) return false;
  const bool answered = admission_ && admission_unconditional_ == unconditional;
  if (answered && *admission_ == CoordinationResult::allowed) return true;
  if (answered && *admission_ == CoordinationResult::unavailable) {
    // local_gate: the nodetool gate alone decides. hold: no drain without etcd before the forced instant.
    if (unconditional || !policy_.hold_without_coordination) return true;
    if (now >= forced_at(rec)) {
      log_event(
          out, Severity::warning, "coordination_hold_ended", rec,
          {{"reason", "etcd unavailable until the forced-drain instant: draining on the nodetool gate"}});
      return true;
    }
    if (!admission_stale_) return false;
  }
  if (answered && *admission_ == CoordinationResult::refused && !admission_stale_) return false;
  admission_in_flight_ = true;
  admission_asked_at_ = now;
  admission_unconditional_ = unconditional;
  out.push_back(Admit{rec.event.id, unconditional});
  return false;
}

Actions Core::on_admission(const AdmissionOutcome& outcome, WallTime now) {
  Actions out;
  // No admission is out: it was abandoned for a forced or emergency drain (SPEC 3.9).
  if (!admission_in_flight_) return out;
  admission_in_flight_ = false;
  admission_ = outcome.result;
  admission_stale_ = false;
  note_coordination(outcome.result, outcome.detail, now, out);
  // A refusal stands until etcd admits within the budget: an unconditional record does not lift it (the
  // drain it allowed is still a forced one).
  if (outcome.result == CoordinationResult::allowed && !admission_unconditional_) admission_refusal_.reset();
  if (outcome.result == CoordinationResult::refused) {
    admission_refusal_ = outcome;
    for (auto& [key, rec] : state_.events) {
      if (rec.plan != EventPlan::platform_drain || state_.node.drained_for.count(key)) continue;
      if (rec.event.status != EventStatus::scheduled || now < drain_at(rec)) continue;
      if (!admission_refused_logged_.insert(key).second) continue;
      log_event(out, Severity::warning, "drain_not_admitted", rec,
                {{"out_racks", json_strings(outcome.out_racks)}, {"reason", outcome.detail}});
    }
  }
  advance(now, out);
  // Admitted, but no drain took it (the event went while etcd answered): the record must not hold a rack
  // (unless the node still catches up: then it holds it for that).
  if (admission_ == CoordinationResult::allowed && !state_.node.out_of_service && !state_.catch_up) {
    admission_.reset();
    out.push_back(ReleaseDrain{});
  }
  // Like a "safe" verdict, an admission is used at once or asked again: the event may be gone.
  if (safety_ == Safety::safe && !admission_in_flight_) safety_ = Safety::unknown;
  return out;
}

Actions Core::on_drain_recorded(const AdmissionOutcome& outcome, WallTime now) {
  Actions out;
  note_coordination(outcome.result, outcome.detail, now, out);
  advance(now, out);
  // The drain is over already (its event went while etcd answered): the record must not hold a rack.
  if (outcome.result == CoordinationResult::allowed && !state_.node.out_of_service && !state_.catch_up)
    out.push_back(ReleaseDrain{});
  return out;
}

void Core::note_coordination(CoordinationResult result, const std::string& detail, WallTime now,
                             Actions& out) {
  if (result != CoordinationResult::unavailable) {
    if (coordination_down_) log(out, Severity::info, "coordination_recovered");
    coordination_down_ = false;
    unavailable_logged_at_.reset();
    return;
  }
  coordination_down_ = true;
  if (unavailable_logged_at_ && now < *unavailable_logged_at_ + policy_.coordination_log_interval) return;
  unavailable_logged_at_ = now;
  log(out, Severity::warning, "coordination_unavailable",
      {{"detail", detail},
       {"on_unavailable", policy_.hold_without_coordination ? "hold" : "local_gate"},
       {"shared_events_approved", false}});
}

// A shared event is approved, in coordinated mode, once etcd shows every listed member drained for it and
// this agent is the one approver; asked again at every poll until then.
bool Core::shared_approval_allows(EventRecord& rec, Actions& out) {
  const std::string key = to_upper(rec.event.id);
  if (shared_ready_.count(key)) return true;
  if (!shared_in_flight_ && !shared_checked_.count(key)) {
    shared_in_flight_ = key;
    shared_checked_.insert(key);
    out.push_back(CheckSharedApproval{rec.event.id});
  }
  return false;
}

Actions Core::on_shared_verdict(const std::string& event_id, const SharedOutcome& outcome, WallTime now) {
  Actions out;
  shared_in_flight_.reset();
  note_coordination(outcome.result, outcome.detail, now, out);
  const std::string key = to_upper(event_id);
  if (EventRecord* rec = find(event_id)) {
    if (outcome.result == CoordinationResult::allowed) {
      shared_ready_.insert(key);
    } else if (outcome.result == CoordinationResult::refused) {
      boost::json::object f{{"approver", outcome.approver},
                            {"waiting_for", json_strings(outcome.waiting)},
                            {"without_member_key", json_strings(outcome.unregistered)},
                            {"reason", outcome.detail}};
      const std::string text = boost::json::serialize(f);
      if (shared_logged_[key] != text) {
        shared_logged_[key] = text;
        log_event(out, Severity::info, "shared_approval_waiting", *rec, std::move(f));
      }
    }
  }
  advance(now, out);
  return out;
}

MemberPhase Core::member_phase() const {
  if (restoring_) return MemberPhase::restoring;
  const NodeDrainState& node = state_.node;
  if (!node.out_of_service) return state_.catch_up ? MemberPhase::catching_up : MemberPhase::serving;
  if (!node.binary_disabled || !node.gossip_disabled) return MemberPhase::draining;
  for (const auto& key : node.drained_for) {
    auto it = state_.events.find(key);
    if (it != state_.events.end() && !it->second.drain_complete && !it->second.drain_failed &&
        next_drain_step(it->second))
      return MemberPhase::draining;
  }
  return MemberPhase::drained;
}

std::vector<std::string> Core::member_events() const {
  return {state_.node.drained_for.begin(), state_.node.drained_for.end()};
}

std::vector<std::string> Core::member_approved() const {
  std::vector<std::string> out;
  for (const auto& [id, rec] : state_.events)
    if (rec.approved) out.push_back(id);
  return out;
}

}  // namespace cla
