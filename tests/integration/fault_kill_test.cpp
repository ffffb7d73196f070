// Fault matrix: kill -9 of the agent (with its nodetool, as systemd stops a unit's cgroup) after each step of
// a drain and of a restore, one run per step, restarted each time. SPEC 3.6: once no event remains the node
// is never left drained, and no event is approved before the node was drained for it.
#include <algorithm>
#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>

#include "agent_scenario.hpp"

namespace {

using namespace cla::test::agent_tests;

// Each mutating command takes this long in the simulator, so that a kill after one step's call-log line
// lands while the next one runs (or between them): both are instants the agent must survive.
constexpr std::chrono::milliseconds kStepLatency{300};

const Strings kDrainSteps{"disablebinary", "disablegossip", "drain"};
// The restore of a flushed node, call by call: check_serving (is it serving already? statusgossip and
// statusbinary at once), restart_command, enable*, then the confirmation (the same two at once), its last
// step.
const Strings kRestoreCalls{"statusgossip", "statusbinary", "restart",     "enablegossip",
                            "enablebinary", "statusgossip", "statusbinary"};
const Strings kRestoreSteps{"restart", "enablegossip", "enablebinary", "statusgossip", "statusbinary"};

// The calls to `subcommand` on the agent's node at or after `since`.
std::size_t count_calls(const AgentScenario& s, const std::string& subcommand, cla::WallTime since = {}) {
  std::size_t n = 0;
  for (const auto& call : s.calls())
    n += call.node == cla::test::kAgentNode && call.subcommand == subcommand && call.t >= since;
  return n;
}

// The instant the last drain step first succeeded: no approval may come before it.
cla::WallTime drained_at(const AgentScenario& s) {
  cla::WallTime last{};
  for (const auto& step : kDrainSteps) {
    cla::WallTime first{};
    for (const auto& call : s.calls())
      if (call.node == cla::test::kAgentNode && call.subcommand == step && call.exit_code == 0) {
        first = call.t;
        break;
      }
    BOOST_TEST_REQUIRE((first != cla::WallTime{}), step << " never succeeded");
    last = std::max(last, first);
  }
  return last;
}

// A kill point: after the agent's log line `msg`, or after the call-log line of the `nth` nodetool
// `subcommand` since the drain or restore began (the agent also asks statusgossip/statusbinary at start).
struct KillPoint {
  std::string msg;
  std::string subcommand;
  std::size_t nth = 1;
};
std::ostream& operator<<(std::ostream& out, const KillPoint& k) {
  if (!k.msg.empty()) return out << "after log line " << k.msg;
  return out << "after nodetool " << k.subcommand << " #" << k.nth;
}

void wait_for_kill_point(const AgentScenario& s, const KillPoint& k, std::chrono::milliseconds limit,
                         cla::WallTime since) {
  if (!k.msg.empty()) {
    s.wait_for(k.msg, limit);
  } else {
    BOOST_REQUIRE_MESSAGE(
        cla::test::wait_until([&] { return count_calls(s, k.subcommand, since) >= k.nth; }, limit),
        "no nodetool " << k.subcommand << " #" << k.nth);
  }
}

// A platform Reboot (flush, restart_command), due at once (NotBefore within drain_lead_s), approved after
// the drain, Started by the approval and removed 1 s later.
std::string add_reboot(AgentScenario& s) {
  return s.emulator().add_event(
      {{"type", "Reboot"}, {"resources", {"vm0"}}, {"not_before_in_s", 30}, {"complete_after_s", 1}});
}

void slow_down(AgentScenario& s, const Strings& steps) {
  for (const auto& step : steps)
    s.add_sim_fault(cla::test::kAgentNode, step, {{"latency_ms", kStepLatency.count()}});
}

// What must hold at the end of every run: the event approved once, never before the drain; the node back.
// The restore completes once the event is gone and the slowed steps left (at most all of them) have run.
void check_invariant(AgentScenario& s, const std::string& id) {
  const auto steps = static_cast<long>(kDrainSteps.size() + kRestoreSteps.size());
  s.wait_for("restore_completed", s.until_removed(id) + s.within_a_poll() + kStepLatency * steps);
  BOOST_TEST(s.node_restored());
  BOOST_TEST(s.emulator().events().empty());
  const auto approvals = s.emulator().approvals();
  BOOST_TEST_REQUIRE(approvals.size() == 1u);
  BOOST_TEST(cla::test::ms_between(drained_at(s), cla::test::emulator_time(approvals.at(0))) >= 0,
             "approved before the node was drained");
}

}  // namespace

BOOST_AUTO_TEST_SUITE(fault_kill_test)

BOOST_AUTO_TEST_CASE(killed_at_every_step_of_a_drain) {
  std::vector<KillPoint> points{{"drain_started", ""}};
  for (const auto& step : kDrainSteps) points.push_back({"", step});
  points.push_back({"event_approved", ""});
  for (const auto& point : points) {
    BOOST_TEST_CONTEXT("killed " << point) {
      AgentScenario s;
      s.write_config({{"policy", {{"drain_lead_s", 60}}}});
      slow_down(s, kDrainSteps);
      s.start_agent();
      const std::string id = add_reboot(s);
      wait_for_kill_point(s, point, s.within_a_poll() + kStepLatency * 4, {});
      s.agent().kill_group(kMargin);
      s.start_agent();
      check_invariant(s, id);
      BOOST_TEST(s.log("event_approved", id).size() <= 2u);
    }
  }
}

BOOST_AUTO_TEST_CASE(killed_at_every_step_of_a_restore) {
  // After restore_started, then after each call but the confirmation's two (they run at once, and after them
  // nothing is left to resume).
  std::vector<KillPoint> points{{"restore_started", ""}};
  for (std::size_t i = 0; i + 2 < kRestoreCalls.size(); ++i) {
    const auto nth =
        std::count(kRestoreCalls.begin(), kRestoreCalls.begin() + static_cast<long>(i) + 1, kRestoreCalls[i]);
    points.push_back({"", kRestoreCalls[i], static_cast<std::size_t>(nth)});
  }
  for (const auto& point : points) {
    BOOST_TEST_CONTEXT("killed " << point) {
      AgentScenario s;
      s.write_config({{"policy", {{"drain_lead_s", 60}}}});
      slow_down(s, kRestoreSteps);
      s.start_agent();
      const std::string id = add_reboot(s);
      s.wait_for("event_approved",
                 s.until_drain_due(id) + kStepLatency * static_cast<long>(kDrainSteps.size()), id);
      s.wait_for("event_removed", s.until_removed(id), id);
      const auto restore = s.wait_for("restore_started", s.within_a_poll());
      wait_for_kill_point(s, point, s.within_a_poll() + kStepLatency * 7, cla::test::log_time(restore));
      s.agent().kill_group(kMargin);
      BOOST_TEST(s.log("restore_completed").empty());
      s.start_agent();
      check_invariant(s, id);
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
