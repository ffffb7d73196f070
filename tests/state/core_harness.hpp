// Test driver for the decision core: builds events, feeds documents, and plays the shell with scripted
// outcomes.
#pragma once

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "state/core.hpp"
#include "state/state_codec.hpp"

namespace cla::test {

using namespace std::chrono_literals;

inline const WallTime T0 = WallTime(std::chrono::seconds(1'800'000'000));

// The nodetool steps of a drain (without and with the flush) and of a restore, in their order.
inline const std::vector<Step> kDisable = {Step::disable_binary, Step::disable_gossip};
inline const std::vector<Step> kDisableAndFlush = {Step::disable_binary, Step::disable_gossip, Step::flush};
inline const std::vector<Step> kRestore = {Step::enable_gossip, Step::enable_binary, Step::confirm_restored};

struct EventSpec {
  std::string id = "E1";
  std::string type = "Reboot";
  EventStatus status = EventStatus::scheduled;
  std::vector<std::string> resources = {"vm0"};
  std::optional<std::chrono::seconds> not_before_in = 15min;  // relative to T0; nullopt = ""
  EventSource source = EventSource::platform;
  std::int64_t duration_s = -1;
};

inline ScheduledEvent make_event(const EventSpec& s) {
  ScheduledEvent e;
  e.id = s.id;
  e.type = s.type;
  e.resource_type = "VirtualMachine";
  e.resources = s.resources;
  e.status = s.status;
  e.status_text = s.status == EventStatus::started ? "Started" : "Scheduled";
  if (s.not_before_in && s.status == EventStatus::scheduled) {
    e.not_before = T0 + *s.not_before_in;
    e.not_before_text = "set";
  }
  e.source = s.source;
  e.source_text = s.source == EventSource::user ? "User" : "Platform";
  e.duration_s = s.duration_s;
  return e;
}

inline EventsDocument doc(std::int64_t incarnation, std::vector<EventSpec> specs) {
  EventsDocument d;
  d.incarnation = incarnation;
  for (const auto& s : specs) d.events.push_back(make_event(s));
  return d;
}

inline CorePolicy test_policy() {
  CorePolicy p;
  p.resource_name = "vm0";
  p.quiet = std::chrono::seconds(0);         // approvals at once; core_quiet_test covers the wait
  p.catch_up_max = std::chrono::seconds(0);  // back at restore_completed; core_catch_up_test covers the wait
  return p;
}

inline CorePolicy coordinated_policy() {
  CorePolicy p = test_policy();
  p.coordinated = true;
  return p;
}

// Index of the first action of type T, or the size when none.
template <class T>
std::size_t first(const Actions& a) {
  for (std::size_t i = 0; i < a.size(); ++i)
    if (std::holds_alternative<T>(a[i])) return i;
  return a.size();
}

template <class T>
std::vector<T> all_of(const Actions& actions) {
  std::vector<T> out;
  for (const auto& a : actions)
    if (auto* t = std::get_if<T>(&a)) out.push_back(*t);
  return out;
}

// Index of the first RunStep of `step`, or the size when none.
inline std::size_t index_of_step(const Actions& a, Step step) {
  for (std::size_t i = 0; i < a.size(); ++i)
    if (auto* r = std::get_if<RunStep>(&a[i]); r && r->step == step) return i;
  return a.size();
}

// The first log line named `msg`, or nullptr.
inline const LogAction* find_log(const Actions& actions, const std::string& msg) {
  for (const auto& a : actions)
    if (auto* l = std::get_if<LogAction>(&a); l && l->msg == msg) return l;
  return nullptr;
}

inline bool logged(const Actions& actions, const std::string& msg) {
  return find_log(actions, msg) != nullptr;
}

inline std::vector<Step> steps(const Actions& actions) {
  std::vector<Step> out;
  for (const auto& r : all_of<RunStep>(actions)) out.push_back(r.step);
  return out;
}

inline std::vector<MaintenancePhase> phases(const Actions& actions) {
  std::vector<MaintenancePhase> out;
  for (const auto& n : all_of<Notify>(actions)) out.push_back(n.phase);
  return out;
}

// Plays the shell: executes every action the core asks for with the scripted outcomes until it asks for
// nothing more, and returns every action seen. `persisted` receives the state at each Persist.
struct Driver {
  Core& core;
  WallTime now = T0;
  std::function<SafetyResult()> safety = [] { return SafetyResult{true, "ok", {}, {}}; };
  std::function<StepOutcome(Step)> step = [](Step) { return StepOutcome{true, false, ""}; };
  std::function<ApprovalOutcome(const std::string&)> approval = [](const std::string&) {
    return ApprovalOutcome{ApprovalResult::ok, ""};
  };
  std::function<AdmissionOutcome(const Admit&)> admission = [](const Admit&) { return AdmissionOutcome{}; };
  std::function<SharedOutcome(const std::string&)> shared = [](const std::string&) {
    return SharedOutcome{};
  };
  // ReadStages' answer (SPEC 3.10): unchanged counts by default.
  std::function<StagesOutcome()> stages = [] { return StagesOutcome{StageCounts{5, 7, 0}, ""}; };
  std::vector<AgentState> persisted{};
  // false: a CheckSafety (an awaited Admit) is left unanswered, as a hung JMX (etcd) leaves it; counted in
  // held_checks (held_admissions). The test answers it later, or never.
  bool answer_checks = true;
  bool answer_admissions = true;
  bool answer_stages = true;  // false: a ReadStages is left out, counted in held_stages
  int held_stages = 0;
  // ReadCatchUp's answer (SPEC 3.10): nobody holds hints for the node by default.
  std::function<CatchUpOutcome()> catch_up = [] { return CatchUpOutcome{true, {}, 0, ""}; };
  bool answer_catch_up = true;  // false: a ReadCatchUp is left out, counted in held_catch_ups
  int held_catch_ups = 0;
  int held_checks = 0;
  int held_admissions = 0;
  // `hold_step(step)` true: that RunStep is left out (a hung JMX, a restart_command that does not end),
  // recorded in held_steps. The test answers it later (core.on_step_done), or never.
  std::function<bool(Step)> hold_step = [](Step) { return false; };
  std::vector<Step> held_steps{};

  Actions run(Actions pending) {
    Actions seen;
    for (std::size_t i = 0; i < pending.size(); ++i) {
      const Action a = pending[i];
      seen.push_back(a);
      Actions more;
      if (std::holds_alternative<Persist>(a)) persisted.push_back(core.state());
      if (std::holds_alternative<CheckSafety>(a)) {
        if (answer_checks)
          more = core.on_safety(safety(), now);
        else
          ++held_checks;
      }
      if (auto* r = std::get_if<RunStep>(&a)) {
        if (hold_step(r->step))
          held_steps.push_back(r->step);
        else
          more = core.on_step_done(r->step, step(r->step), now);
      }
      if (auto* ap = std::get_if<Approve>(&a))
        more = core.on_approval_done(ap->event_id, approval(ap->event_id), now);
      if (auto* ad = std::get_if<Admit>(&a)) {
        if (!ad->awaited)
          more = core.on_drain_recorded(admission(*ad), now);
        else if (answer_admissions)
          more = core.on_admission(admission(*ad), now);
        else
          ++held_admissions;
      }
      if (std::holds_alternative<ReadStages>(a)) {
        if (answer_stages)
          more = core.on_stages(stages(), now);
        else
          ++held_stages;
      }
      if (std::holds_alternative<ReadCatchUp>(a)) {
        if (answer_catch_up)
          more = core.on_catch_up(catch_up(), now);
        else
          ++held_catch_ups;
      }
      if (auto* c = std::get_if<CheckSharedApproval>(&a))
        more = core.on_shared_verdict(c->event_id, shared(c->event_id), now);
      pending.insert(pending.end(), more.begin(), more.end());
    }
    return seen;
  }
  Actions feed(const EventsDocument& d) { return run(core.on_document(d, now)); }
  Actions at(WallTime t) {
    now = t;
    return run(core.on_timer(now));
  }
  Actions feed_at(WallTime t, const EventsDocument& d) {
    now = t;
    return feed(d);
  }
};

// A ReadCatchUp answer (SPEC 3.10): `holders` still hold `files` hints files for the node.
inline CatchUpOutcome held_by(std::vector<std::string> holders, std::int64_t files) {
  return CatchUpOutcome{true, std::move(holders), files, ""};
}

inline Core started_core(CorePolicy policy = test_policy(), AgentState state = {},
                         StateSource source = StateSource::missing, std::string boot_id = "boot-1") {
  Core core(std::move(policy), std::move(state));
  core.start(StartupInfo{source, std::move(boot_id), true, true}, T0);
  return core;
}

// Started from `state` after the VM rebooted, while its Cassandra is still starting: JMX does not answer, so
// the start-up could not tell gossip's or binary's state.
inline Core started_while_cassandra_starts(CorePolicy policy, AgentState state) {
  Core core(std::move(policy), std::move(state));
  core.start(StartupInfo{StateSource::loaded, "boot-2", std::nullopt, std::nullopt}, T0);
  return core;
}

}  // namespace cla::test
