// The decision core, one SPEC 3.2-3.5 transition per test case, driven with a fake clock and scripted
// outcomes.
#include "state/core.hpp"

#include <boost/test/unit_test.hpp>

#include "core_harness.hpp"

using namespace cla;
using namespace cla::test;

namespace {

std::vector<std::string> approvals(const Actions& a) {
  std::vector<std::string> ids;
  for (const auto& ap : all_of<Approve>(a)) ids.push_back(ap.event_id);
  return ids;
}

// Every Approve must follow a Persist taken after the event's drain completed.
void check_persist_before_approve(const Actions& a) {
  bool persisted = false;
  for (const auto& x : a) {
    if (std::holds_alternative<Persist>(x)) persisted = true;
    if (std::holds_alternative<Approve>(x)) {
      BOOST_TEST(persisted, "approve without a persist before it");
      persisted = false;
    }
    if (std::holds_alternative<RunStep>(x)) persisted = false;
  }
}
}  // namespace

BOOST_AUTO_TEST_SUITE(core_test)

BOOST_AUTO_TEST_CASE(platform_freeze_lifecycle_drains_at_lead_time_approves_and_restores) {
  Core core = started_core();
  Driver d{core};
  const EventSpec freeze{.type = "Freeze", .duration_s = 30};
  Actions a = d.feed(doc(2, {freeze}));
  BOOST_TEST(logged(a, "event_seen"));
  BOOST_TEST(steps(a).empty());
  BOOST_TEST(all_of<CheckSafety>(a).empty());
  BOOST_TEST((phases(a) == std::vector{MaintenancePhase::scheduled}));
  BOOST_REQUIRE(core.next_wakeup(d.now).has_value());
  BOOST_TEST((*core.next_wakeup(d.now) == T0 + 15min - 30s));

  a = d.at(T0 + 15min - 31s);
  BOOST_TEST(all_of<CheckSafety>(a).empty(), "not before NotBefore - drain_lead_s");

  a = d.at(T0 + 15min - 30s);
  BOOST_TEST(all_of<CheckSafety>(a).size() == 1u);
  BOOST_TEST((steps(a) == kDisable), "a freeze disables but does not flush");
  BOOST_TEST(logged(a, "drain_started"));
  BOOST_TEST(logged(a, "drain_completed"));
  BOOST_TEST((approvals(a) == std::vector<std::string>{"E1"}));
  check_persist_before_approve(a);
  BOOST_TEST((phases(a) == std::vector{MaintenancePhase::starting, MaintenancePhase::start}));
  for (const auto& r : all_of<RunStep>(a))
    BOOST_TEST((r.deadline == T0 + 15min), "steps retry until NotBefore");
  BOOST_TEST(core.state().node.out_of_service);

  a = d.feed(doc(3, {{.type = "Freeze", .status = EventStatus::started, .duration_s = 30}}));
  BOOST_TEST(!logged(a, "impact_without_drain"));
  BOOST_TEST(steps(a).empty());
  BOOST_TEST(phases(a).empty(), "Start was already announced at approval");

  a = d.feed(doc(4, {}));
  BOOST_TEST(logged(a, "event_removed"));
  BOOST_TEST((steps(a) == kRestore));
  BOOST_TEST(logged(a, "restore_completed"));
  BOOST_TEST((phases(a) == std::vector{MaintenancePhase::ended}));
  BOOST_TEST(!core.state().node.out_of_service);
}

BOOST_AUTO_TEST_CASE(reboot_flushes_then_restores_after_the_vm_rebooted) {
  Core core = started_core();
  Driver d{core};
  d.feed(doc(2, {{.type = "Reboot"}}));
  Actions a = d.at(T0 + 15min - 30s);
  BOOST_TEST((steps(a) == kDisableAndFlush));
  BOOST_TEST(core.state().node.flushed);
  BOOST_TEST(approvals(a).size() == 1u);

  // The VM reboots; the agent starts again from the persisted state with a new boot id, before Cassandra
  // answers JMX: the restore enables both (harmless on a node that serves) and needs no restart_command.
  Core after = started_while_cassandra_starts(test_policy(), d.persisted.back());
  Driver d2{after, T0 + 16min};
  a = d2.feed(doc(5, {}));
  BOOST_TEST((steps(a) == kRestore), "no restart_command after a real reboot");
  BOOST_TEST(!after.state().node.out_of_service);

  // Started once Cassandra serves again with the boot: the flags follow it, the restore only confirms.
  Core serving = started_core(test_policy(), d.persisted.back(), StateSource::loaded, "boot-2");
  Driver d3{serving, T0 + 16min};
  a = d3.feed(doc(5, {}));
  BOOST_TEST((steps(a) == std::vector{Step::confirm_restored}));
  BOOST_TEST(logged(a, "restore_completed"));
}

BOOST_AUTO_TEST_CASE(reboot_event_moves_the_expected_reboot_out_of_the_warnings) {
  Core core = started_core();
  Driver d{core};
  d.feed(doc(2, {{.type = "Reboot"}}));
  d.at(T0 + 15min - 30s);
  Core after(test_policy(), d.persisted.back());
  Actions a = after.start(StartupInfo{StateSource::loaded, "boot-2", true, true}, T0 + 16min);
  BOOST_TEST(logged(a, "reboot_detected"));
  BOOST_TEST(!logged(a, "unexpected_reboot"));

  Core quiet(test_policy(), AgentState{.boot_id = "boot-1"});
  a = quiet.start(StartupInfo{StateSource::loaded, "boot-2", true, true}, T0);
  BOOST_TEST(logged(a, "unexpected_reboot"));
}

BOOST_AUTO_TEST_CASE(cancel_after_flush_restarts_cassandra_when_the_vm_did_not_reboot) {
  CorePolicy p = test_policy();
  p.has_restart_command = true;
  Core core = started_core(p);
  Driver d{core};
  d.feed(doc(2, {{.type = "Redeploy"}}));
  d.at(T0 + 15min - 30s);
  d.step = [](Step s) {
    return s == Step::check_serving ? StepOutcome{false, false, "statusgossip: not running"}
                                    : StepOutcome{true, false, ""};
  };
  Actions a = d.feed(doc(3, {}));  // cancelled: gone while still Scheduled
  BOOST_TEST((steps(a) == std::vector{Step::check_serving, Step::restart_cassandra, Step::enable_gossip,
                                      Step::enable_binary, Step::confirm_restored}));
  BOOST_TEST(!core.state().node.out_of_service);
}

BOOST_AUTO_TEST_CASE(cancel_after_flush_without_restart_command_logs_restart_required_and_retries) {
  Core core = started_core();
  Driver d{core};
  d.step = [](Step s) {
    return s == Step::confirm_restored ? StepOutcome{false, false, "not running"}
                                       : StepOutcome{true, false, ""};
  };
  d.feed(doc(2, {{.type = "Reboot"}}));
  d.at(T0 + 15min - 30s);
  d.now = T0 + 16min;
  Actions a = d.feed(doc(3, {}));
  BOOST_TEST((steps(a) == std::vector{Step::confirm_restored}));
  BOOST_TEST(logged(a, "restart_required"));
  BOOST_TEST(core.state().node.out_of_service);
  BOOST_REQUIRE(core.next_wakeup(d.now).has_value());
  BOOST_TEST((*core.next_wakeup(d.now) == T0 + 17min), "retried every 60 s");

  a = d.at(T0 + 17min);
  BOOST_TEST((steps(a) == std::vector{Step::confirm_restored}));
  BOOST_TEST(!logged(a, "restart_required"), "logged once, not at every retry");

  d.step = [](Step) { return StepOutcome{true, false, ""}; };  // an operator restarted Cassandra
  a = d.at(T0 + 18min);
  BOOST_TEST(logged(a, "restore_completed"));
  BOOST_TEST(!core.state().node.out_of_service);
}

BOOST_AUTO_TEST_CASE(cancel_before_drain_touches_nothing) {
  Core core = started_core();
  Driver d{core};
  d.feed(doc(2, {{.type = "Reboot"}}));
  Actions a = d.feed_at(T0 + 5min, doc(3, {}));
  BOOST_TEST(steps(a).empty());
  BOOST_TEST(logged(a, "event_removed"));
  BOOST_TEST((phases(a) == std::vector{MaintenancePhase::ended}));
  BOOST_TEST(!core.next_wakeup(d.now).has_value());
  a = d.at(T0 + 15min);
  BOOST_TEST(a.empty());
}

BOOST_AUTO_TEST_CASE(second_impact_while_started_changes_nothing) {
  Core core = started_core();
  Driver d{core};
  d.feed(doc(2, {{.type = "Freeze", .duration_s = 30}}));
  d.at(T0 + 15min - 30s);
  const EventSpec started{.type = "Freeze", .status = EventStatus::started, .duration_s = 30};
  d.feed(doc(3, {started}));
  Actions a = d.feed(doc(4, {started}));  // Azure re-publishes: another impact inside the window
  BOOST_TEST(steps(a).empty());
  BOOST_TEST(approvals(a).empty());
  BOOST_TEST(core.state().node.out_of_service);
}

BOOST_AUTO_TEST_CASE(overlapping_events_keep_the_node_out_until_the_last_is_gone) {
  Core core = started_core();
  Driver d{core};
  const EventSpec freeze{.id = "F", .type = "Freeze", .not_before_in = 2min, .duration_s = 30};
  const EventSpec reboot{.id = "R", .type = "Reboot", .not_before_in = 10min};
  d.feed(doc(2, {freeze, reboot}));
  Actions a = d.at(T0 + 2min - 30s);
  BOOST_TEST((steps(a) == kDisable));
  a = d.at(T0 + 10min - 30s);
  BOOST_TEST((steps(a) == std::vector{Step::flush}), "already disabled: only the flush is left");
  BOOST_TEST(all_of<CheckSafety>(a).empty(), "the node is already out: nothing for the gate to decide");
  a = d.feed(doc(3, {reboot}));
  BOOST_TEST(steps(a).empty(), "the reboot still holds the node");
  a = d.feed(doc(4, {}));
  BOOST_TEST(!steps(a).empty());
  BOOST_TEST(!core.state().node.out_of_service);
}

BOOST_AUTO_TEST_CASE(events_for_other_vms_are_logged_once_and_ignored) {
  Core core = started_core();
  Driver d{core};
  const EventSpec other{.resources = {"vm1"}, .not_before_in = 0s};
  Actions a = d.feed(doc(2, {other}));
  BOOST_TEST(logged(a, "event_seen"));
  BOOST_TEST(all_of<LogAction>(a).front().fields.at("affects_this_node").as_bool() == false);
  BOOST_TEST(steps(a).empty());
  BOOST_TEST(phases(a).empty());
  a = d.feed(doc(2, {other}));
  BOOST_TEST(!logged(a, "event_seen"));
  a = d.feed(doc(3, {}));
  BOOST_TEST(all_of<LogAction>(a).empty());
}

BOOST_AUTO_TEST_CASE(a_schema_refresh_is_asked_once_for_an_event_the_gate_will_be_asked_about) {
  struct Row {
    const char* name;
    EventSpec event;
    bool refreshes;
  };
  const Row rows[] = {
      {"platform Reboot, Scheduled", {.type = "Reboot"}, true},
      {"platform Freeze, NotBefore past", {.type = "Freeze", .not_before_in = -5s, .duration_s = 30}, true},
      {"platform Redeploy, no NotBefore", {.type = "Redeploy", .not_before_in = std::nullopt}, true},
      {"first seen Started: emergency drain, no gate", {.status = EventStatus::started}, false},
      {"user Reboot: drained at once, no gate", {.source = EventSource::user}, false},
      {"another VM's", {.resources = {"vm1"}}, false},
      {"short Freeze: approved at once, no drain", {.type = "Freeze", .duration_s = 5}, false},
  };
  for (const Row& row : rows) {
    BOOST_TEST_CONTEXT(row.name) {
      CorePolicy p = test_policy();
      p.no_impact_freeze_max_s = 9;
      Core core = started_core(p);
      Driver d{core};
      Actions a = d.feed(doc(2, {row.event}));
      BOOST_TEST(all_of<RefreshSchema>(a).size() == (row.refreshes ? 1u : 0u));
      if (row.refreshes) {
        // Asked with the sighting, before the gate's check, so the check can wait for it.
        const auto refresh = std::find_if(
            a.begin(), a.end(), [](const Action& x) { return std::holds_alternative<RefreshSchema>(x); });
        const auto check = std::find_if(
            a.begin(), a.end(), [](const Action& x) { return std::holds_alternative<CheckSafety>(x); });
        BOOST_TEST((refresh < check), "refresh_schema before check_safety");
      }
      a = d.feed(doc(3, {row.event}));
      BOOST_TEST(all_of<RefreshSchema>(a).empty(), "only at the first sighting");
    }
  }
}

BOOST_AUTO_TEST_CASE(not_before_past_or_empty_drains_at_once_and_days_ahead_waits) {
  struct Row {
    const char* name;
    std::optional<std::chrono::seconds> not_before_in;
    bool drains_now;
  };
  const Row rows[] = {{"past", -5s, true},
                      {"empty", std::nullopt, true},
                      {"within lead", 20s, true},
                      {"days ahead", std::chrono::hours(24 * 5), false}};
  for (const Row& row : rows) {
    BOOST_TEST_CONTEXT(row.name) {
      Core core = started_core();
      Driver d{core};
      Actions a = d.feed(doc(2, {{.type = "Freeze", .not_before_in = row.not_before_in, .duration_s = 30}}));
      BOOST_TEST(!steps(a).empty() == row.drains_now);
      if (!row.drains_now) BOOST_TEST((*core.next_wakeup(d.now) == T0 + std::chrono::hours(24 * 5) - 30s));
      if (row.drains_now && !row.not_before_in)
        BOOST_TEST((all_of<RunStep>(a).front().deadline == T0 + 60s), "no NotBefore: retry for 60 s");
    }
  }
}

BOOST_AUTO_TEST_CASE(user_event_drains_at_once_without_the_gate_and_approves) {
  Core core = started_core();
  Driver d{core};
  d.safety = [] { return SafetyResult{false, "never asked", {"rack2"}, {}}; };
  Actions a = d.feed(doc(2, {{.type = "Reboot", .source = EventSource::user}}));
  BOOST_TEST(all_of<CheckSafety>(a).empty());
  BOOST_TEST((steps(a) == kDisableAndFlush));
  BOOST_TEST((approvals(a) == std::vector<std::string>{"E1"}));
}

BOOST_AUTO_TEST_CASE(user_event_is_not_approved_when_approve_user_events_is_false) {
  CorePolicy p = test_policy();
  p.approve_user_events = false;
  Core core = started_core(p);
  Driver d{core};
  Actions a = d.feed(doc(2, {{.type = "Reboot", .source = EventSource::user}}));
  BOOST_TEST(!steps(a).empty());
  BOOST_TEST(approvals(a).empty());
  BOOST_TEST(logged(a, "approval_withheld"));
}

BOOST_AUTO_TEST_CASE(short_freeze_is_approved_at_once_without_drain_and_started_is_quiet) {
  CorePolicy p = test_policy();
  p.no_impact_freeze_max_s = 9;  // the docs' sample; the default 0 drains every impactful event
  Core core = started_core(p);
  Driver d{core};
  Actions a = d.feed(doc(2, {{.type = "Freeze", .duration_s = 5}}));
  BOOST_TEST(steps(a).empty());
  BOOST_TEST((approvals(a) == std::vector<std::string>{"E1"}));
  check_persist_before_approve(a);
  BOOST_TEST(phases(a).empty(), "no notifications for no-impact freezes");
  a = d.feed(doc(3, {{.type = "Freeze", .status = EventStatus::started, .duration_s = 5}}));
  BOOST_TEST(!logged(a, "impact_without_drain"));
  BOOST_TEST(phases(a).empty());
}

BOOST_AUTO_TEST_CASE(unknown_event_type_is_impactful) {
  Core core = started_core();
  Driver d{core};
  Actions a = d.feed(doc(2, {{.type = "Hibernate", .not_before_in = 10s, .duration_s = 1}}));
  BOOST_TEST((steps(a) == kDisable));
  BOOST_TEST(approvals(a).size() == 1u);
}

BOOST_AUTO_TEST_CASE(shared_event_is_drained_but_approved_only_when_allowed) {
  for (bool allowed : {false, true}) {
    BOOST_TEST_CONTEXT("approve_shared_events=" << allowed) {
      CorePolicy p = test_policy();
      p.approve_shared_events = allowed;
      Core core = started_core(p);
      Driver d{core};
      Actions a = d.feed(
          doc(2, {{.type = "Freeze", .resources = {"vm0", "vm1"}, .not_before_in = 5s, .duration_s = 30}}));
      BOOST_TEST((steps(a) == kDisable));
      BOOST_TEST(approvals(a).size() == (allowed ? 1u : 0u));
      BOOST_TEST(logged(a, "approval_withheld") == !allowed);
    }
  }
}

BOOST_AUTO_TEST_CASE(unsafe_then_safe_waits_and_rechecks_every_unsafe_recheck_s) {
  Core core = started_core();
  Driver d{core};
  d.safety = [] { return SafetyResult{false, "rack2 down", {"rack2"}, {}}; };
  const auto reboot = doc(2, {{.type = "Reboot"}});
  d.feed(reboot);
  Actions a = d.at(T0 + 15min - 30s);
  BOOST_TEST(all_of<CheckSafety>(a).size() == 1u);
  BOOST_TEST(logged(a, "unsafe_to_drain"));
  BOOST_TEST(steps(a).empty());
  BOOST_TEST(approvals(a).empty());
  const auto recheck = test_policy().unsafe_recheck;
  BOOST_TEST((*core.next_wakeup(d.now) == T0 + 15min - 30s + recheck), "the re-check is armed");

  d.now += 1s;
  a = d.feed(reboot);
  BOOST_TEST(all_of<CheckSafety>(a).empty(), "not asked again before unsafe_recheck_s");
  a = d.at(T0 + 15min - 30s + recheck);
  BOOST_TEST(all_of<CheckSafety>(a).size() == 1u, "asked again after unsafe_recheck_s");
  BOOST_TEST(!logged(a, "unsafe_to_drain"), "logged once per event");
  BOOST_TEST((*core.next_wakeup(d.now) == T0 + 15min - 30s + 2 * recheck), "and the next re-check armed");

  d.safety = [] { return SafetyResult{true, "ok", {}, {}}; };
  a = d.at(T0 + 15min - 30s + 2 * recheck);
  BOOST_TEST((steps(a) == kDisableAndFlush));
  BOOST_TEST(approvals(a).size() == 1u);
}

// The replication verdict's exact fields (SPEC 3.4) reach unsafe_to_drain and drain_forced_unsafe as given,
// with the racks and the line for people beside them.
BOOST_AUTO_TEST_CASE(unsafe_lines_carry_the_verdicts_exact_fields) {
  Core core = started_core();
  Driver d{core};
  const boost::json::object exact{{"keyspace", "lifecycle"}, {"start_token", "-9"},
                                  {"end_token", "5"},        {"needed", 2},
                                  {"available", 1},          {"down", {"127.0.1.2"}}};
  d.safety = [&] { return SafetyResult{false, "keyspace lifecycle short", {"rack2"}, exact}; };
  const auto reboot = doc(2, {{.type = "Reboot"}});
  d.feed(reboot);
  for (const Actions& a : {d.at(T0 + 15min - 30s), d.at(T0 + 15min - 10s)}) {
    const auto lines = all_of<LogAction>(a);
    const auto line = std::find_if(lines.begin(), lines.end(), [](const LogAction& l) {
      return l.msg == "unsafe_to_drain" || l.msg == "drain_forced_unsafe";
    });
    BOOST_REQUIRE(line != lines.end());
    for (const auto& [key, value] : exact) BOOST_TEST(line->fields.at(key) == value, line->msg << " " << key);
    BOOST_TEST(line->fields.at("down_racks") == boost::json::array{"rack2"});
    BOOST_TEST(line->fields.at("detail") == "keyspace lifecycle short");
    BOOST_TEST(!line->fields.contains("reason"), "a short range is named by its fields, not a reason");
  }
}

BOOST_AUTO_TEST_CASE(unsafe_until_the_forced_instant_drains_but_never_approves) {
  Core core = started_core();
  Driver d{core};
  d.safety = [] { return SafetyResult{false, "rack2 down", {"rack2"}, {}}; };
  const auto reboot = doc(2, {{.type = "Reboot"}});
  d.feed(reboot);
  d.at(T0 + 15min - 30s);
  Actions a = d.at(T0 + 15min - 10s);
  BOOST_TEST(logged(a, "drain_forced_unsafe"));
  BOOST_TEST((steps(a) == kDisableAndFlush));
  BOOST_TEST(approvals(a).empty());
  a = d.feed(reboot);
  BOOST_TEST(approvals(a).empty(), "not later either");
}

BOOST_AUTO_TEST_CASE(drain_failure_is_logged_and_never_approved_then_restored_on_removal) {
  Core core = started_core();
  Driver d{core};
  d.step = [](Step s) {
    return s == Step::disable_gossip ? StepOutcome{false, false, "exit 2: error"}
                                     : StepOutcome{true, false, ""};
  };
  d.feed(doc(2, {{.type = "Freeze", .duration_s = 30}}));
  Actions a = d.at(T0 + 15min - 30s);
  BOOST_TEST(logged(a, "nodetool_failed"));
  BOOST_TEST(approvals(a).empty());
  BOOST_TEST(core.state().node.out_of_service, "binary was disabled: the node must be restored later");
  d.step = [](Step) { return StepOutcome{true, false, ""}; };
  a = d.feed(doc(3, {}));
  BOOST_TEST(logged(a, "restore_completed"));
}

// The document flaps: the event is gone while its approval is on its way. The approval may still start the
// impact, so the node stays drained until Azure has answered; then it is restored.
BOOST_AUTO_TEST_CASE(no_restore_starts_while_an_approval_is_in_flight) {
  Core core = started_core();
  const auto freeze = doc(2, {{.type = "Freeze", .duration_s = 30}});
  Driver d{core};
  d.feed(freeze);
  d.now = T0 + 15min - 30s;
  Actions a = core.on_timer(d.now);  // the drain is due: run it by hand, up to the approval
  BOOST_REQUIRE(all_of<CheckSafety>(a).size() == 1u);
  a = core.on_safety(SafetyResult{true, "ok", {}, {}}, d.now);
  while (!steps(a).empty()) a = core.on_step_done(steps(a).front(), StepOutcome{true, false, ""}, d.now);
  BOOST_REQUIRE((approvals(a) == std::vector<std::string>{"E1"}));

  a = core.on_document(doc(3, {}), d.now);
  BOOST_TEST(logged(a, "event_removed"));
  BOOST_TEST(steps(a).empty(), "no restore step while the approval is in flight");
  BOOST_TEST(core.state().node.out_of_service);

  a = d.run(core.on_approval_done("E1", ApprovalOutcome{ApprovalResult::ok, ""}, d.now));
  BOOST_TEST((steps(a) == kRestore));
  BOOST_TEST(logged(a, "restore_completed"));
}

BOOST_AUTO_TEST_CASE(approval_is_retried_on_network_errors_but_not_after_a_400) {
  CorePolicy no_impact = test_policy();
  no_impact.no_impact_freeze_max_s = 9;  // approved at once, without a drain in the way
  Core core = started_core(no_impact);
  Driver d{core};
  int calls = 0;
  d.approval = [&](const std::string&) {
    return ++calls == 1 ? ApprovalOutcome{ApprovalResult::retryable_failure, "timeout"}
                        : ApprovalOutcome{ApprovalResult::ok, ""};
  };
  const auto freeze = doc(2, {{.type = "Freeze", .duration_s = 1}});
  Actions a = d.feed(freeze);
  BOOST_TEST(logged(a, "approval_failed"));
  BOOST_TEST((*core.next_wakeup(d.now) == T0 + 2s));
  a = d.at(T0 + 2s);
  BOOST_TEST(logged(a, "event_approved"));

  Core core2 = started_core(no_impact);
  Driver d2{core2};
  d2.approval = [](const std::string&) { return ApprovalOutcome{ApprovalResult::rejected, "400"}; };
  a = d2.feed(freeze);
  BOOST_TEST(logged(a, "approval_rejected"));
  BOOST_TEST(!core2.next_wakeup(d2.now).has_value());
  a = d2.feed(freeze);
  BOOST_TEST(approvals(a).empty());
}

BOOST_AUTO_TEST_CASE(incarnation_going_backwards_is_logged_and_evaluated_in_full) {
  CorePolicy no_impact = test_policy();
  no_impact.no_impact_freeze_max_s = 9;
  Core core = started_core(no_impact);
  Driver d{core};
  d.feed(doc(200, {}));
  Actions a = d.feed(doc(1, {{.type = "Freeze", .duration_s = 2}}));
  BOOST_TEST(logged(a, "incarnation_went_backwards"));
  BOOST_TEST(approvals(a).size() == 1u);
}

BOOST_AUTO_TEST_CASE(event_log_lines_carry_the_correlation_fields) {
  Core core = started_core();
  Driver d{core};
  Actions a = d.feed(doc(42, {{.id = "AbC-1", .type = "Reboot", .resources = {"vm0", "vm1"}}}));
  const auto logs = all_of<LogAction>(a);
  BOOST_REQUIRE(!logs.empty());
  const auto& f = logs.front().fields;
  BOOST_TEST(f.at("event_id").as_string() == "AbC-1");
  BOOST_TEST(f.at("event_type").as_string() == "Reboot");
  BOOST_TEST(f.at("event_status").as_string() == "Scheduled");
  BOOST_TEST(f.at("event_source").as_string() == "Platform");
  BOOST_TEST(f.at("resources").as_array().size() == 2u);
  BOOST_TEST(f.at("document_incarnation").as_int64() == 42);
  BOOST_TEST(f.contains("not_before"));
}

BOOST_AUTO_TEST_CASE(a_safe_verdict_whose_event_vanished_is_not_used_for_a_later_event) {
  Core core = started_core();
  Driver d{core};
  core.on_document(doc(2, {{.id = "A", .type = "Freeze", .not_before_in = 0s, .duration_s = 30}}), T0);
  // The check is in flight when the event is cancelled; its "safe" answer comes after.
  core.on_document(doc(3, {}), T0 + 1s);
  Actions a = core.on_safety({true, "ok", {}, {}}, T0 + 2s);
  BOOST_TEST(steps(a).empty());
  a = d.feed_at(T0 + 1h,
                doc(4, {{.id = "B", .type = "Freeze", .not_before_in = std::nullopt, .duration_s = 30}}));
  BOOST_TEST(all_of<CheckSafety>(a).size() == 1u, "an hour later the cluster must be asked again");
}

BOOST_AUTO_TEST_CASE(an_old_unsafe_verdict_does_not_force_a_new_event_without_asking) {
  Core core = started_core();
  Driver d{core};
  d.safety = [] { return SafetyResult{false, "rack2 down", {"rack2"}, {}}; };
  d.feed(doc(2, {{.id = "A", .type = "Freeze", .duration_s = 30}}));
  Actions a = d.at(T0 + 15min - 30s);
  BOOST_TEST(logged(a, "unsafe_to_drain"));
  d.feed_at(T0 + 15min - 29s, doc(3, {}));  // A cancelled while unsafe
  d.safety = [] { return SafetyResult{true, "ok", {}, {}}; };
  // B has no NotBefore: were the old verdict used, B would be force-drained at once and never approved.
  a = d.feed_at(T0 + 1h,
                doc(4, {{.id = "B", .type = "Freeze", .not_before_in = std::nullopt, .duration_s = 30}}));
  BOOST_TEST(all_of<CheckSafety>(a).size() == 1u);
  BOOST_TEST(!logged(a, "drain_forced_unsafe"));
  BOOST_TEST(!steps(a).empty());
  BOOST_TEST(all_of<Approve>(a).size() == 1u);
}

BOOST_AUTO_TEST_CASE(every_notification_carries_the_correlation_fields_even_ended_after_a_restart) {
  Core core = started_core();
  Driver d{core};
  const EventSpec reboot{.id = "R-1", .type = "Reboot", .resources = {"vm0"}, .not_before_in = 10s};
  Actions a = d.feed(doc(5, {reboot}));  // NotBefore is within the lead: drained and approved at once
  // Killed after the drain; the event goes while the agent is down; Ended comes from the restarted agent.
  auto on_disk = decode_state(boost::json::serialize(encode_state(core.state())));
  BOOST_REQUIRE(on_disk.ok());
  Core again = started_core(test_policy(), on_disk.value(), StateSource::loaded, "boot-2");
  Driver d2{again};
  Actions b = d2.feed(doc(9, {}));
  a.insert(a.end(), b.begin(), b.end());
  const auto notes = all_of<Notify>(a);
  BOOST_REQUIRE(notes.size() == 4u);  // Scheduled, Starting, Start, Ended
  BOOST_TEST((notes.back().phase == MaintenancePhase::ended));
  for (const Notify& n : notes) {
    BOOST_TEST(n.event_fields.at("event_id").as_string() == "R-1");
    BOOST_TEST(n.event_fields.at("event_type").as_string() == "Reboot");
    BOOST_TEST(n.event_fields.at("event_source").as_string() == "Platform");
    BOOST_TEST(n.event_fields.at("resources").as_array().size() == 1u);
    BOOST_TEST(n.event_fields.contains("event_status"));
    BOOST_TEST(n.event_fields.contains("not_before"));
    BOOST_TEST(n.event_fields.contains("document_incarnation"));
  }
}

BOOST_AUTO_TEST_SUITE_END()
