// End to end with the real agent, imds-emulator and nodetool-sim: a platform Freeze, a Reboot with flush and
// restart_command, a user event, a short freeze, other VMs' events, and the maintenance notification hooks.
#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>
#include <set>

#include "agent/daemon/notification.hpp"
#include "agent_scenario.hpp"

namespace {

using namespace cla::test::agent_tests;

// The notification names logged for `id`, in order, once there are `count` of them (or after kMargin).
Strings notifications(const AgentScenario& s, const std::string& id, std::size_t count = 0) {
  Strings out;
  cla::test::wait_until(
      [&] {
        out.clear();
        for (const auto& line : s.log("maintenance_notification", id))
          out.emplace_back(line.at("notification").as_string());
        return out.size() >= count;
      },
      cla::test::kMargin);
  return out;
}

const Strings kAllPhases{"NodeMaintenanceScheduled", "NodeMaintenanceStarting", "NodeMaintenanceStart",
                         "NodeMaintenanceEnded"};

// The index of the agent node's first `subcommand` call after `after` in the call log; -1 when none. (Times
// are whole milliseconds: a call in the same millisecond as `after`, such as the start refresh's last, is
// before.)
long first_call(const AgentScenario& s, const std::string& subcommand, cla::WallTime after = {}) {
  const auto calls = s.calls();
  for (std::size_t i = 0; i < calls.size(); ++i)
    if (calls[i].node == cla::test::kAgentNode && calls[i].subcommand == subcommand && calls[i].t > after)
      return static_cast<long>(i);
  return -1;
}

// Starts the agent and waits for its start-up schema refresh (describecluster, ring, status, info: SPEC 3.4),
// so that the calls after the returned instant are the events' own.
cla::WallTime start_and_refresh(AgentScenario& s) {
  s.start_agent();
  return log_time(s.wait_for("schema_refreshed", cla::test::kMargin));
}

}  // namespace

BOOST_AUTO_TEST_SUITE(agent_lifecycle_test)

BOOST_AUTO_TEST_CASE(platform_freeze_drains_at_the_lead_is_approved_then_restored) {
  AgentScenario s;
  s.start_agent();
  const std::string id = s.emulator().add_event(
      {{"type", "Freeze"}, {"resources", {"vm0"}}, {"not_before_in_s", 5}, {"duration_s", 30}});

  const auto seen = s.wait_for("event_seen", s.within_a_poll(), id);
  const auto started = s.wait_for("drain_started", s.until_drain_due(id), id);
  const auto completed = s.wait_for("drain_completed", s.within_a_poll(), id);
  const auto approved = s.wait_for("event_approved", s.within_a_poll(), id);
  // The approval starts it at once (vm0 is its only resource); the platform's work ends with its removal.
  const auto status = s.wait_for("event_status_changed", s.within_a_poll(), id);
  BOOST_TEST(status.at("event_status").as_string() == "Started");
  s.emulator().cancel_event(id);
  const auto removed = s.wait_for("event_removed", s.within_a_poll(), id);
  const auto restored = s.wait_for("restore_completed", s.within_a_poll());

  // Never before NotBefore - drain_lead_s - expected_drain_s (the NotBefore the agent read; the expectation
  // it logged, SPEC 3.3: before a measured drain, from the start-up's nodetool calls, which a loaded machine
  // makes slower). Due at that instant, or on sight when the event came later; late by at most its wake-up
  // and the gate's nodetool status, which the wait above bounds by a poll and kMargin.
  const auto expected =
      std::chrono::milliseconds(static_cast<long>(started.at("expected_drain_s").to_number<double>() * 1000));
  const auto planned = not_before_of(started) - s.drain_lead() - expected;
  const long early_ms = ms_between(log_time(started), planned);
  BOOST_TEST(early_ms <= 0,
             "drain started " << early_ms << " ms before NotBefore - drain_lead_s - expected_drain_s");
  const long late_ms = ms_between(std::max(planned, log_time(seen)), log_time(started));
  BOOST_TEST(late_ms <= (s.poll_interval() + cla::test::kMargin).count());
  BOOST_TEST(started.at("flush").as_bool() == false);
  BOOST_TEST(
      s.agent_mutations() == (Strings{"disablebinary", "disablegossip", "enablegossip", "enablebinary"}),
      boost::test_tools::per_element());
  BOOST_TEST(first_call(s, "status") >= 0);
  BOOST_TEST(first_call(s, "status") < first_call(s, "disablebinary"),
             "the safety gate ran before the drain");

  const auto approvals = s.emulator().approvals();
  BOOST_REQUIRE_EQUAL(approvals.size(), 1u);
  BOOST_TEST(approvals[0].at("vm").as_string() == "vm0");
  BOOST_TEST(approvals[0].at("event_id").as_string() == id);
  const auto calls = s.calls();
  const auto gossip_off = calls.at(static_cast<std::size_t>(first_call(s, "disablegossip"))).t;
  BOOST_TEST(ms_between(gossip_off, cla::test::emulator_time(approvals[0])) >= 0,
             "approved before the drain");
  BOOST_TEST(ms_between(log_time(completed), log_time(approved)) >= 0);
  BOOST_TEST(ms_between(log_time(removed), log_time(restored)) >= 0);

  BOOST_TEST(s.node_restored());
  BOOST_TEST(notifications(s, id, 4) == kAllPhases, boost::test_tools::per_element());
  BOOST_TEST(s.log("nodetool_failed").empty());
  BOOST_TEST(s.log("impact_without_drain").empty());
}

// SPEC 4: the approval POST goes on the kept-alive connection that the polls use, not on one of its own. The
// emulator logs, per request, the TCP connection it came on.
BOOST_AUTO_TEST_CASE(approval_goes_on_the_connection_the_polls_use) {
  AgentScenario s;
  s.start_agent();
  const std::string id = s.emulator().add_event(
      {{"type", "Freeze"}, {"resources", {"vm0"}}, {"not_before_in_s", 4}, {"duration_s", 30}});
  s.wait_for("event_approved", s.until_drain_due(id), id);
  s.wait_for_polls(2);

  std::vector<json::object> scheduled_events;  // this agent's, in the order the emulator received them
  for (const auto& r : s.emulator().requests()) {
    const auto& o = r.as_object();
    if (o.at("vm").as_string() == "vm0" && o.at("path").as_string() == "/metadata/scheduledevents")
      scheduled_events.push_back(o);
  }
  std::size_t post = scheduled_events.size();
  std::set<std::int64_t> connections;
  for (std::size_t i = 0; i < scheduled_events.size(); ++i) {
    connections.insert(scheduled_events[i].at("connection").as_int64());
    if (scheduled_events[i].at("method").as_string() == "POST") {
      BOOST_TEST(post == scheduled_events.size(), "more than one approval");
      post = i;
    }
  }
  BOOST_REQUIRE(post < scheduled_events.size());
  BOOST_REQUIRE(post > 0u);
  BOOST_REQUIRE(post + 1 < scheduled_events.size());
  BOOST_TEST(scheduled_events[post].at("status").as_int64() == 200);
  BOOST_TEST(scheduled_events[post].at("connection") == scheduled_events[post - 1].at("connection"),
             "the approval did not reuse the polls' connection");
  BOOST_TEST(scheduled_events[post].at("connection") == scheduled_events[post + 1].at("connection"),
             "the polls after the approval moved to another connection");
  BOOST_TEST(connections.size() == 1u, "polls and approval used " << connections.size() << " connections");
}

BOOST_AUTO_TEST_CASE(reboot_flushes_and_after_removal_restarts_cassandra_then_enables) {
  AgentScenario s;
  s.start_agent();
  const std::string id = s.emulator().add_event(
      {{"type", "Reboot"}, {"resources", {"vm0"}}, {"not_before_in_s", 4}, {"complete_after_s", 1}});

  const auto started = s.wait_for("drain_started", s.until_drain_due(id), id);
  BOOST_TEST(started.at("flush").as_bool());
  s.wait_for("event_approved", s.within_a_poll(), id);
  const auto removed = s.wait_for("event_removed", s.until_removed(id), id);  // Started at the approval
  const auto restore = s.wait_for("restore_started", s.within_a_poll());
  const auto restored = s.wait_for("restore_completed", s.within_a_poll());

  BOOST_TEST(s.agent_mutations() == (Strings{"disablebinary", "disablegossip", "drain", "restart",
                                             "enablegossip", "enablebinary"}),
             boost::test_tools::per_element());
  const auto calls = s.calls();
  const auto restart = calls.at(static_cast<std::size_t>(first_call(s, "restart"))).t;
  BOOST_TEST(ms_between(log_time(removed), restart) >= 0, "restart_command ran before the event was removed");
  BOOST_TEST(restore.at("flushed").as_bool());
  BOOST_TEST(restore.at("rebooted").as_bool() == false);
  BOOST_TEST(restored.at("restarted").as_bool());
  BOOST_TEST(s.node_restored());
  BOOST_TEST(s.log("restart_required").empty());
  BOOST_TEST(notifications(s, id, 4) == kAllPhases, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(user_event_drains_at_once_without_the_gate_and_is_approved) {
  AgentScenario s;
  const auto refreshed = start_and_refresh(s);
  const std::string id = s.emulator().add_event({{"type", "Reboot"},
                                                 {"resources", {"VM0"}},  // Azure names are case-insensitive
                                                 {"source", "User"},
                                                 {"not_before_in_s", 600},
                                                 {"complete_after_s", 1}});
  const auto added = cla::WallClock::now();

  const auto seen = s.wait_for("event_seen", s.within_a_poll(), id);
  BOOST_TEST(seen.at("affects_this_node").as_bool());
  // SPEC 4's reaction time is a benchmark's figure; what a test can assert without timing luck is its
  // cause: the first document carrying the event is acted on before the agent polls again, and the drain
  // starts on that same document.
  BOOST_TEST(s.polls_between(added, log_time(seen)) <= 1u, "the first document with the event was ignored");
  const auto started = s.wait_for("drain_started", s.within_a_poll(), id);
  BOOST_TEST(s.polls_between(log_time(seen), log_time(started)) == 0u, "a user event waits for nothing");
  s.wait_for("event_approved", s.within_a_poll(), id);
  s.wait_for("restore_completed", s.until_removed(id) + s.within_a_poll());

  BOOST_TEST(s.agent_mutations() == (Strings{"disablebinary", "disablegossip", "drain", "restart",
                                             "enablegossip", "enablebinary"}),
             boost::test_tools::per_element());
  BOOST_TEST(first_call(s, "status", refreshed) == -1, "no safety gate for an administrator's request");
  BOOST_TEST(first_call(s, "info", refreshed) == -1);
  BOOST_TEST(s.emulator().approvals().size() == 1u);
  BOOST_TEST(s.node_restored());
  BOOST_TEST(notifications(s, id, 4) == kAllPhases, boost::test_tools::per_element());
  // Scheduled and Starting come at the same instant here: the hooks still run in order.
  BOOST_REQUIRE(cla::test::wait_until([&] { return s.hook_runs().size() >= 4; }, cla::test::kMargin));
  Strings hooks;
  for (const auto& run : s.hook_runs()) hooks.push_back(run.at("CLA_NOTIFICATION"));
  BOOST_TEST(hooks == kAllPhases, boost::test_tools::per_element());
}

// Operators whose clients tolerate short pauses opt in to no-impact freezes (SPEC 2.3: the docs' 9 s).
BOOST_AUTO_TEST_CASE(short_freeze_is_approved_at_once_without_touching_the_node_when_enabled) {
  AgentScenario s;
  s.write_config({{"policy", {{"no_impact_freeze_max_s", 9}}}});
  const auto refreshed = start_and_refresh(s);
  const std::string id = s.emulator().add_event({{"type", "Freeze"},
                                                 {"resources", {"vm0"}},
                                                 {"not_before_in_s", 30},
                                                 {"duration_s", 2},
                                                 {"complete_after_s", 0}});

  const auto seen = s.wait_for("event_seen", s.within_a_poll(), id);
  BOOST_TEST(seen.at("plan").as_string() == "no_impact");
  const auto approved = s.wait_for("event_approved", s.within_a_poll(), id);
  // At once: long before a drain for it would be due.
  BOOST_TEST(ms_between(log_time(approved), not_before_of(seen) - s.drain_lead()) > 0);
  s.wait_for("event_removed", s.until_removed(id), id);  // Started at the approval

  BOOST_TEST(s.agent_mutations().empty());
  BOOST_TEST(first_call(s, "status", refreshed) == -1);
  BOOST_TEST(s.emulator().approvals().size() == 1u);
  BOOST_TEST(notifications(s, id).empty());
  BOOST_TEST(s.log("drain_started").empty());
  BOOST_TEST(s.log("restore_started").empty());
  BOOST_TEST(s.log("impact_without_drain").empty());
  BOOST_TEST(s.hook_runs().empty());
}

BOOST_AUTO_TEST_CASE(events_for_other_vms_only_are_logged_once_and_left_alone) {
  AgentScenario s;
  const auto refreshed = start_and_refresh(s);
  const std::string freeze = s.emulator().add_event(
      {{"type", "Freeze"}, {"resources", {"vm1"}}, {"not_before_in_s", 2}, {"duration_s", 30}});
  const std::string reboot = s.emulator().add_event(
      {{"type", "Reboot"}, {"resources", {"VM1", "vm7"}}, {"source", "User"}, {"not_before_in_s", 60}});

  for (const auto& id : {freeze, reboot}) {
    const auto seen = s.wait_for("event_seen", s.within_a_poll(), id);
    BOOST_TEST(seen.at("affects_this_node").as_bool() == false);
  }
  // The freeze reaches NotBefore and starts for vm1; polls go on.
  BOOST_REQUIRE(
      cla::test::wait_until([&] { return s.emulator().events().at(0).at("status").as_string() == "Started"; },
                            s.until_started_by_not_before(freeze)));
  s.wait_for_polls(2);

  for (const auto& id : {freeze, reboot}) BOOST_TEST(s.log_msgs(id) == (Strings{"event_seen"}));
  BOOST_TEST(s.agent_mutations().empty());
  BOOST_TEST(first_call(s, "status", refreshed) == -1);
  BOOST_TEST(s.emulator().approvals().empty());
  BOOST_TEST(s.log("maintenance_notification").empty());
  BOOST_TEST(s.hook_runs().empty());
}

// A hardware failure skips Scheduled: a warning, an emergency drain at once, Start then Ended announced (no
// Starting: the impact came first), nothing approved, and the node restored once the event is gone.
BOOST_AUTO_TEST_CASE(hardware_failure_seen_only_as_started_is_drained_and_announces_start_and_end) {
  AgentScenario s;
  s.start_agent();
  const std::string id = s.emulator().add_event(
      {{"type", "Reboot"}, {"resources", {"vm0"}}, {"started", true}, {"complete_after_s", 1}});
  const auto warning = s.wait_for("impact_without_drain", s.within_a_poll(), id);
  BOOST_TEST(warning.at("level").as_string() == "warning");
  BOOST_TEST(warning.at("emergency").as_bool());
  s.wait_for("event_removed", s.until_removed(id), id);
  s.wait_for("restore_completed", s.within_a_poll());
  BOOST_TEST(notifications(s, id, 2) == (Strings{"NodeMaintenanceStart", "NodeMaintenanceEnded"}),
             boost::test_tools::per_element());
  const Strings mutations = s.agent_mutations();
  BOOST_REQUIRE(mutations.size() >= 2u);
  BOOST_TEST((Strings(mutations.begin(), mutations.begin() + 2) == Strings{"disablebinary", "disablegossip"}),
             boost::test_tools::per_element());
  BOOST_TEST(s.emulator().approvals().empty());
  BOOST_TEST(s.node_restored());
}

// A platform Freeze drains the node; a user Reboot arrives while it is out: only the flush is added, and the
// node stays out until both are gone.
BOOST_AUTO_TEST_CASE(overlapping_events_drain_once_and_restore_after_the_last) {
  AgentScenario s;
  s.start_agent();
  const std::string freeze = s.emulator().add_event(
      {{"type", "Freeze"}, {"resources", {"vm0"}}, {"not_before_in_s", 4}, {"duration_s", 30}});
  s.wait_for("event_approved", s.until_drain_due(freeze), freeze);
  const std::string reboot = s.emulator().add_event({{"type", "Reboot"},
                                                     {"resources", {"vm0"}},
                                                     {"source", "User"},
                                                     {"not_before_in_s", 600},
                                                     {"complete_after_s", 30}});
  s.wait_for("event_approved", s.within_a_poll(), reboot);
  BOOST_TEST(s.agent_mutations() == (Strings{"disablebinary", "disablegossip", "drain"}),
             boost::test_tools::per_element());

  s.emulator().cancel_event(freeze);
  s.wait_for("event_removed", s.within_a_poll(), freeze);
  s.wait_for_polls(2);
  BOOST_TEST(s.log("restore_started").empty(), "restored while the Reboot still holds the node");
  BOOST_TEST(!s.running("statusgossip"));

  s.emulator().cancel_event(reboot);
  s.wait_for("restore_completed", s.within_a_poll());
  BOOST_TEST(s.agent_mutations() == (Strings{"disablebinary", "disablegossip", "drain", "restart",
                                             "enablegossip", "enablebinary"}),
             boost::test_tools::per_element());
  BOOST_TEST(s.node_restored());
  BOOST_TEST(notifications(s, freeze, 4) == kAllPhases, boost::test_tools::per_element());
  BOOST_TEST(notifications(s, reboot, 4) == kAllPhases, boost::test_tools::per_element());
}

// A platform Redeploy announced through hooks.notify: four runs, in order, with the event's details.
BOOST_AUTO_TEST_CASE(notification_hook_runs_for_each_phase_in_order) {
  AgentScenario s;
  s.start_agent();
  const std::string id = s.emulator().add_event(
      {{"type", "Redeploy"}, {"resources", {"vm0"}}, {"not_before_in_s", 4}, {"complete_after_s", 1}});
  const auto seen = s.wait_for("event_seen", s.within_a_poll(), id);
  s.wait_for("event_approved", s.until_drain_due(id), id);
  s.wait_for("restore_completed", s.until_removed(id) + s.within_a_poll());
  BOOST_REQUIRE(cla::test::wait_until([&] { return s.hook_runs().size() >= 4; }, cla::test::kMargin));

  const auto runs = s.hook_runs();
  BOOST_REQUIRE_EQUAL(runs.size(), 4u);
  const auto not_before = not_before_of(seen);
  const std::string start_time = cla::utc_seconds(not_before);
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const auto& run = runs[i];
    BOOST_TEST_CONTEXT("hook run " << i) {
      BOOST_TEST(run.at("CLA_NOTIFICATION") == kAllPhases[i]);
      BOOST_TEST(run.at("CLA_EVENT_ID") == id);
      BOOST_TEST(run.at("CLA_EVENT_TYPE") == "Redeploy");
      BOOST_TEST(run.at("CLA_RESOURCE") == "vm0");
      const std::string expected_start = i < 2 ? start_time : "";  // NotBefore is known until the approval
      BOOST_TEST(run.at("CLA_NOT_BEFORE") == expected_start);
      BOOST_TEST(run.at("CLA_MESSAGE") == "NotificationType|" + kAllPhases[i] + "|StartTimeInUTC|" +
                                              expected_start + "|EventId|" + id +
                                              "|EventType|Redeploy|ResourceName|vm0");
      BOOST_TEST(run.count("CLA_DRY_RUN") == 0u);
    }
  }
  BOOST_TEST(s.log("notify_hook_failed").empty());
}

BOOST_AUTO_TEST_SUITE_END()
