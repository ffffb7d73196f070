// The decision core when a pending event's NotBefore moves (Azure reschedules, or the VM's wall clock is
// stepped): the drain's due time follows the new value, and the move is logged.
#include <boost/test/unit_test.hpp>

#include "core_harness.hpp"
#include "state/core.hpp"

using namespace cla;
using namespace cla::test;

BOOST_AUTO_TEST_SUITE(core_not_before_test)

BOOST_AUTO_TEST_CASE(the_drain_follows_a_moved_not_before_either_way) {
  Core core = started_core();
  Driver d{core};
  const auto drain_lead = test_policy().drain_lead;
  Actions a = d.feed(doc(2, {{.type = "Freeze", .not_before_in = 15min, .duration_s = 30}}));
  BOOST_TEST(!logged(a, "not_before_changed"));
  BOOST_TEST((*core.next_wakeup(d.now) == T0 + 15min - drain_lead));

  a = d.feed(doc(3, {{.type = "Freeze", .not_before_in = 60min, .duration_s = 30}}));
  BOOST_TEST(logged(a, "not_before_changed"));
  BOOST_TEST((*core.next_wakeup(d.now) == T0 + 60min - drain_lead));
  a = d.at(T0 + 15min - drain_lead);
  BOOST_TEST(steps(a).empty(), "drained at the old NotBefore's lead");

  a = d.feed(doc(4, {{.type = "Freeze", .not_before_in = 60min, .duration_s = 30}}));
  BOOST_TEST(!logged(a, "not_before_changed"), "logged once per move");

  a = d.feed(doc(5, {{.type = "Freeze", .not_before_in = 14min + 45s, .duration_s = 30}}));
  BOOST_TEST(logged(a, "not_before_changed"));
  BOOST_TEST(logged(a, "drain_started"), "the new NotBefore's lead is past: at once");
}

// The drain's start is planned from the slowest of the last few nodetool calls; faster calls made meanwhile
// (the gate's own) shrink that estimate. A drain found due stays due for its NotBefore: the verdict asked for
// it is used when it comes, never dropped as "not due yet" and asked again (each check costs a JVM). A moved
// NotBefore plans afresh.
BOOST_AUTO_TEST_CASE(a_drain_found_due_stays_due_while_its_estimate_shrinks) {
  Core core = started_core();
  core.note_nodetool_call(10s);  // 3 calls of 10 s, x1.5: due 45 s before NotBefore - drain_lead
  Driver d{core};
  d.answer_checks = false;
  const auto drain_lead = test_policy().drain_lead;
  const EventSpec freeze{.type = "Freeze", .not_before_in = 15min, .duration_s = 30};
  d.feed(doc(2, {freeze}));
  const WallTime due = T0 + 15min - drain_lead - 45s;
  BOOST_TEST((*core.next_wakeup(d.now) == due));
  d.at(due);
  BOOST_TEST(d.held_checks == 1);
  for (int i = 0; i < 5; ++i) core.note_nodetool_call(10ms);  // the slow call leaves the last five
  const Actions a = d.run(core.on_safety(SafetyResult{true, "ok", {}, {}}, due + 1s));
  BOOST_TEST((steps(a) == kDisable), "the verdict asked for the due drain is used");
  BOOST_TEST(d.held_checks == 1);
  const LogAction* started = find_log(a, "drain_started");
  BOOST_REQUIRE(started);
  BOOST_TEST(started->fields.at("expected_drain_s").as_double() == 45.0, "what the start was planned by");
}

BOOST_AUTO_TEST_CASE(a_drain_found_due_is_planned_afresh_when_its_not_before_moves) {
  Core core = started_core();
  core.note_nodetool_call(10s);
  Driver d{core};
  d.answer_checks = false;
  const auto drain_lead = test_policy().drain_lead;
  d.feed(doc(2, {{.type = "Freeze", .not_before_in = 15min, .duration_s = 30}}));
  d.at(T0 + 15min - drain_lead - 45s);
  BOOST_TEST(d.held_checks == 1);
  for (int i = 0; i < 5; ++i) core.note_nodetool_call(10ms);
  d.feed(doc(3, {{.type = "Freeze", .not_before_in = 60min, .duration_s = 30}}));
  const Actions a = d.run(core.on_safety(SafetyResult{true, "ok", {}, {}}, d.now));
  BOOST_TEST(steps(a).empty(), "postponed: not due for the new NotBefore");
}

BOOST_AUTO_TEST_SUITE_END()
