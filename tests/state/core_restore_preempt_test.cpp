// SPEC 3.9: a restore's step in flight never holds a drain that is due. The step (an enable* retried while
// Cassandra starts, a restart_command that does not end) is abandoned in the pass the drain becomes due, what
// it may have changed counts as changed, and its late answer is dropped.
#include <boost/test/unit_test.hpp>

#include "core_harness.hpp"
#include "state/core.hpp"

using namespace cla;
using namespace cla::test;

namespace {

const EventSpec kFreeze{.type = "Freeze", .duration_s = 30};  // NotBefore T0 + 15 min, drained at - 30 s
const WallTime kRemovedAt = T0 + 16min;

// A Freeze drained and approved, then removed: the restore begins, and `held` is left hanging.
Driver restoring_with_held(Core& core, Step held) {
  Driver d{core};
  d.feed(doc(2, {kFreeze}));
  d.at(T0 + 15min - 30s);
  BOOST_TEST_REQUIRE(core.state().node.gossip_disabled);
  d.hold_step = [held](Step s) { return s == held; };
  d.now = kRemovedAt;
  const Actions a = d.feed(doc(3, {}));
  BOOST_TEST_REQUIRE(logged(a, "restore_started"));
  BOOST_TEST_REQUIRE((d.held_steps == std::vector{held}));
  return d;
}

// The game day's vm6 (seed 2, episode 21): enablegossip hangs in the restore when an event is seen Started;
// the drain abandons it (counted as run, so the drain undoes it) and its disablegossip fails (JMX hung).
Driver gossip_never_back(Core& core) {
  Driver d = restoring_with_held(core, Step::enable_gossip);
  d.hold_step = [](Step) { return false; };
  d.step = [](Step s) {
    return s == Step::disable_gossip ? StepOutcome{false, false, "timeout", true}
                                     : StepOutcome{true, false, ""};
  };
  const EventSpec failing{.id = "HW", .type = "Freeze", .status = EventStatus::started};
  const Actions a = d.feed_at(kRemovedAt + 3s, doc(4, {failing}));
  BOOST_TEST_REQUIRE(logged(a, "restore_step_abandoned"));
  BOOST_TEST_REQUIRE(logged(a, "nodetool_failed"));
  BOOST_TEST_REQUIRE(!core.state().node.gossip_disabled,
                     "the abandoned enable counts as run, and the disable failed");
  return d;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(core_restore_preempt_test)

// enablegossip hangs (JMX wedged) when the VM's next event is seen Started: the node is still out, so the
// event is counted as drained for, and its missing step (disablegossip: the hung enable may have run) comes
// in the same pass, after the abandon.
BOOST_AUTO_TEST_CASE(an_impact_started_abandons_a_hung_enablegossip_and_disables_gossip_again) {
  Core core = started_core();
  Driver d = restoring_with_held(core, Step::enable_gossip);
  d.hold_step = [](Step) { return false; };
  const EventSpec failing{.id = "HW", .type = "Freeze", .status = EventStatus::started};
  const Actions a = d.feed_at(kRemovedAt + 3s, doc(4, {failing}));
  const LogAction* abandoned = find_log(a, "restore_step_abandoned");
  BOOST_TEST_REQUIRE(abandoned != nullptr);
  BOOST_TEST(abandoned->fields.at("step").as_string() == "enablegossip");
  BOOST_TEST(abandoned->fields.at("for").as_string() == "drain");
  BOOST_TEST(abandoned->fields.at("event_id").as_string() == "HW");
  BOOST_TEST((all_of<AbandonStep>(a) == std::vector{AbandonStep{Step::enable_gossip}}));
  BOOST_TEST(first<AbandonStep>(a) < index_of_step(a, Step::disable_gossip));
  BOOST_TEST((steps(a) == std::vector{Step::disable_gossip}));
  BOOST_TEST(core.state().node.gossip_disabled);
  BOOST_TEST(core.state().node.drained_for.count("HW") == 1u);

  // The abandoned enablegossip answers at last: the core is not waiting for it, nothing follows.
  const Actions late = core.on_step_done(Step::enable_gossip, StepOutcome{true, false, ""}, d.now + 30s);
  BOOST_TEST(late.empty());
  BOOST_TEST(core.state().node.gossip_disabled, "a stale answer changes no flag");
}

// Found by the game day (seed 2, episode 21): the abandoned enablegossip counts as run, so that the drain
// undoes it, but that drain's disablegossip failed (JMX hung) and the node never had its gossip back. The
// restore enables binary only, and its confirm finds gossip off: the flags follow the node and enablegossip
// runs at once, not at the next 60 s retry (which, before, only confirmed again, for ever).
BOOST_AUTO_TEST_CASE(a_confirm_that_finds_gossip_off_runs_enablegossip_again) {
  Core core = started_core();
  Driver d = gossip_never_back(core);
  bool gossip_running = false;  // the node's truth: the enable was killed before it ran
  d.step = [&](Step s) {
    if (s == Step::enable_gossip) gossip_running = true;
    if (s != Step::confirm_restored) return StepOutcome{true, false, ""};
    StepOutcome confirm{gossip_running, false, gossip_running ? "" : "statusgossip: not running"};
    confirm.gossip_running = gossip_running;
    confirm.binary_running = true;
    return confirm;
  };
  const Actions a = d.feed_at(kRemovedAt + 60s, doc(5, {}));
  const LogAction* undone = find_log(a, "restore_steps_undone");
  BOOST_TEST_REQUIRE(undone != nullptr);
  BOOST_TEST(undone->fields.at("at_once").as_bool());
  BOOST_TEST((steps(a) == std::vector{Step::enable_binary, Step::confirm_restored, Step::enable_gossip,
                                      Step::confirm_restored}));
  BOOST_TEST(logged(a, "restore_completed"));
  BOOST_TEST(!core.state().node.out_of_service);
}

// The confirm still finds gossip off after enablegossip ran again (a node that does not keep it): no loop of
// steps; the next retry, restore_retry later, runs the step again and confirms again.
BOOST_AUTO_TEST_CASE(a_step_redone_once_and_still_off_waits_for_the_retry) {
  Core core = started_core();
  Driver d = gossip_never_back(core);
  d.step = [](Step s) {
    if (s != Step::confirm_restored) return StepOutcome{true, false, ""};
    StepOutcome confirm{false, false, "statusgossip: not running"};
    confirm.gossip_running = false;
    confirm.binary_running = true;
    return confirm;
  };
  Actions a = d.feed_at(kRemovedAt + 60s, doc(5, {}));
  BOOST_TEST((steps(a) == std::vector{Step::enable_binary, Step::confirm_restored, Step::enable_gossip,
                                      Step::confirm_restored}));
  BOOST_TEST(logged(a, "restore_failed"));
  const auto retry = core.next_wakeup(d.now);
  BOOST_TEST_REQUIRE(retry.has_value());
  BOOST_TEST((*retry == d.now + core.policy().restore_retry));
  a = d.at(*retry);
  BOOST_TEST((steps(a) == std::vector{Step::enable_gossip, Step::confirm_restored}));
  BOOST_TEST(core.state().node.out_of_service);
}

// Gossip is back, enablebinary is retried while it hangs; the next Freeze is gated (the node half serves).
// Before its forced instant the restore's step is waited for; at the forced instant it is abandoned, the gate
// asked, and disablebinary follows within late_check_grace even if the gate never answers.
BOOST_AUTO_TEST_CASE(a_forced_drain_abandons_a_hung_enablebinary_at_its_instant_not_before) {
  Core core = started_core();
  Driver d = restoring_with_held(core, Step::enable_gossip);
  core.on_step_done(Step::enable_gossip, StepOutcome{true, false, ""}, kRemovedAt);  // gossip back
  // on_step_done asked enablebinary: the shell (this test) leaves it hanging.
  BOOST_TEST(!core.state().node.gossip_disabled);
  BOOST_TEST(core.busy(), "enablebinary is out");

  const EventSpec next{.id = "N", .type = "Freeze", .not_before_in = 20min, .duration_s = 30};
  const WallTime drain_at = T0 + 20min - 30s, forced_at = T0 + 20min - 10s;
  d.answer_checks = false;
  Actions a = d.feed_at(kRemovedAt + 1s, doc(4, {next}));
  a = d.at(drain_at);
  BOOST_TEST(!logged(a, "restore_step_abandoned"), "a gated drain waits for the restore's step");
  BOOST_TEST(steps(a).empty());
  BOOST_TEST(core.next_wakeup(d.now).has_value());

  a = d.at(forced_at);
  const LogAction* abandoned = find_log(a, "restore_step_abandoned");
  BOOST_TEST_REQUIRE(abandoned != nullptr);
  BOOST_TEST(abandoned->fields.at("step").as_string() == "enablebinary");
  BOOST_TEST(abandoned->fields.at("for").as_string() == "forced_drain");
  BOOST_TEST((all_of<AbandonStep>(a) == std::vector{AbandonStep{Step::enable_binary}}));
  BOOST_TEST(d.held_checks == 1, "the gate is asked once the step is gone");
  BOOST_TEST(!core.state().node.binary_disabled, "the abandoned enablebinary may have run");

  const auto wake = core.next_wakeup(d.now);
  BOOST_TEST_REQUIRE(wake.has_value());
  BOOST_TEST((*wake == forced_at + core.policy().late_check_grace));
  a = d.at(*wake);
  BOOST_TEST((steps(a) == kDisable));
  BOOST_TEST(logged(a, "drain_forced_unsafe"));
  BOOST_TEST(all_of<Approve>(a).empty());
}

// A flushed node's restart_command does not end (a script that waits on Cassandra) when the next event is
// seen Started: the restart is abandoned (its group killed), the node's state is unknown, so every step of
// the drain runs again.
BOOST_AUTO_TEST_CASE(an_impact_started_abandons_a_restart_command_and_drains_every_step_again) {
  CorePolicy policy = test_policy();
  policy.has_restart_command = true;
  Core core = started_core(policy);
  Driver d{core};
  d.feed(doc(2, {{.type = "Reboot"}}));
  d.at(T0 + 15min - 30s);
  BOOST_TEST_REQUIRE(core.state().node.flushed);
  // Cancelled: the VM did not reboot. Not serving, so the restart runs, and hangs.
  d.step = [](Step s) {
    return s == Step::check_serving ? StepOutcome{false, false, "not running"} : StepOutcome{true, false, ""};
  };
  d.hold_step = [](Step s) { return s == Step::restart_cassandra; };
  d.feed_at(kRemovedAt, doc(3, {}));
  BOOST_TEST_REQUIRE((d.held_steps == std::vector{Step::restart_cassandra}));

  d.hold_step = [](Step) { return false; };
  const EventSpec failing{.id = "HW", .type = "Freeze", .status = EventStatus::started};
  const Actions a = d.feed_at(kRemovedAt + 5s, doc(4, {failing}));
  const LogAction* abandoned = find_log(a, "restore_step_abandoned");
  BOOST_TEST_REQUIRE(abandoned != nullptr);
  BOOST_TEST(abandoned->fields.at("step").as_string() == "restart_command");
  BOOST_TEST(abandoned->fields.at("for").as_string() == "drain");
  BOOST_TEST((steps(a) == kDisable));
  BOOST_TEST(!core.state().node.flushed, "the restart may have started Cassandra: nothing is flushed now");
}

// Without a drain due, the restore's step is waited for however long it takes (pre-emption is not a
// timeout).
BOOST_AUTO_TEST_CASE(without_a_drain_due_a_hung_restore_step_is_waited_for) {
  Core core = started_core();
  Driver d = restoring_with_held(core, Step::enable_gossip);
  const EventSpec later{.id = "L", .type = "Freeze", .not_before_in = 60min, .duration_s = 30};
  const Actions a = d.feed_at(kRemovedAt + 5min, doc(4, {later}));
  BOOST_TEST(!logged(a, "restore_step_abandoned"));
  BOOST_TEST(all_of<AbandonStep>(a).empty());
  BOOST_TEST(steps(a).empty());
  BOOST_TEST(core.busy());
}

BOOST_AUTO_TEST_SUITE_END()
