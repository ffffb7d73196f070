// Every impact drained (SPEC 3.2, 3.3) on real Cassandra: a 5 s Freeze with the default policy, an event
// first seen Started (emergency drain, no gate), and a Freeze followed by a Reboot within
// hold_between_events_s (no restore between). Each case watches the node's JVM in /proc (JvmWatcher) and
// asserts that the impact landed while the event was Started. Every wait is derived from NotBefore, the poll
// interval, the nodetool calls on the path (kNodetoolCall each) and kMargin.
#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>

#include "agent_scenario.hpp"
#include "real_agent.hpp"
#include "real_cluster.hpp"

namespace {

using namespace std::chrono_literals;
using namespace cla::test::real;
using cla::WallClock;
using cla::WallTime;
using cla::test::kMargin;
using cla::test::log_time;
using cla::test::ms_between;
using cla::test::until;

WallTime time_of_ms(const boost::json::value& unix_ms) {
  return WallTime(std::chrono::milliseconds(unix_ms.to_number<std::int64_t>()));
}

// The instant the emulator started event `id` on an approval (its approval record).
WallTime approved_at(const cla::test::ImdsEmulatorProcess& emulator, const std::string& id) {
  for (const auto& a : emulator.approvals())
    if (a.as_object().at("event_id").as_string() == id) return cla::test::emulator_time(a);
  BOOST_FAIL("event " << id << " was never approved");
  return {};
}

}  // namespace

BOOST_AUTO_TEST_SUITE(real_impact_test)

// SPEC 2.3: no_impact_freeze_max_s defaults to 0, so a 5 s Freeze (the docs' own example) is drained like any
// impact: a frozen coordinator holds its clients' connections for those 5 s.
BOOST_FIXTURE_TEST_CASE(a_5_s_freeze_is_drained_with_the_default_policy, RealCase) {
  touched = {2};
  auto emulator = start_emulator();
  // The lead is the rig's (the drain begins 5 s after the event appears); no_impact_freeze_max_s is the
  // default.
  constexpr int notice_s = 120, lead_s = 115, duration_s = 5, complete_after_s = 3;
  RealAgent agent(*emulator, 2, {{"drain_lead_s", lead_s}});
  agent.start();
  JvmWatcher jvm(2);
  const std::string id = add_freeze(*emulator, "vm2", notice_s, duration_s, complete_after_s);
  const WallTime drain_due = WallClock::now() + std::chrono::seconds(notice_s - lead_s);

  const auto seen = agent.wait_for("event_seen", secs(kPoll + kMargin), id);
  BOOST_TEST(seen.at("plan") == "platform_drain", "a 5 s Freeze is an impact by default");
  agent.wait_for("drain_completed", secs(until(drain_due) + kPoll + kFreezeDrain), id);
  agent.wait_for("event_approved", secs(kPoll + kMargin), id);
  const WallTime started = approved_at(*emulator, id);
  require_impact(jvm, "frozen", started, kMargin, std::chrono::seconds(duration_s) - 500ms);

  const auto removed_by = started + std::chrono::seconds(duration_s + complete_after_s);
  const auto restored = agent.wait_for("restore_completed", secs(until(removed_by) + kPoll + kRestore));
  BOOST_TEST(!restored.at("restarted").as_bool());
  BOOST_TEST(agent.log("impact_without_drain").empty());
  BOOST_TEST((agent.mutations() ==
              std::vector<std::string>{"disablebinary", "disablegossip", "enablegossip", "enablebinary"}));
  BOOST_TEST(cla::test::wait_until(up_in_every_view, kRestore));
  agent.report_timings("5 s Freeze, default policy");
  BOOST_TEST(agent.stop() == 0);
}

// SPEC 3.2, first row: an event that appears Started (a hardware failure; a shared event another VM approved)
// on a serving node is drained at once, without the gate, and not approved (it has started). Its impact is
// played later than the emergency drain's two nodetool calls can take, so the case sees both.
BOOST_FIXTURE_TEST_CASE(an_event_first_seen_started_is_drained_within_seconds, RealCase) {
  touched = {3};
  auto emulator = start_emulator();
  RealAgent agent(*emulator, 3, {});
  agent.start();
  JvmWatcher jvm(3);
  constexpr int duration_s = 5;
  const auto impact_in = kPoll + 2 * kNodetoolCall + kMargin;  // disablebinary, disablegossip
  const WallTime impact_at = WallClock::now() + impact_in;
  delay_next_impact("vm3", impact_at);
  // In the document from its creation until its impact has ended (+ 3 s): the restore follows the impact.
  const int complete_after_s = static_cast<int>(secs(impact_in).count()) + 3;
  const std::string id = emulator->add_event({{"type", "Freeze"},
                                              {"resources", {"vm3"}},
                                              {"duration_s", duration_s},
                                              {"complete_after_s", complete_after_s},
                                              {"started", true}});
  const WallTime created = time_of_ms(event_record(*emulator, id).at("created_at_ms"));

  const auto warned = agent.wait_for("impact_without_drain", secs(kPoll + kMargin), id);
  BOOST_TEST(warned.at("emergency").as_bool());
  const auto drain_started = agent.wait_for("drain_started", secs(kPoll + kMargin), id);
  BOOST_TEST(drain_started.at("emergency").as_bool());
  BOOST_TEST(ms_between(created, log_time(drain_started)) <= (kPoll + kMargin).count(), "at once, no gate");
  const auto drained = agent.wait_for("drain_completed", secs(until(impact_at)), id);
  BOOST_TEST(drained.at("emergency").as_bool());
  BOOST_TEST(ms_between(log_time(drained), impact_at) > 0, "drained before the impact");
  BOOST_TEST_MESSAGE("emergency drain: started "
                     << ms_between(created, log_time(drain_started)) << " ms, completed "
                     << ms_between(created, log_time(drained)) << " ms after the event appeared Started");
  BOOST_TEST(agent.log("unsafe_to_drain").empty());
  BOOST_TEST(emulator->approvals().empty(), "a Started event is not approved");

  require_impact(jvm, "frozen", impact_at, kMargin, std::chrono::seconds(duration_s) - 500ms);
  const auto removed_by = created + std::chrono::seconds(duration_s + complete_after_s);
  const auto restored = agent.wait_for("restore_completed", secs(until(removed_by) + kPoll + kRestore));
  BOOST_TEST(!restored.at("restarted").as_bool());
  BOOST_TEST(cla::test::wait_until(up_in_every_view, kRestore));
  agent.report_timings("event first seen Started");
  BOOST_TEST(agent.stop() == 0);
}

// SPEC 3.2, back to back: a Freeze, then a Reboot whose drain falls due within hold_between_events_s of the
// Freeze's end. The node stays out between them (restore_deferred), is flushed for the Reboot, and is
// restored once, after the Reboot (restart_command: the VM here does not restart the node by itself).
BOOST_FIXTURE_TEST_CASE(a_freeze_then_a_reboot_keeps_the_node_out_between_them, RealCase) {
  touched = {1};
  auto emulator = start_emulator(false);
  constexpr int notice_s = 120, lead_s = 115, freeze_s = 5, complete_after_s = 3, gap_s = 20;
  RealAgent agent(*emulator, 1, {{"drain_lead_s", lead_s}});
  agent.start();
  JvmWatcher jvm(1);
  const std::string freeze = add_freeze(*emulator, "vm1", notice_s, freeze_s, complete_after_s);
  const WallTime drain_due = WallClock::now() + std::chrono::seconds(notice_s - lead_s);
  const auto drained =
      agent.wait_for("drain_completed", secs(until(drain_due) + kPoll + kFreezeDrain), freeze);
  agent.wait_for("event_approved", secs(kPoll + kMargin), freeze);
  const WallTime freeze_started = approved_at(*emulator, freeze);

  // The Reboot's drain is due gap_s after the Freeze leaves the document: NotBefore - drain_lead_s - the
  // expected drain (1.5 x the gate + drain just measured, SPEC 3.3).
  const WallTime freeze_removal = time_of_ms(event_record(*emulator, freeze).at("removal_at_ms"));
  const auto expected =
      std::chrono::milliseconds(drained.at("gate_and_drain_ms").to_number<std::int64_t>() * 3 / 2);
  const WallTime reboot_not_before = freeze_removal + std::chrono::seconds(lead_s + gap_s) + expected;
  const std::string reboot = emulator->add_event(
      {{"type", "Reboot"},
       {"resources", {"vm1"}},
       {"not_before_in_s",
        std::chrono::ceil<std::chrono::seconds>(reboot_not_before - WallClock::now()).count()},
       {"complete_after_s", complete_after_s}});
  require_impact(jvm, "frozen", freeze_started, kMargin, std::chrono::seconds(freeze_s) - 500ms);

  const auto deferred =
      agent.wait_for("restore_deferred", secs(until(freeze_removal) + kPoll + kMargin), reboot);
  BOOST_TEST(deferred.at("gap_s").to_number<double>() <= 120.0, "within hold_between_events_s");
  BOOST_TEST_MESSAGE("restore_deferred: " << boost::json::serialize(deferred));
  // Drained for it already: only nodetool drain (the flush) is left, then the approval.
  agent.wait_for("drain_completed", secs(until(freeze_removal) + kPoll + kNodetoolCall + kMargin), reboot);
  agent.wait_for("event_approved", secs(kPoll + kMargin), reboot);
  const WallTime reboot_started = approved_at(*emulator, reboot);
  require_impact(jvm, "gone", reboot_started, kMargin, std::chrono::seconds(complete_after_s) - 500ms);

  // One restore, after the Reboot left: check_serving (2 calls), restart_command (bounded by the agent's
  // command_timeout_s, 300 s), enable*, confirm.
  const auto removed_by = reboot_started + std::chrono::seconds(complete_after_s);
  const auto restored = agent.wait_for("restore_completed",
                                       secs(until(removed_by) + kPoll + 300s + kRestore + 2 * kNodetoolCall));
  BOOST_TEST(restored.at("restarted").as_bool());
  BOOST_TEST(agent.log("restore_started").size() == 1u, "no restore between the two events");
  const auto reboot_removed = agent.find("event_removed", reboot);
  BOOST_TEST_REQUIRE(reboot_removed.has_value());
  BOOST_TEST(ms_between(log_time(*reboot_removed), log_time(*agent.find("restore_started"))) >= 0);
  const auto steps = agent.mutations();
  BOOST_TEST_REQUIRE(steps.size() >= 3u);
  BOOST_TEST((std::vector<std::string>(steps.begin(), steps.begin() + 3) ==
              std::vector<std::string>{"disablebinary", "disablegossip", "drain"}));
  BOOST_TEST(serving(agent.address()));
  // restart_command starts Cassandra with --no-binary: clients come back when the restore opens the port.
  BOOST_TEST(cql_opened_by(1).starts_with(agent_step_thread()), "CQL port opened by: " << cql_opened_by(1));
  BOOST_TEST(cla::test::wait_until(up_in_every_view, kRestore));
  agent.report_timings("Freeze then Reboot");
  BOOST_TEST(agent.stop() == 0);
}

BOOST_AUTO_TEST_SUITE_END()
