// The restore half of the core, and what it concludes at start-up from the state file and the node
// (SPEC 3.3, 3.6).
#include <algorithm>
#include <boost/json.hpp>

#include "state/core.hpp"

namespace cla {

Actions Core::start(const StartupInfo& info, WallTime now) {
  Actions out;
  boot_id_ = info.boot_id;
  boost::json::object status;
  status["gossip_running"] = info.gossip_running ? boost::json::value(*info.gossip_running) : nullptr;
  status["binary_running"] = info.binary_running ? boost::json::value(*info.binary_running) : nullptr;
  const bool found_disabled =
      (info.gossip_running && !*info.gossip_running) || (info.binary_running && !*info.binary_running);

  switch (info.source) {
    case StateSource::missing:
      log(out, Severity::info, "first_start", status);
      if (found_disabled)
        log(out, Severity::warning, "node_disabled_at_start",
            {{"gossip_running", status["gossip_running"]},
             {"binary_running", status["binary_running"]},
             {"reason", "no state file: an operator may be at work; the agent leaves the node as it is"}});
      break;
    case StateSource::corrupt:
      if (found_disabled) {
        // The agent may have drained it before the file was lost: adopt it, restore once no event remains.
        NodeDrainState& node = state_.node;
        node.out_of_service = true;
        node.binary_disabled = info.binary_running && !*info.binary_running;
        node.gossip_disabled = info.gossip_running && !*info.gossip_running;
        node.out_since = now;
        node.boot_id_at_drain = boot_id_;
        adopt_disabled_node_ = true;
        log(out, Severity::warning, "adopting_disabled_node", status);
      } else {
        log(out, Severity::info, "node_status_at_start", status);
      }
      break;
    case StateSource::loaded: {
      NodeDrainState& node = state_.node;
      if (node.out_of_service && rebooted_since_drain()) {
        adopt_node_after_reboot(info, out);
      } else if (node.out_of_service) {
        // Killed while a step ran, its result not yet persisted: the node is ahead of the flags. Adopt what
        // it shows, so that the drain does not repeat the step and the restore undoes it.
        if (info.gossip_running && !*info.gossip_running) node.gossip_disabled = true;
        if (info.binary_running && !*info.binary_running) node.binary_disabled = true;
      }
      if (!state_.boot_id.empty() && state_.boot_id != boot_id_) {
        bool expected = false;
        for (const auto& [key, rec] : state_.events)
          expected = expected || (rec.plan != EventPlan::other_vm && expects_restart(rec.event.type));
        log(out, expected ? Severity::info : Severity::warning,
            expected ? "reboot_detected" : "unexpected_reboot",
            {{"previous_boot_id", state_.boot_id},
             {"boot_id", boot_id_},
             {"node_out_of_service", state_.node.out_of_service}});
      }
      log(out, Severity::info, "state_loaded",
          {{"events", state_.events.size()},
           {"node_out_of_service", node.out_of_service},
           {"flushed", node.flushed},
           {"gossip_running", status["gossip_running"]},
           {"binary_running", status["binary_running"]}});
      break;
    }
  }
  state_.boot_id = boot_id_;
  out.push_back(Persist{});
  // Killed between the catch-up's end and the record's removal: the node serves, its record must go. While it
  // catches up (SPEC 3.10) the record stays: the next rack waits for it.
  if (policy_.coordinated && !state_.node.out_of_service && !found_disabled && !state_.catch_up)
    out.push_back(ReleaseDrain{});
  return out;
}

// After a reboot (SPEC 3.6) the state's flags describe a Cassandra that is gone: the new one may have
// started with the VM and serve gossip and clients. The flags follow what the node shows (unknown counts as
// serving, so that a drain disables it; a restore enables it anyway), nothing is flushed, and every event the
// node was drained for is drained for again: once a document shows it still listed, its missing steps run
// (never a flush: its restart came), without a gate or a new admission (its drain is counted already).
void Core::adopt_node_after_reboot(const StartupInfo& info, Actions& out) {
  NodeDrainState& node = state_.node;
  node.flushed = false;
  node.gossip_disabled = info.gossip_running && !*info.gossip_running;
  node.binary_disabled = info.binary_running && !*info.binary_running;
  gossip_unknown_after_boot_ = !info.gossip_running;
  binary_unknown_after_boot_ = !info.binary_running;
  boost::json::array drained_for;
  for (const auto& key : node.drained_for) {
    drained_for.emplace_back(key);
    const auto it = state_.events.find(key);
    if (it == state_.events.end()) continue;
    EventRecord& rec = it->second;
    rec.rebooted_through = true;
    rec.drain_complete = false;
    rec.drain_failed = false;
  }
  const auto shown = [](const std::optional<bool>& running) {
    return running ? boost::json::value(*running) : boost::json::value(nullptr);
  };
  log(out, Severity::info, "node_rejoined_at_boot",
      {{"gossip_running", shown(info.gossip_running)},
       {"binary_running", shown(info.binary_running)},
       {"drained_for", std::move(drained_for)},
       {"boot_id_at_drain", node.boot_id_at_drain},
       {"boot_id", boot_id_}});
}

// Back to back (SPEC 3.2): the last event the node was drained for is gone, but another event for this node
// would start its drain within hold_between_events_s (Azure often follows a Freeze with a Reboot). The node
// stays out, drained for that event, instead of coming back only to leave again; its remaining steps and
// its approval proceed as for a drained node, and the restore follows the last of them. After a reboot the
// node serves again on its own, so nothing is deferred: keeping it out would take a fresh node out early.
void Core::defer_restore(WallTime now, Actions& out) {
  const NodeDrainState& node = state_.node;
  if (!document_seen_ || !node.out_of_service || !node.drained_for.empty() || restoring_) return;
  if (rebooted_since_drain()) return;
  EventRecord* next = nullptr;
  WallTime next_at{};
  for (auto& [key, rec] : state_.events) {
    if (rec.plan != EventPlan::user_drain && rec.plan != EventPlan::platform_drain) continue;
    if (rec.event.status != EventStatus::scheduled || rec.drain_failed) continue;
    const WallTime at = drain_at(rec);
    if (at - now > policy_.hold_between_events) continue;
    if (!next || at < next_at) {
      next = &rec;
      next_at = at;
    }
  }
  if (!next) return;
  state_.node.drained_for.insert(to_upper(next->event.id));
  const auto gap = std::max(next_at - now, WallTime::duration::zero());
  log_event(out, Severity::info, "restore_deferred", *next,
            {{"gap_s", std::chrono::duration<double>(gap).count()},
             {"hold_between_events_s", policy_.hold_between_events.count()}});
  if (!next->notified_starting) {
    next->notified_starting = true;
    out.push_back(notification(MaintenancePhase::starting, next->event, next->event.not_before));
  }
  out.push_back(Persist{});
}

std::string_view Core::due_without_gate(const std::string& key, const EventRecord& rec, WallTime now) const {
  if (rec.plan != EventPlan::user_drain && rec.plan != EventPlan::platform_drain) return {};
  if (rec.drain_complete || rec.drain_failed) return {};
  if (rec.emergency) return "emergency_drain";
  if (state_.node.drained_for.count(key)) return "drain";  // a Started event while the node is out
  if (rec.event.status != EventStatus::scheduled || now < drain_at(rec)) return {};
  if (rec.plan == EventPlan::user_drain || node_is_out()) return "drain";
  return now >= forced_at(rec) ? "forced_drain" : "";
}

// A restore's step may run for minutes (enable* retried while Cassandra starts, a restart_command): a drain
// that is due and needs no gate check first (an emergency, a forced drain, a node still out) does not wait
// for it (SPEC 3.9). What the step may have changed counts as changed, so that the drain undoes it: an
// abandoned enable* may have enabled, an abandoned restart may have started Cassandra.
void Core::preempt_restore(WallTime now, Actions& out) {
  if (!step_in_flight_ || is_drain_step(*step_in_flight_)) return;
  for (auto& [key, rec] : state_.events) {
    const std::string_view why = due_without_gate(key, rec, now);
    if (why.empty()) continue;
    const Step step = *step_in_flight_;
    NodeDrainState& node = state_.node;
    if (step == Step::enable_gossip) node.gossip_disabled = false;
    if (step == Step::enable_binary) node.binary_disabled = false;
    if (step == Step::restart_cassandra) node.flushed = node.gossip_disabled = node.binary_disabled = false;
    // restoring_ stays: the node is no more out than it was, so no back-to-back hold takes it out without
    // its gate; the drain's first step ends this restore (restore_work), a later one starts afresh.
    step_in_flight_.reset();
    restart_done_ = serving_checked_ = false;
    log_event(out, Severity::warning, "restore_step_abandoned", rec,
              {{"step", to_string(step)}, {"for", why}});
    out.push_back(AbandonStep{step});
    out.push_back(Persist{});
    return;
  }
}

bool Core::restore_work(WallTime now, Actions& out) {
  const NodeDrainState& node = state_.node;
  if (!document_seen_ || !node.out_of_service || !node.drained_for.empty()) {
    restoring_ = false;
    reset_binary_hold();
    return false;
  }
  if (restore_retry_at_ && now < *restore_retry_at_) return false;
  // An approval on its way may still start an impact (a document that flaps between showing the event and
  // not showing it): no restore step until Azure has answered it; on_approval_done comes back here.
  if (approval_in_flight_) return false;
  if (!restoring_) {
    state_.node.gossip_disabled = state_.node.gossip_disabled || gossip_unknown_after_boot_;
    state_.node.binary_disabled = state_.node.binary_disabled || binary_unknown_after_boot_;
    gossip_unknown_after_boot_ = binary_unknown_after_boot_ = false;
    restoring_ = true;
    restart_done_ = false;
    serving_checked_ = steps_redone_ = false;
    reset_binary_hold();
    if (rebooted_since_drain() && !state_.node.started_afresh) {
      state_.node.started_afresh = true;
      out.push_back(Persist{});
    }
    log(out, Severity::info, "restore_started",
        {{"flushed", node.flushed}, {"rebooted", rebooted_since_drain()}});
  }
  const Step step = next_restore_step();
  if (step == Step::enable_binary && binary_held(now, out)) return true;
  step_in_flight_ = step;
  out.push_back(RunStep{step, now + policy_.restore_step_window});
  return true;
}

Step Core::next_restore_step() {
  NodeDrainState& node = state_.node;
  if (node.flushed) {
    if (rebooted_since_drain()) {
      node.flushed = false;  // the VM rebooted: Cassandra started afresh, memtables are no concern now
    } else if (policy_.has_restart_command && !restart_done_) {
      // Serving already (restarted by the impact or an operator): a restart would only take it out again.
      return serving_checked_ ? Step::restart_cassandra : Step::check_serving;
    } else {
      return Step::confirm_restored;  // no restart_command: has an operator restarted it meanwhile?
    }
  }
  if (node.gossip_disabled) return Step::enable_gossip;
  if (node.binary_disabled) return Step::enable_binary;
  return Step::confirm_restored;
}

void Core::restore_step_done(Step step, const StepOutcome& outcome, WallTime now, Actions& out) {
  NodeDrainState& node = state_.node;
  if (outcome.ok) {
    switch (step) {
      case Step::restart_cassandra:
        restart_done_ = true;
        node.started_afresh = true;
        node.flushed = false;
        break;
      case Step::enable_gossip:
        node.gossip_disabled = false;
        break;
      case Step::enable_binary:
        node.binary_disabled = false;
        break;
      case Step::check_serving:
        complete_restore(now, true, out);
        return;
      case Step::confirm_restored:
        complete_restore(now, false, out);
        return;
      default:
        break;
    }
    out.push_back(Persist{});
    return;
  }
  if (step == Step::check_serving) {
    serving_checked_ = true;  // not serving (drained, or down): the restart goes ahead
    log(out, Severity::info, "restart_needed", {{"detail", outcome.detail}});
    return;
  }
  if (outcome.refused_after_drain && (restart_done_ || rebooted_since_drain())) {
    // A node restarted since the drain is not drained: it refuses enable* while it is still starting.
    log(out, Severity::warning, "node_still_starting",
        {{"step", to_string(step)},
         {"detail", outcome.detail},
         {"retry_in_s", policy_.starting_node_retry.count()}});
    restore_retry_at_ = now + policy_.starting_node_retry;
    return;
  }
  if (step == Step::confirm_restored && redo_undone_steps(outcome, out)) return;
  if (outcome.refused_after_drain && !node.flushed) {
    // Cassandra says it was drained (e.g. state adopted after a lost file): it needs a restart.
    node.flushed = true;
    node.boot_id_at_drain = boot_id_;
    out.push_back(Persist{});
    return;
  }
  const bool needs_restart = node.flushed && !policy_.has_restart_command;
  boost::json::object f{
      {"step", to_string(step)}, {"detail", outcome.detail}, {"retry_in_s", policy_.restore_retry.count()}};
  if (!restore_failure_logged_) {
    restore_failure_logged_ = true;
    log(out, Severity::error, needs_restart ? "restart_required" : "restore_failed", std::move(f));
  } else {
    log(out, Severity::debug, "restore_retry_failed", std::move(f));
  }
  restart_done_ = false;
  restore_retry_at_ = now + policy_.restore_retry;
}

// The node shows a step undone that the flags say is done: an enable* abandoned for a drain counts as run (so
// that the drain undoes it), and that drain's disable* may have failed (a hung JMX) while the node never got
// the step back (game day, seed 2). The flags follow the node, and the missing steps run now, once a restore;
// a confirm that fails again waits for the next retry, which runs them again.
bool Core::redo_undone_steps(const StepOutcome& confirm, Actions& out) {
  NodeDrainState& node = state_.node;
  const bool gossip_off = confirm.gossip_running == false && !node.gossip_disabled;
  const bool binary_off = confirm.binary_running == false && !node.binary_disabled;
  if (!gossip_off && !binary_off) return false;
  if (gossip_off) node.gossip_disabled = true;
  if (binary_off) node.binary_disabled = true;
  out.push_back(Persist{});
  const bool at_once = !steps_redone_;
  steps_redone_ = true;
  log(out, at_once ? Severity::warning : Severity::debug, "restore_steps_undone",
      {{"detail", confirm.detail},
       {"gossip_disabled", node.gossip_disabled},
       {"binary_disabled", node.binary_disabled},
       {"at_once", at_once}});
  return at_once;
}

void Core::complete_restore(WallTime now, bool already_serving, Actions& out) {
  NodeDrainState& node = state_.node;
  const std::optional<WallTime> out_since = node.out_since;
  boost::json::object f;
  if (node.out_since)
    f["out_s"] = std::chrono::duration_cast<std::chrono::seconds>(now - *node.out_since).count();
  f["restarted"] = restart_done_;
  f["already_serving"] = already_serving;
  node = NodeDrainState{};
  reset_quiet();
  restoring_ = false;
  restore_failure_logged_ = false;
  restore_retry_at_.reset();
  log(out, Severity::info, "restore_completed", std::move(f));
  judge_hint_window(out_since, now, out);
  begin_catch_up(out_since, un_since_.value_or(now), now, out);  // releases the drain record once caught up
  reset_binary_hold();
  out.push_back(Persist{});
}

void Core::emit_pending_ended(Actions& out) {
  if (state_.node.out_of_service || state_.pending_ended.empty()) return;
  for (const auto& p : state_.pending_ended)
    out.push_back(notification(MaintenancePhase::ended, p.event, std::nullopt));
  state_.pending_ended.clear();
  out.push_back(Persist{});
}

}  // namespace cla
