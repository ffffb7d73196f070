// SPEC 3.6: restarts from every persisted state, lost or corrupt state files, and the crash-consistency
// invariant.
#include <boost/test/unit_test.hpp>

#include "core_harness.hpp"
#include "state/core.hpp"

using namespace cla;
using namespace cla::test;

namespace {

struct Scenario {
  const char* name;
  CorePolicy policy;
  EventSpec event;
};

std::vector<Scenario> scenarios() {
  CorePolicy shared = test_policy();
  shared.approve_shared_events = true;
  CorePolicy restartable = test_policy();
  restartable.has_restart_command = true;
  CorePolicy no_impact = test_policy();
  no_impact.no_impact_freeze_max_s = 9;
  return {
      {"platform freeze", test_policy(), {.type = "Freeze", .duration_s = 30}},
      {"platform reboot", test_policy(), {.type = "Reboot"}},
      {"reboot with restart_command", restartable, {.type = "Reboot"}},
      {"user redeploy", test_policy(), {.type = "Redeploy", .source = EventSource::user}},
      {"shared freeze", shared, {.type = "Freeze", .resources = {"vm0", "vm1"}, .duration_s = 30}},
      {"short freeze (drained by default)", test_policy(), {.type = "Freeze", .duration_s = 2}},
      {"short freeze (no-impact freezes enabled)", no_impact, {.type = "Freeze", .duration_s = 2}},
      {"hardware failure (first seen Started)",
       test_policy(),
       {.type = "Reboot", .status = EventStatus::started}},
  };
}

// An approval is only ever sent for an event that needs no drain, or whose drain is complete in `state`.
void expect_approvable(const Core& core, const std::string& id) {
  const auto it = core.state().events.find(to_upper(id));
  BOOST_REQUIRE(it != core.state().events.end());
  const EventRecord& rec = it->second;
  BOOST_TEST((rec.plan == EventPlan::no_impact || (rec.drain_complete && !rec.forced_unsafe)),
             "approval before the node was drained for " << id);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(core_restart_test)

BOOST_AUTO_TEST_CASE(killed_at_any_persisted_instant_the_node_is_never_left_drained) {
  for (const Scenario& sc : scenarios()) {
    Core first = started_core(sc.policy);
    Driver d{first};
    d.approval = [&](const std::string& id) {
      expect_approvable(first, id);
      return ApprovalOutcome{ApprovalResult::ok, ""};
    };
    const EventsDocument scheduled = doc(2, {sc.event});
    d.feed(scheduled);
    d.at(T0 + 15min - 30s);
    BOOST_TEST_REQUIRE(d.persisted.size() > 2u);

    for (std::size_t k = 0; k < d.persisted.size(); ++k) {
      for (const char* boot : {"boot-1", "boot-2"}) {
        BOOST_TEST_CONTEXT(sc.name << ", killed after persist #" << k << ", restarted with " << boot) {
          // What is on disk goes through the codec, as it would after a real restart.
          auto reloaded = decode_state(boost::json::serialize(encode_state(d.persisted[k])));
          BOOST_REQUIRE(reloaded.ok());
          Core again = started_core(sc.policy, reloaded.value(), StateSource::loaded, boot);
          Driver d2{again, T0 + 15min - 20s};
          d2.approval = [&](const std::string& id) {
            expect_approvable(again, id);
            return ApprovalOutcome{ApprovalResult::ok, ""};
          };
          d2.feed(scheduled);
          d2.feed_at(T0 + 20min, doc(9, {}));
          BOOST_TEST(!again.state().node.out_of_service, "left drained with no event remaining");
          BOOST_TEST(again.state().pending_ended.empty(), "NodeMaintenanceEnded never announced");
        }
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(restart_mid_drain_resumes_at_the_next_step_without_repeating_done_ones) {
  Core first = started_core();
  Driver d{first};
  d.feed(doc(2, {{.type = "Reboot"}}));
  // Killed while disablegossip ran: disablebinary is done and persisted.
  Actions a = first.on_timer(T0 + 15min - 30s);
  a = first.on_safety({true, "ok", {}, {}}, T0 + 15min - 30s);
  a = first.on_step_done(Step::disable_binary, {true, false, ""}, T0 + 15min - 29s);
  AgentState on_disk = first.state();

  Core again = started_core(test_policy(), on_disk, StateSource::loaded, "boot-1");
  Driver d2{again, T0 + 15min - 20s};
  a = d2.feed(doc(2, {{.type = "Reboot"}}));
  BOOST_TEST((steps(a) == std::vector{Step::disable_gossip, Step::flush}));
  BOOST_TEST(all_of<CheckSafety>(a).empty(), "the node was already being drained");
  BOOST_TEST(all_of<Approve>(a).size() == 1u);
}

// The shell starts no read that can wait while a drain is under way: after a start mid-drain that is so
// before the document that resumes it, when no step is out yet (issue 41).
BOOST_AUTO_TEST_CASE(a_drain_begun_before_the_restart_is_under_way_until_it_completes) {
  Core first = started_core();
  BOOST_TEST(!first.drain_under_way());
  Driver d{first};
  d.feed(doc(2, {{.type = "Freeze", .duration_s = 30}}));
  first.on_timer(T0 + 15min - 30s);
  first.on_safety({true, "ok", {}, {}}, T0 + 15min - 30s);
  BOOST_TEST(first.drain_under_way(), "disablebinary is out");
  first.on_step_done(Step::disable_binary, {true, false, ""}, T0 + 15min - 29s);
  BOOST_TEST(first.drain_under_way(), "disablegossip is out");

  Core again = started_core(test_policy(), first.state(), StateSource::loaded, "boot-1");
  BOOST_TEST(again.drain_under_way(), "no step out, but disablegossip is left");
  Driver d2{again, T0 + 15min - 20s};
  const Actions a = d2.feed(doc(3, {{.type = "Freeze", .duration_s = 30}}));
  BOOST_TEST((steps(a) == std::vector{Step::disable_gossip}));
  BOOST_TEST(!again.drain_under_way(), "drained: nothing left to run");
}

// Killed while disablegossip ran: it took effect, but only disablebinary is persisted.
BOOST_AUTO_TEST_CASE(a_step_done_but_not_persisted_is_adopted_from_the_node_at_start) {
  Core first = started_core();
  Driver d{first};
  d.feed(doc(2, {{.type = "Freeze", .duration_s = 30}}));
  first.on_timer(T0 + 15min - 30s);
  first.on_safety({true, "ok", {}, {}}, T0 + 15min - 30s);
  first.on_step_done(Step::disable_binary, {true, false, ""}, T0 + 15min - 29s);
  const AgentState on_disk = first.state();
  BOOST_REQUIRE(!on_disk.node.gossip_disabled);

  for (const bool event_remains : {true, false}) {
    BOOST_TEST_CONTEXT("event remains: " << event_remains) {
      Core again(test_policy(), on_disk);
      again.start(StartupInfo{StateSource::loaded, "boot-1", false, false}, T0 + 15min - 20s);
      Driver d2{again, T0 + 15min - 20s};
      if (event_remains) {
        const Actions a = d2.feed(doc(3, {{.type = "Freeze", .duration_s = 30}}));
        BOOST_TEST(steps(a).empty(), "disablegossip is not repeated");
        BOOST_TEST(all_of<Approve>(a).size() == 1u);
      }
      const Actions a = d2.feed(doc(4, {}));
      BOOST_TEST((steps(a) == std::vector{Step::enable_gossip, Step::enable_binary, Step::confirm_restored}));
      BOOST_TEST(!again.state().node.out_of_service);
    }
  }
}

BOOST_AUTO_TEST_CASE(corrupt_state_with_a_disabled_node_and_no_event_restores_it) {
  Core core(test_policy(), AgentState{});
  Actions a = core.start(StartupInfo{StateSource::corrupt, "boot-1", false, false}, T0);
  BOOST_TEST(logged(a, "adopting_disabled_node"));
  Driver d{core};
  a = d.feed(doc(3, {}));
  BOOST_TEST((steps(a) == std::vector{Step::enable_gossip, Step::enable_binary, Step::confirm_restored}));
  BOOST_TEST(!core.state().node.out_of_service);
}

BOOST_AUTO_TEST_CASE(corrupt_state_with_a_disabled_node_and_a_pending_event_waits_for_it) {
  Core core(test_policy(), AgentState{});
  core.start(StartupInfo{StateSource::corrupt, "boot-1", false, false}, T0);
  Driver d{core};
  Actions a = d.feed(doc(3, {{.type = "Reboot", .status = EventStatus::started}}));
  BOOST_TEST((steps(a) == std::vector{Step::flush}), "kept out for the Reboot, and flushed while it lasts");
  BOOST_TEST(!logged(a, "impact_without_drain"), "the adopted node does not serve");
  BOOST_TEST(core.state().node.out_of_service);
  a = d.feed(doc(4, {}));
  BOOST_TEST(logged(a, "restore_completed"));
}

BOOST_AUTO_TEST_CASE(drained_node_found_after_a_lost_state_needs_a_restart) {
  CorePolicy p = test_policy();
  p.has_restart_command = true;
  Core core(p, AgentState{});
  core.start(StartupInfo{StateSource::corrupt, "boot-1", false, false}, T0);
  Driver d{core};
  bool restarted = false;
  d.step = [&](Step s) {
    if (s == Step::restart_cassandra) restarted = true;
    if (s == Step::check_serving) return StepOutcome{false, false, "statusgossip: not running"};
    return s == Step::enable_gossip && !restarted
               ? StepOutcome{false, true, "Unable to start gossip because the node was drained."}
               : StepOutcome{true, false, ""};
  };
  Actions a = d.feed(doc(3, {}));
  BOOST_TEST((steps(a) == std::vector{Step::enable_gossip, Step::check_serving, Step::restart_cassandra,
                                      Step::enable_gossip, Step::enable_binary, Step::confirm_restored}));
  BOOST_TEST(!core.state().node.out_of_service);
}

BOOST_AUTO_TEST_CASE(first_start_with_a_disabled_node_touches_nothing) {
  Core core(test_policy(), AgentState{});
  Actions a = core.start(StartupInfo{StateSource::missing, "boot-1", false, true}, T0);
  BOOST_TEST(logged(a, "first_start"));
  BOOST_TEST(logged(a, "node_disabled_at_start"));
  Driver d{core};
  a = d.feed(doc(1, {}));
  BOOST_TEST(steps(a).empty());
}

BOOST_AUTO_TEST_CASE(restore_waits_for_a_successful_document_after_start) {
  AgentState s;
  s.node.out_of_service = true;
  s.node.binary_disabled = s.node.gossip_disabled = true;
  s.boot_id = "boot-1";
  Core core(test_policy(), s);
  Actions a = core.start(StartupInfo{StateSource::loaded, "boot-1", false, false}, T0);
  BOOST_TEST(steps(a).empty());
  a = core.on_timer(T0 + 10s);  // polls failing: no document, no conclusion
  BOOST_TEST(steps(a).empty());
  Driver d{core};
  a = d.feed(doc(5, {}));
  BOOST_TEST(logged(a, "restore_completed"));
}

BOOST_AUTO_TEST_SUITE_END()
