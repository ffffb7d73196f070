// Every impact drained (SPEC 3.2, 3.3), with a fake clock: events first seen Started get an emergency drain,
// back-to-back events keep the node out (restore_deferred), and the drain starts early by this node's
// measured gate + drain time (expected_drain_s).
#include <boost/test/unit_test.hpp>

#include "core_harness.hpp"
#include "state/core.hpp"

using namespace cla;
using namespace cla::test;

namespace {

// The fields of the first line logged as `msg`; fails the test when there is none.
boost::json::object fields_of(const Actions& actions, const std::string& msg) {
  for (const auto& l : all_of<LogAction>(actions))
    if (l.msg == msg) return l.fields;
  BOOST_FAIL("no " << msg << " line");
  return {};
}

std::vector<std::string> approvals(const Actions& a) {
  std::vector<std::string> ids;
  for (const auto& ap : all_of<Approve>(a)) ids.push_back(ap.event_id);
  return ids;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(core_impact_test)

// SPEC 3.2, first row: whatever put it there, an impact under way on a serving node is drained at once,
// without the gate, and never approved (it has started).
BOOST_AUTO_TEST_CASE(an_event_first_seen_started_is_drained_at_once_without_the_gate) {
  // A flushed node whose VM did not reboot (no restart_command here) is only confirmed: has an operator
  // restarted it meanwhile?
  const std::vector<Step> kConfirm = {Step::confirm_restored};
  struct Row {
    const char* name;
    EventSpec event;
    std::vector<Step> drain, restore;
  };
  const Row rows[] = {
      {"hardware failure (Reboot, no Scheduled phase)",
       {.type = "Reboot", .status = EventStatus::started},
       kDisableAndFlush,
       kConfirm},
      {"shared Freeze another VM approved",
       {.type = "Freeze", .status = EventStatus::started, .resources = {"vm1", "vm0"}, .duration_s = 20},
       kDisable,
       kRestore},
      {"user Redeploy seen late",
       {.type = "Redeploy", .status = EventStatus::started, .source = EventSource::user},
       kDisableAndFlush,
       kConfirm},
      {"5 s Freeze (default: every impact drained)",
       {.type = "Freeze", .status = EventStatus::started, .duration_s = 5},
       kDisable,
       kRestore},
  };
  for (const Row& row : rows) {
    BOOST_TEST_CONTEXT(row.name) {
      Core core = started_core();
      Driver d{core};
      d.safety = [] { return SafetyResult{false, "the gate must not be asked", {"rack2"}, {}}; };
      Actions a = d.feed(doc(2, {row.event}));
      BOOST_TEST(fields_of(a, "impact_without_drain").at("emergency").as_bool());
      BOOST_TEST(all_of<CheckSafety>(a).empty());
      BOOST_TEST((steps(a) == row.drain));
      BOOST_TEST(fields_of(a, "drain_started").at("emergency").as_bool());
      BOOST_TEST(fields_of(a, "drain_completed").at("emergency").as_bool());
      BOOST_TEST(approvals(a).empty(), "a started event needs no approval");
      for (const auto& r : all_of<RunStep>(a))
        BOOST_TEST((r.deadline == T0 + 60s), "no NotBefore once Started: retried for 60 s");
      BOOST_TEST((phases(a) == std::vector{MaintenancePhase::start}), "Start, no Starting (SPEC 3.7)");

      a = d.feed(doc(3, {}));
      BOOST_TEST((steps(a) == row.restore));
      BOOST_TEST(logged(a, "restore_completed"));
      BOOST_TEST((phases(a) == std::vector{MaintenancePhase::ended}));
      BOOST_TEST(!core.state().node.out_of_service);
    }
  }
}

BOOST_AUTO_TEST_CASE(a_no_impact_freeze_an_operator_enabled_that_starts_is_quiet) {
  CorePolicy p = test_policy();
  p.no_impact_freeze_max_s = 9;
  Core core = started_core(p);
  Driver d{core};
  const Actions a = d.feed(doc(2, {{.type = "Freeze", .status = EventStatus::started, .duration_s = 5}}));
  BOOST_TEST(!logged(a, "impact_without_drain"));
  BOOST_TEST(steps(a).empty());
}

// The gate held the drain (another rack out); then the event started (another VM approved it, or Azure went
// ahead): the node leaves at once rather than be frozen while serving.
BOOST_AUTO_TEST_CASE(started_while_the_gate_waits_is_drained_as_an_emergency) {
  Core core = started_core();
  Driver d{core};
  d.safety = [] { return SafetyResult{false, "rack2 down", {"rack2"}, {}}; };
  const EventSpec scheduled{.type = "Freeze", .not_before_in = 60s, .duration_s = 20};
  Actions a = d.feed_at(T0 + 31s, doc(2, {scheduled}));
  BOOST_TEST(logged(a, "unsafe_to_drain"));
  BOOST_TEST(steps(a).empty());
  a = d.feed_at(T0 + 33s, doc(3, {{.type = "Freeze", .status = EventStatus::started, .duration_s = 20}}));
  BOOST_TEST(logged(a, "impact_without_drain"));
  BOOST_TEST(all_of<CheckSafety>(a).empty());
  BOOST_TEST((steps(a) == kDisable));
  BOOST_TEST(!logged(a, "drain_forced_unsafe"), "an emergency is not a forced drain: nothing to approve");
}

// The drain was under way when the event started: its steps go on, with no warning (the node was being
// drained for it).
BOOST_AUTO_TEST_CASE(a_drain_under_way_when_the_event_starts_goes_on) {
  Core core = started_core();
  Driver d{core};
  d.feed(doc(2, {{.type = "Reboot"}}));
  core.on_timer(T0 + 15min - 30s);
  core.on_safety({true, "ok", {}, {}}, T0 + 15min - 30s);
  // disablebinary is done; the event starts while disablegossip runs.
  core.on_step_done(Step::disable_binary, {true, false, ""}, T0 + 15min - 29s);
  Actions a =
      core.on_document(doc(3, {{.type = "Reboot", .status = EventStatus::started}}), T0 + 15min - 28s);
  BOOST_TEST(!logged(a, "impact_without_drain"));
  a = core.on_step_done(Step::disable_gossip, {true, false, ""}, T0 + 15min - 27s);
  BOOST_TEST((steps(a) == std::vector{Step::flush}));
  a = core.on_step_done(Step::flush, {true, false, ""}, T0 + 15min - 20s);
  BOOST_TEST(logged(a, "drain_completed"));
  BOOST_TEST(all_of<Approve>(a).empty());
}

// Drained for a Freeze already; a Reboot is seen Started: the node stays out for it and is flushed, but no
// emergency (it does not serve).
BOOST_AUTO_TEST_CASE(started_while_drained_for_another_event_keeps_the_node_out) {
  Core core = started_core();
  Driver d{core};
  const EventSpec freeze{.id = "F", .type = "Freeze", .not_before_in = 20s, .duration_s = 30};
  d.feed(doc(2, {freeze}));
  Actions a = d.feed(doc(3, {freeze, {.id = "R", .type = "Reboot", .status = EventStatus::started}}));
  BOOST_TEST(!logged(a, "impact_without_drain"));
  BOOST_TEST((steps(a) == std::vector{Step::flush}));
  a = d.feed(doc(4, {{.id = "R", .type = "Reboot", .status = EventStatus::started}}));
  BOOST_TEST(steps(a).empty(), "the Reboot still holds the node");
  BOOST_TEST(core.state().node.out_of_service);
}

// The emergency drain's flush was cut short by the VM's reboot. Restarted on the new boot with the event
// still Started and the fresh Cassandra serving, the agent takes it out again (SPEC 3.6), but never flushes
// it: the restart the flush prepared for has come.
BOOST_AUTO_TEST_CASE(a_drain_interrupted_by_the_reboot_takes_the_fresh_node_out_without_a_flush) {
  Core first = started_core();
  const EventSpec started{.type = "Reboot", .status = EventStatus::started};
  Actions a = first.on_document(doc(2, {started}), T0);
  a = first.on_step_done(Step::disable_binary, {true, false, ""}, T0 + 1s);
  a = first.on_step_done(Step::disable_gossip, {true, false, ""}, T0 + 2s);
  BOOST_TEST((steps(a) == std::vector{Step::flush}));
  const AgentState on_disk = first.state();  // killed by the reboot while nodetool drain ran

  Core again = started_core(test_policy(), on_disk, StateSource::loaded, "boot-2");
  Driver d{again, T0 + 90s};
  a = d.feed(doc(3, {started}));
  BOOST_TEST((steps(a) == kDisable), "out again, and no flush of the freshly started Cassandra");
  BOOST_TEST(fields_of(a, "drain_completed").at("after_reboot").as_bool());
  a = d.feed(doc(4, {}));
  BOOST_TEST(logged(a, "restore_completed"));
  BOOST_TEST(!again.state().node.out_of_service);
}

// The impact killed the JVM while `nodetool drain` ran (a Reboot played by killing the process, the VM up):
// with a restart_command the restore asks whether the node serves and restarts it, rather than retry
// enablegossip on a dead process.
BOOST_AUTO_TEST_CASE(a_flush_the_impact_cut_short_is_restarted_at_restore) {
  for (const bool has_restart : {true, false}) {
    BOOST_TEST_CONTEXT("restart_command configured: " << has_restart) {
      CorePolicy p = test_policy();
      p.has_restart_command = has_restart;
      Core core = started_core(p);
      Driver d{core};
      d.step = [](Step s) {
        return StepOutcome{s != Step::flush, false, s == Step::flush ? "JMX connection refused" : ""};
      };
      Actions a = d.feed(doc(2, {{.type = "Reboot", .not_before_in = 10s}}));
      BOOST_TEST(logged(a, "nodetool_failed"));
      BOOST_TEST(core.state().node.flushed == has_restart);
      d.step = [](Step s) { return StepOutcome{s != Step::check_serving, false, "not running"}; };
      a = d.feed_at(T0 + 60s, doc(3, {}));
      if (has_restart)
        BOOST_TEST((steps(a) == std::vector{Step::check_serving, Step::restart_cassandra, Step::enable_gossip,
                                            Step::enable_binary, Step::confirm_restored}));
      else
        BOOST_TEST((steps(a) == kRestore), "without a restart_command: enable* as before");
    }
  }
}

BOOST_AUTO_TEST_CASE(coordinated_an_emergency_drain_is_recorded_unconditionally_beside_its_first_command) {
  CorePolicy p = test_policy();
  p.coordinated = true;
  Core core = started_core(p);
  Driver d{core};
  d.admission = [](const Admit& admit) {
    BOOST_TEST(admit.forced, "the impact is under way: recorded without the budget");
    return AdmissionOutcome{};
  };
  const Actions a = d.feed(doc(2, {{.type = "Freeze", .status = EventStatus::started, .duration_s = 20}}));
  const auto admits = all_of<Admit>(a);
  BOOST_TEST_REQUIRE(admits.size() == 1u);
  BOOST_TEST((steps(a) == kDisable));
  std::size_t admit_at = a.size(), first_step_at = a.size();
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::holds_alternative<Admit>(a[i]) && admit_at == a.size()) admit_at = i;
    if (std::holds_alternative<RunStep>(a[i]) && first_step_at == a.size()) first_step_at = i;
  }
  // SPEC 3.9: disablebinary goes first, the record beside it, and the drain does not wait for etcd.
  BOOST_TEST(first_step_at < admit_at, "recorded beside the first mutating command, never before it");
  BOOST_TEST(!admits[0].awaited);
}

// SPEC 3.2, back to back: with another event for this node due within hold_between_events_s, the node stays
// out when the event it was drained for goes; otherwise it comes back. Times are relative to the Freeze's
// removal at T0 + 5 min; the next event is a Reboot (drain at NotBefore - 30 s).
BOOST_AUTO_TEST_CASE(back_to_back_events_keep_the_node_out_within_the_hold) {
  struct Row {
    const char* name;
    std::chrono::seconds hold;
    std::optional<EventSpec> next;  // relative to T0
    bool deferred;
  };
  const WallTime removal = T0 + 5min;
  const Row rows[] = {
      {"Reboot 60 s after the Freeze ends", 120s, EventSpec{.id = "R", .not_before_in = 5min + 90s}, true},
      {"drain exactly at the hold", 120s, EventSpec{.id = "R", .not_before_in = 5min + 150s}, true},
      {"drain beyond the hold", 120s, EventSpec{.id = "R", .not_before_in = 5min + 151s}, false},
      {"hold 0", 0s, EventSpec{.id = "R", .not_before_in = 5min + 90s}, false},
      {"user Reboot pending (drains at once)", 120s,
       EventSpec{.id = "R", .not_before_in = 30min, .source = EventSource::user}, true},
      {"no next event", 120s, std::nullopt, false},
      {"next event for another VM", 120s,
       EventSpec{.id = "R", .resources = {"vm1"}, .not_before_in = 5min + 90s}, false},
  };
  for (const Row& row : rows) {
    BOOST_TEST_CONTEXT(row.name) {
      CorePolicy p = test_policy();
      p.hold_between_events = row.hold;
      Core core = started_core(p);
      Driver d{core};
      const EventSpec freeze{.id = "F", .type = "Freeze", .not_before_in = 1min, .duration_s = 30};
      d.feed(doc(2, {freeze}));
      d.at(T0 + 30s);  // the Freeze's drain
      BOOST_REQUIRE(core.state().node.out_of_service);
      std::vector<EventSpec> both{
          {.id = "F", .type = "Freeze", .status = EventStatus::started, .duration_s = 30}};
      if (row.next) both.push_back(*row.next);
      // A user event drains at once when seen: let it arrive only with the Freeze's removal.
      if (!row.next || row.next->source != EventSource::user) d.feed_at(T0 + 2min, doc(3, both));

      std::vector<EventSpec> after;
      if (row.next) after.push_back(*row.next);
      Actions a = d.feed_at(removal, doc(4, after));
      BOOST_TEST(logged(a, "restore_deferred") == row.deferred);
      BOOST_TEST(logged(a, "restore_started") == !row.deferred);
      if (!row.deferred) continue;
      const auto f = fields_of(a, "restore_deferred");
      BOOST_TEST(f.at("event_id").as_string() == "R");
      BOOST_TEST(core.state().node.out_of_service);
      BOOST_TEST(core.state().node.drained_for.count("R") == 1u);
      BOOST_TEST(all_of<CheckSafety>(a).empty(), "the node is out: nothing for the gate to decide");
      BOOST_TEST((steps(a) == std::vector{Step::flush}), "the Reboot's remaining step, at once");
      BOOST_TEST((approvals(a) == std::vector<std::string>{"R"}));

      a = d.feed_at(removal + 3min, doc(5, {}));
      BOOST_TEST(logged(a, "restore_started"), "one restore, after the last of them");
      BOOST_TEST(logged(a, "restore_completed"));
    }
  }
}

BOOST_AUTO_TEST_CASE(a_deferred_restore_whose_next_event_goes_away_restores_at_once) {
  Core core = started_core();
  Driver d{core};
  const EventSpec freeze{.id = "F", .type = "Freeze", .not_before_in = 1min, .duration_s = 30};
  const EventSpec reboot{.id = "R", .type = "Reboot", .not_before_in = 5min};
  d.feed(doc(2, {freeze, reboot}));
  d.at(T0 + 30s);
  Actions a = d.feed_at(T0 + 3min, doc(3, {reboot}));
  BOOST_TEST(logged(a, "restore_deferred"));
  BOOST_TEST(fields_of(a, "restore_deferred").at("gap_s").as_double() == 90.0);
  a = d.feed_at(T0 + 3min + 5s, doc(4, {}));  // the Reboot was cancelled
  BOOST_TEST(logged(a, "restore_started"));
  BOOST_TEST(logged(a, "restore_completed"));
}

// After a reboot the node serves again by itself: a restore is never deferred then.
BOOST_AUTO_TEST_CASE(no_deferral_after_the_vm_rebooted) {
  Core first = started_core();
  Driver d{first};
  const EventSpec reboot{.id = "R", .type = "Reboot", .not_before_in = 1min};
  const EventSpec freeze{.id = "F", .type = "Freeze", .not_before_in = 4min, .duration_s = 30};
  d.feed(doc(2, {reboot, freeze}));
  d.at(T0 + 30s);
  BOOST_REQUIRE(first.state().node.flushed);
  Core again = started_core(test_policy(), first.state(), StateSource::loaded, "boot-2");
  Driver d2{again, T0 + 2min};
  const Actions a = d2.feed(doc(3, {freeze}));
  BOOST_TEST(!logged(a, "restore_deferred"));
  BOOST_TEST(logged(a, "restore_started"));
}

// SPEC 3.3: the drain starts earlier by the longest of the last measured gate + drain durations, x1.5.
BOOST_AUTO_TEST_CASE(the_drain_starts_early_by_the_measured_gate_and_drain_time) {
  Core core = started_core();
  const EventSpec first{.id = "A", .type = "Freeze", .not_before_in = 10min, .duration_s = 30};
  core.on_document(doc(2, {first}), T0);
  BOOST_TEST((*core.next_wakeup(T0) == T0 + 10min - 30s), "nothing measured yet: NotBefore - drain_lead_s");

  // The gate takes 4 s (status under load) and the two steps 6 s: 10 s from the gate's question.
  const WallTime asked = T0 + 10min - 30s;
  Actions a = core.on_timer(asked);
  BOOST_REQUIRE(all_of<CheckSafety>(a).size() == 1u);
  a = core.on_safety({true, "ok", {}, {}}, asked + 4s);
  BOOST_TEST(fields_of(a, "drain_started").at("expected_drain_s").as_double() == 0.0);
  core.on_step_done(Step::disable_binary, {true, false, ""}, asked + 7s);
  a = core.on_step_done(Step::disable_gossip, {true, false, ""}, asked + 10s);
  BOOST_TEST(fields_of(a, "drain_completed").at("gate_and_drain_ms").as_int64() == 10000);
  BOOST_TEST((core.state().drain_durations_ms == std::vector<std::int64_t>{10000}));
  Driver d{core, asked + 10s};
  d.run(a);  // the approval
  BOOST_TEST(logged(d.feed_at(asked + 60s, doc(3, {})), "restore_completed"));

  const EventSpec second{.id = "B", .type = "Freeze", .not_before_in = 30min, .duration_s = 30};
  d.feed_at(asked + 2min, doc(4, {second}));
  BOOST_TEST((*core.next_wakeup(d.now) == T0 + 30min - 30s - 15s), "earlier by 10 s x1.5");
  a = core.on_timer(T0 + 30min - 45s);
  BOOST_REQUIRE(all_of<CheckSafety>(a).size() == 1u);
  a = core.on_safety({true, "ok", {}, {}}, T0 + 30min - 45s);
  BOOST_TEST(fields_of(a, "drain_started").at("expected_drain_s").as_double() == 15.0);
}

BOOST_AUTO_TEST_CASE(the_expectation_follows_the_last_five_measurements_and_only_gated_drains) {
  struct Row {
    const char* name;
    std::vector<std::int64_t> measured_ms;
    std::chrono::milliseconds expected;
  };
  const Row rows[] = {
      {"none", {}, 0ms},
      {"one", {2000}, 3000ms},
      {"the longest counts", {2000, 8000, 4000}, 12000ms},
      {"only the last five", {40000, 1000, 1000, 1000, 1000, 2000}, 3000ms},
  };
  for (const Row& row : rows) {
    BOOST_TEST_CONTEXT(row.name) {
      AgentState state;
      state.drain_durations_ms = row.measured_ms;
      Core core = started_core(test_policy(), state, StateSource::loaded);
      core.on_document(doc(2, {{.type = "Freeze", .not_before_in = 10min, .duration_s = 30}}), T0);
      BOOST_TEST((*core.next_wakeup(T0) == T0 + 10min - 30s - row.expected));
    }
  }
  // A user drain (no gate) adds no measurement; neither does a failed one.
  Core core = started_core();
  Driver d{core};
  d.feed(doc(2, {{.type = "Reboot", .source = EventSource::user}}));
  BOOST_TEST(core.state().drain_durations_ms.empty());
  Core failing = started_core();
  Driver f{failing};
  f.step = [](Step) { return StepOutcome{false, false, "JMX refused"}; };
  f.feed(doc(2, {{.type = "Freeze", .not_before_in = 10s, .duration_s = 30}}));
  BOOST_TEST(logged(f.feed(doc(3, {})), "restore_started"));
  BOOST_TEST(failing.state().drain_durations_ms.empty());
}

// SPEC 3.3, before the first measured drain (a new agent): the calls already made show what a nodetool JVM
// costs on this node, and the path runs them one after another: the gate's round, disablebinary,
// disablegossip (3), and drain when the event flushes (4); x1.5. A measured drain then takes over.
BOOST_AUTO_TEST_CASE(before_any_measured_drain_the_nodetool_calls_set_the_expectation) {
  struct Row {
    const char* name;
    const char* type;
    std::vector<std::int64_t> calls_ms;
    std::chrono::milliseconds expected;
  };
  const Row rows[] = {
      {"no call made", "Freeze", {}, 0ms},
      {"a Freeze: 3 calls", "Freeze", {4000, 6000}, 27000ms},
      {"a Reboot flushes: 4 calls", "Reboot", {4000, 6000}, 36000ms},
      {"only the last five calls", "Freeze", {20000, 1000, 1000, 1000, 1000, 2000}, 9000ms},
  };
  for (const Row& row : rows) {
    BOOST_TEST_CONTEXT(row.name) {
      Core core = started_core();
      for (const auto ms : row.calls_ms) core.note_nodetool_call(std::chrono::milliseconds(ms));
      core.on_document(doc(2, {{.type = row.type, .not_before_in = 10min, .duration_s = 30}}), T0);
      BOOST_TEST((*core.next_wakeup(T0) == T0 + 10min - 30s - row.expected));
      const Actions a = core.on_timer(T0 + 10min - 30s - row.expected);
      BOOST_REQUIRE(all_of<CheckSafety>(a).size() == 1u);
      const Actions started = core.on_safety({true, "ok", {}, {}}, T0 + 10min - 30s - row.expected);
      BOOST_TEST(fields_of(started, "drain_started").at("expected_drain_s").as_double() ==
                 static_cast<double>(row.expected.count()) / 1000.0);
    }
  }
  // Once a drain was measured (2 s), the calls (20 s each) no longer count.
  AgentState state;
  state.drain_durations_ms = {2000};
  Core core = started_core(test_policy(), state, StateSource::loaded);
  core.note_nodetool_call(20s);
  core.on_document(doc(2, {{.type = "Freeze", .not_before_in = 10min, .duration_s = 30}}), T0);
  BOOST_TEST((*core.next_wakeup(T0) == T0 + 10min - 30s - 3s));
}

BOOST_AUTO_TEST_SUITE_END()
