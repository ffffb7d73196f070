// Fault matrix: the VM's wall clock stepped by minutes while an event is pending. NotBefore is wall time and
// the agent's timers are steady, so a step must move the drain with it. The emulator plays the step as the
// agent sees it: the NotBefore it serves shifted by the opposite amount (not_before_shift_s).
#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>

#include "agent_scenario.hpp"

namespace {

using namespace cla::test::agent_tests;

// The drain started at the served NotBefore - drain_lead_s - expected_drain_s (SPEC 3.3; the expectation it
// logged): not before it, and late by at most a wake-up and the gate's nodetool calls, which a poll interval
// and kMargin bound.
void expect_drain_at_the_lead(const AgentScenario& s, const boost::json::object& started) {
  const auto expected =
      std::chrono::milliseconds(static_cast<long>(started.at("expected_drain_s").to_number<double>() * 1000));
  const auto error_ms = ms_between(not_before_of(started) - s.drain_lead() - expected, log_time(started));
  BOOST_TEST(error_ms >= -100);
  BOOST_TEST(error_ms <= (s.poll_interval() + cla::test::kMargin).count());
}

}  // namespace

BOOST_AUTO_TEST_SUITE(fault_clock_test)

// The clock jumps 10 minutes ahead: an impact 10 minutes away is now seconds away. The drain follows the new
// NotBefore at once, not the timer armed for the old one.
BOOST_AUTO_TEST_CASE(clock_stepped_forward_brings_the_drain_forward) {
  const auto step = 594s;
  AgentScenario s;
  s.start_agent();
  const std::string id = s.emulator().add_event(
      {{"type", "Freeze"}, {"resources", {"vm0"}}, {"not_before_in_s", 600}, {"duration_s", 30}});
  s.wait_for("event_seen", s.within_a_poll(), id);
  s.emulator().set_fault({{"not_before_shift_s", -step.count()}});
  const auto moved = s.wait_for("not_before_changed", s.within_a_poll(), id);
  // The emulator's NotBefore less the step, served in whole seconds.
  BOOST_TEST(std::abs(ms_between(s.not_before(id) - step, not_before_of(moved))) < 1000);

  const auto started =
      s.wait_for("drain_started", cla::test::until(not_before_of(moved) - s.drain_lead()), id);
  expect_drain_at_the_lead(s, started);
  s.wait_for("event_approved", s.within_a_poll(), id);
  s.emulator().set_fault({});
  s.emulator().cancel_event(id);
  s.wait_for("restore_completed", s.within_a_poll());
  BOOST_TEST(s.node_restored());
}

// The clock jumps 10 minutes back: the drain due in a few seconds is now 10 minutes away, and nothing
// happens when the old timer would have fired. The clock is set right again: the drain comes at once, before
// the impact. The drain is due two kMargins after the event is added, so that the step (one poll after it
// is seen) surely lands first.
BOOST_AUTO_TEST_CASE(clock_stepped_back_holds_the_drain_until_the_clock_is_right) {
  constexpr long kLead = 6;
  const long not_before_in =
      kLead + 2 * std::chrono::duration_cast<std::chrono::seconds>(cla::test::kMargin).count();
  AgentScenario s;
  s.write_config({{"policy", {{"drain_lead_s", kLead}}}});
  s.start_agent();
  const std::string id = s.emulator().add_event(
      {{"type", "Freeze"}, {"resources", {"vm0"}}, {"not_before_in_s", not_before_in}, {"duration_s", 30}});
  s.wait_for("event_seen", s.within_a_poll(), id);
  s.emulator().set_fault({{"not_before_shift_s", 600}});
  s.wait_for("not_before_changed", s.within_a_poll(), id);
  const auto old_due = s.not_before(id) - s.drain_lead();
  BOOST_REQUIRE(
      cla::test::wait_until([&] { return cla::WallClock::now() > old_due; }, cla::test::until(old_due)));
  s.wait_for_polls(2);
  BOOST_TEST(s.log("drain_started").empty(), "drained on the timer of the old NotBefore");

  const auto corrected_at = cla::WallClock::now();
  s.emulator().set_fault({});
  const auto started = s.wait_for("drain_started", s.within_a_poll(), id);  // its lead is past: at once
  BOOST_TEST(ms_between(corrected_at, log_time(started)) >= 0);
  BOOST_TEST(ms_between(log_time(started), s.not_before(id)) > 0);
  s.wait_for("event_approved", cla::test::until(s.not_before(id)), id);
  BOOST_TEST(s.emulator().approvals().size() == 1u);
  s.emulator().cancel_event(id);
  s.wait_for("restore_completed", s.within_a_poll());
  BOOST_TEST(s.node_restored());
}

BOOST_AUTO_TEST_SUITE_END()
