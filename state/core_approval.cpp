// The approval half of the core (SPEC 3.5): approve only what is drained and persisted, or needs no drain.
#include <algorithm>
#include <boost/json.hpp>

#include "state/core.hpp"

namespace cla {

namespace {
std::chrono::seconds approval_backoff(int attempts) {
  const int exp = std::min(attempts, 5);
  return std::chrono::seconds(1 << exp);  // 2, 4, ... 32 s
}
}  // namespace

bool Core::wants_approval(EventRecord& rec, WallTime now, Actions& out) {
  if (rec.event.status != EventStatus::scheduled || rec.approved || rec.approval_rejected) return false;
  if (rec.approval_withheld) return false;
  switch (rec.plan) {
    case EventPlan::other_vm:
      return false;
    case EventPlan::no_impact:
      break;
    case EventPlan::user_drain:
    case EventPlan::platform_drain:
      // Never before the drain is complete and persisted; never after a forced (unsafe) or failed drain.
      if (!rec.drain_complete || rec.forced_unsafe || rec.drain_failed) return false;
      break;
  }
  const bool shared = is_shared(rec.event, policy_.resource_name);
  // Coordinated, a drained shared event waits for etcd to show every listed VM drained (SPEC 9).
  const bool coordinated_shared = shared && policy_.coordinated && rec.plan != EventPlan::no_impact;
  std::string withheld;
  if (rec.plan == EventPlan::user_drain && !policy_.approve_user_events)
    withheld = "approve_user_events is false";
  else if (shared && !coordinated_shared && !policy_.approve_shared_events)
    withheld =
        "the event also names other VMs and approve_shared_events is false: an approval would start it for "
        "them";
  if (!withheld.empty()) {
    rec.approval_withheld = true;
    log_event(out, Severity::info, "approval_withheld", rec, {{"reason", withheld}});
    return false;
  }
  if (rec.plan != EventPlan::no_impact && !node_quiet(rec, now, out)) return false;
  return !coordinated_shared || shared_approval_allows(rec, out);
}

void Core::approval_work(WallTime now, Actions& out) {
  if (approval_in_flight_) return;
  for (auto& [key, rec] : state_.events) {
    if (!wants_approval(rec, now, out)) continue;
    auto retry = approval_retry_at_.find(key);
    if (retry != approval_retry_at_.end() && now < retry->second) continue;
    approval_in_flight_ = key;
    out.push_back(Persist{});  // the drain (and this intent) is on disk before Azure hears anything
    out.push_back(Approve{rec.event.id});
    return;
  }
}

Actions Core::on_approval_done(const std::string& event_id, const ApprovalOutcome& outcome, WallTime now) {
  Actions out;
  approval_in_flight_.reset();
  const std::string key = to_upper(event_id);
  if (EventRecord* rec = find(event_id)) {
    switch (outcome.result) {
      case ApprovalResult::ok:
        rec->approved = true;
        rec->approved_at = now;
        approval_retry_at_.erase(key);
        approval_attempts_.erase(key);
        log_event(out, Severity::info, "event_approved", *rec);
        if (rec->plan != EventPlan::no_impact && !rec->notified_start) {
          rec->notified_start = true;
          out.push_back(notification(MaintenancePhase::start, rec->event, std::nullopt));
        }
        out.push_back(Persist{});
        break;
      case ApprovalResult::retryable_failure: {
        const int attempts = ++approval_attempts_[key];
        approval_retry_at_[key] = now + approval_backoff(attempts);
        log_event(out, Severity::warning, "approval_failed", *rec,
                  {{"detail", outcome.detail},
                   {"attempt", attempts},
                   {"retry_in_s", approval_backoff(attempts).count()}});
        break;
      }
      case ApprovalResult::rejected:
        rec->approval_rejected = true;
        log_event(out, Severity::error, "approval_rejected", *rec, {{"detail", outcome.detail}});
        out.push_back(Persist{});
        break;
    }
  }
  advance(now, out);
  return out;
}

}  // namespace cla
