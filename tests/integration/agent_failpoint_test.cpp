// An exception in the shell wedges nothing (issue 41). A failpoint (CLA_FAILPOINTS, NAME:once) throws the
// first time the agent passes it: the schema refresh, the gate check, the watcher's step. Each used to leave
// a flag set or an answer missing, so that every later gate check, drain or watcher step waited forever: a
// drain then came only at its forced instant, never approved, and the watcher never led.
#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>
#include <cstdlib>

#include "agent_scenario.hpp"
#include "coordinated_fleet.hpp"

using namespace cla::test::agent_tests;

namespace {

constexpr auto kRecheck = 1s;  // policy.unsafe_recheck_s below: the check after a failed one

// CLA_FAILPOINTS for the agents started while it lives (they inherit the environment).
struct Failpoints {
  explicit Failpoints(const char* names) { ::setenv("CLA_FAILPOINTS", names, 1); }
  ~Failpoints() { ::unsetenv("CLA_FAILPOINTS"); }
  Failpoints(const Failpoints&) = delete;
  Failpoints& operator=(const Failpoints&) = delete;
};

// The agent throws once at `failpoint`; a Freeze later is drained on the gate's verdict and approved before
// its forced instant.
void drained_and_approved_after(const char* failpoint, const char* error) {
  AgentScenario s;
  s.write_config({{"policy", {{"unsafe_recheck_s", kRecheck.count()}}}});
  {
    const Failpoints on(failpoint);
    s.start_agent();
  }
  BOOST_TEST(s.wait_for("failpoints_enabled", 0ms).at("failpoints").as_string() == failpoint);
  const std::string id = s.emulator().add_event(
      {{"type", "Freeze"}, {"resources", {"vm0"}}, {"not_before_in_s", 10}, {"duration_s", 30}});
  const auto thrown = s.wait_for("internal_error", s.until_drain_due(id));
  BOOST_TEST(thrown.at("error").as_string() == error);
  const auto started = s.wait_for("drain_started", s.until_drain_due(id) + kRecheck + s.within_a_poll(), id);
  BOOST_TEST(!started.at("forced_unsafe").as_bool(), "drained on a verdict, not forced");
  s.wait_for("event_approved", s.within_a_poll(), id);
  BOOST_TEST(s.log("drain_forced_unsafe").empty());
}

}  // namespace

BOOST_AUTO_TEST_SUITE(agent_failpoint_test)

// The refresh at start throws: the gate check at the drain's instant no longer waits for it forever.
BOOST_AUTO_TEST_CASE(a_schema_refresh_that_throws_does_not_wedge_the_gate) {
  drained_and_approved_after("schema_refresh:once", "failpoint schema_refresh");
}

// The first gate check throws: the core gets an unsafe answer, asks again, and drains on the next one.
BOOST_AUTO_TEST_CASE(a_gate_check_that_throws_is_an_unsafe_answer_not_a_silence) {
  drained_and_approved_after("gate_check:once", "failpoint gate_check");
}

// The watcher's first step throws: the next one still comes, and the only agent leads.
BOOST_AUTO_TEST_CASE(a_watcher_step_that_throws_does_not_stop_the_watcher) {
  cla::test::CoordinatedFleet fleet(1, true);
  {
    const Failpoints on("watcher_step:once");
    fleet.start(0);
  }
  fleet.wait_for(0, "internal_error", fleet.within_a_poll());
  // A step at most every idle_watch_interval for an agent without a role: the second one leads.
  const auto role = fleet.wait_for(
      0, "watcher_role", 2 * fleet.idle_watch_interval() + fleet.admission_ceiling() + fleet.within_a_poll());
  BOOST_TEST(role.at("role").as_string() == "leader");
}

BOOST_AUTO_TEST_SUITE_END()
