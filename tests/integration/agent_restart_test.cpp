// End to end: a cancelled event, and the agent killed (kill -9) after and during a drain, or with the VM
// rebooted: once no event remains the node is restored, never approved before it was drained (SPEC 3.6).
#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>

#include "agent_scenario.hpp"
#include "cassandra_support.hpp"
#include "state/state_codec.hpp"

namespace {

using namespace cla::test::agent_tests;

std::size_t count_calls(const AgentScenario& s, const std::string& subcommand) {
  std::size_t n = 0;
  for (const auto& call : s.calls()) n += call.node == cla::test::kAgentNode && call.subcommand == subcommand;
  return n;
}

// A Reboot of vm0 (listed complete_after_s after it starts), drained for and approved; then the VM reboots:
// the agent dies with it, the boot id changes, and Cassandra starts with the boot, serving (the simulator
// plays it). The Reboot's EventId.
std::string approved_reboot_then_vm_reboot(AgentScenario& s, int complete_after_s) {
  s.start_agent();
  const std::string id = s.emulator().add_event({{"type", "Reboot"},
                                                 {"resources", {"vm0"}},
                                                 {"not_before_in_s", 4},
                                                 {"complete_after_s", complete_after_s}});
  s.wait_for("event_approved", s.until_drain_due(id), id);
  s.kill_agent();
  s.set_boot_id("boot-2");
  BOOST_REQUIRE(s.sim("restart").ok());
  BOOST_REQUIRE(s.node_restored());
  return id;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(agent_restart_test)

// Under --shared-approval all, vm1 never approves, so the event stays Scheduled after vm0 drained and
// approved; the platform cancels it.
BOOST_AUTO_TEST_CASE(event_cancelled_after_the_drain_restores_the_node) {
  AgentScenario s({"--shared-approval", "all"});
  s.write_config({{"policy", {{"approve_shared_events", true}}}});
  s.start_agent();
  const std::string id = s.emulator().add_event(
      {{"type", "Freeze"}, {"resources", {"vm0", "vm1"}}, {"not_before_in_s", 5}, {"duration_s", 30}});
  s.wait_for("event_approved", s.until_drain_due(id), id);
  BOOST_REQUIRE(s.emulator().events().at(0).at("status").as_string() == "Scheduled");
  BOOST_TEST(!s.running("statusbinary"));

  s.emulator().cancel_event(id);
  const auto cancelled = cla::WallClock::now();
  const auto removed = s.wait_for("event_removed", s.within_a_poll(), id);
  BOOST_TEST(removed.at("event_status").as_string() == "Scheduled");
  const auto restore = s.wait_for("restore_started", s.within_a_poll());
  // SPEC 4's "within poll interval + 100 ms" by its cause, not a stopwatch: the first document without the
  // event is acted on, and the restore starts on that same document.
  BOOST_TEST(s.polls_between(cancelled, log_time(removed)) <= 1u,
             "the first document without it was ignored");
  BOOST_TEST(s.polls_between(log_time(removed), log_time(restore)) == 0u);
  s.wait_for("restore_completed", s.within_a_poll());

  BOOST_TEST(
      s.agent_mutations() == (Strings{"disablebinary", "disablegossip", "enablegossip", "enablebinary"}),
      boost::test_tools::per_element());
  BOOST_TEST(s.node_restored());
  BOOST_TEST(cla::test::wait_until(
      [&] {
        return s.log("maintenance_notification", id).back().at("notification") == "NodeMaintenanceEnded";
      },
      cla::test::kMargin));
}

BOOST_AUTO_TEST_CASE(killed_after_the_drain_resumes_without_draining_again) {
  AgentScenario s;
  s.start_agent();
  const std::string id = s.emulator().add_event(
      {{"type", "Freeze"}, {"resources", {"vm0"}}, {"not_before_in_s", 4}, {"duration_s", 30}});
  s.approved_and_started(id);
  s.kill_agent();

  s.start_agent();
  const auto loaded = s.wait_for("state_loaded", cla::test::kMargin);
  BOOST_TEST(loaded.at("node_out_of_service").as_bool());
  s.wait_for_polls(3);
  BOOST_TEST(s.agent_mutations() == (Strings{"disablebinary", "disablegossip"}),
             boost::test_tools::per_element());
  BOOST_TEST(!s.running("statusgossip"));
  BOOST_TEST(s.log("drain_started").size() == 1u);

  s.emulator().cancel_event(id);  // the platform's work is over
  s.wait_for("restore_completed", s.within_a_poll());
  BOOST_TEST(
      s.agent_mutations() == (Strings{"disablebinary", "disablegossip", "enablegossip", "enablebinary"}),
      boost::test_tools::per_element());
  BOOST_TEST(s.node_restored());
  BOOST_TEST(s.emulator().approvals().size() == 1u);
  BOOST_TEST(s.log("event_approved").size() == 1u);
}

// Killed while disablegossip runs (the simulator makes it last 5 s), with its nodetool, as systemd stops a
// unit's whole cgroup before restarting it; the event is cancelled while the agent is down.
BOOST_AUTO_TEST_CASE(killed_mid_drain_restores_once_the_event_is_gone) {
  AgentScenario s;
  s.add_sim_fault(cla::test::kAgentNode, "disablegossip", {{"latency_ms", 5000}, {"times", 1}});
  s.start_agent();
  const std::string id = s.emulator().add_event(
      {{"type", "Freeze"}, {"resources", {"vm0"}}, {"not_before_in_s", 4}, {"duration_s", 30}});
  s.wait_for("drain_started", s.until_drain_due(id), id);
  BOOST_REQUIRE(
      cla::test::wait_until([&] { return count_calls(s, "disablebinary") == 1; }, s.within_a_poll()));
  BOOST_REQUIRE(s.log("drain_completed").empty());
  s.agent().kill_group(cla::test::kMargin);

  s.emulator().cancel_event(id);
  BOOST_TEST(!s.running("statusbinary"));

  s.start_agent();
  const auto loaded = s.wait_for("state_loaded", cla::test::kMargin);
  BOOST_TEST(loaded.at("node_out_of_service").as_bool());
  s.wait_for("restore_completed", s.within_a_poll());
  BOOST_TEST(s.node_restored());
  BOOST_TEST(s.emulator().approvals().empty());
  BOOST_TEST(s.log("event_approved").empty());
}

// Killed after drain_started with the event still there: the restarted agent finishes the drain, approves
// once, and restores after the removal. drain_lead_s leaves the restarted agent the time to drain again
// before NotBefore (after which Azure starts the event unapproved).
BOOST_AUTO_TEST_CASE(killed_mid_drain_finishes_the_drain_and_approves_once) {
  AgentScenario s;
  s.add_sim_fault(cla::test::kAgentNode, "disablebinary", {{"latency_ms", 1000}, {"times", 1}});
  s.write_config({{"policy", {{"drain_lead_s", 7}}}});
  s.start_agent();
  const std::string id = s.emulator().add_event(
      {{"type", "Reboot"}, {"resources", {"vm0"}}, {"not_before_in_s", 9}, {"complete_after_s", 1}});
  s.wait_for("drain_started", s.until_drain_due(id), id);
  s.agent().kill_group(cla::test::kMargin);  // before disablebinary started, or while it runs: the same

  s.start_agent();
  s.wait_for("event_approved", cla::test::until(s.not_before(id)), id);
  s.wait_for("restore_completed", s.until_removed(id) + s.within_a_poll());
  const auto mutations = s.agent_mutations();
  BOOST_TEST(std::count(mutations.begin(), mutations.end(), "drain") == 1);
  BOOST_TEST(mutations.back() == "enablebinary");
  BOOST_TEST(s.node_restored());
  BOOST_TEST(s.emulator().approvals().size() == 1u);
  const auto drained = s.log("drain_completed", id);
  BOOST_REQUIRE_EQUAL(drained.size(), 1u);
  BOOST_TEST(ms_between(log_time(drained[0]), cla::test::emulator_time(s.emulator().approvals().at(0))) >= 0);
}

// A Reboot that really reboots the VM: the agent dies with it, Cassandra comes back with the boot, and the
// restarted agent sees a new boot id: no restart_command, just enable and confirm.
BOOST_AUTO_TEST_CASE(vm_reboot_is_expected_and_needs_no_restart_command) {
  AgentScenario s;
  const std::string id = approved_reboot_then_vm_reboot(s, 1);
  // Started at the approval, removed complete_after_s later.
  BOOST_REQUIRE(cla::test::wait_until([&] { return s.emulator().events().empty(); }, s.until_removed(id)));

  s.start_agent();
  const auto reboot = s.wait_for("reboot_detected", cla::test::kMargin);
  BOOST_TEST(reboot.at("previous_boot_id").as_string() == "boot-1");
  const auto restore = s.wait_for("restore_started", s.within_a_poll());
  BOOST_TEST(restore.at("rebooted").as_bool());
  s.wait_for("restore_completed", s.within_a_poll());
  // Cassandra came back serving with the boot: the flags follow it, so the restore only confirms (SPEC 3.6).
  BOOST_TEST(s.agent_mutations() == (Strings{"disablebinary", "disablegossip", "drain", "restart"}),
             boost::test_tools::per_element());  // "restart" is the simulated boot, not restart_command
  const auto rejoined = s.wait_for("node_rejoined_at_boot", 0ms);
  BOOST_TEST(rejoined.at("gossip_running").as_bool());
  BOOST_TEST(rejoined.at("binary_running").as_bool());
  BOOST_TEST(s.log("unexpected_reboot").empty());
  BOOST_TEST(s.node_restored());
}

// The VM rebooted for the Reboot, Cassandra started with it (serving gossip and clients), and the agent
// comes back while the Reboot is still listed, with a Freeze for the same VM due. The node is taken out
// again (disablebinary, disablegossip: no flush, no gate), and the Freeze is approved only after that, never
// on the flags written before the reboot (SPEC 3.6).
BOOST_AUTO_TEST_CASE(after_a_reboot_the_node_is_taken_out_again_while_its_event_is_listed) {
  AgentScenario s;
  const std::string reboot = approved_reboot_then_vm_reboot(s, 30);
  const std::string freeze = s.emulator().add_event(
      {{"type", "Freeze"}, {"resources", {"vm0"}}, {"not_before_in_s", 6}, {"duration_s", 5}});
  const std::size_t calls_before = s.calls().size();

  s.start_agent();
  // The node serves; or, when the Started Reboot (which cannot wait) gave the start-up's observation up
  // before it answered, its state is unknown, which counts as serving: both steps run again either way.
  const auto rejoined = s.wait_for("node_rejoined_at_boot", cla::test::kMargin);
  const auto& gossip = rejoined.at("gossip_running");
  BOOST_TEST((gossip.is_null() || gossip.as_bool()), boost::json::serialize(rejoined));
  // The log holds the first run's drain_completed too: the second is the node taken out again.
  BOOST_REQUIRE(cla::test::wait_until([&] { return s.log("drain_completed", reboot).size() == 2u; },
                                      s.within_a_poll()));
  BOOST_TEST(s.log("drain_completed", reboot).back().at("after_reboot").as_bool());
  s.wait_for("event_approved", s.until_drain_due(freeze), freeze);

  std::vector<std::string> after_boot;
  std::optional<cla::WallTime> out_again;
  const auto calls = s.calls();
  for (std::size_t i = calls_before; i < calls.size(); ++i) {
    if (calls[i].node != cla::test::kAgentNode) continue;
    if (calls[i].subcommand.starts_with("disable") || calls[i].subcommand == "drain")
      after_boot.push_back(calls[i].subcommand);
    if (calls[i].subcommand == "disablegossip") out_again = calls[i].t;
  }
  BOOST_TEST(after_boot == (Strings{"disablebinary", "disablegossip"}), boost::test_tools::per_element());
  BOOST_REQUIRE(out_again.has_value());
  BOOST_REQUIRE(s.emulator().approvals().size() == 2u);
  const auto freeze_approved = cla::test::emulator_time(s.emulator().approvals().at(1));
  BOOST_TEST(ms_between(*out_again, freeze_approved) >= 0, "the Freeze approved before the node was out");
  BOOST_TEST(!s.running("statusgossip"));
  BOOST_TEST(!s.running("statusbinary"));
  BOOST_TEST(s.log("unsafe_to_drain").empty());
}

BOOST_AUTO_TEST_CASE(corrupt_state_file_is_kept_aside_and_a_disabled_node_restored) {
  AgentScenario s;
  s.write_config();
  std::filesystem::create_directories(s.state_file().parent_path());
  cla::test::write_text(s.state_file().string(), "{\"schema_version\": 1, \"node\": {tru");
  BOOST_REQUIRE(s.sim("disablebinary").ok());
  BOOST_REQUIRE(s.sim("disablegossip").ok());
  s.start_agent();

  const auto corrupt = s.wait_for("state_file_corrupt", cla::test::kMargin);
  BOOST_TEST(std::filesystem::exists(std::string(corrupt.at("moved_to").as_string())));
  s.wait_for("adopting_disabled_node", cla::test::kMargin);
  s.wait_for("restore_completed", s.within_a_poll());
  BOOST_TEST(s.node_restored());
  BOOST_TEST(cla::decode_state(cla::test::read_text(s.state_file().string())).ok(),
             "a valid state file again");
}

BOOST_AUTO_TEST_CASE(first_start_leaves_a_disabled_node_to_the_operator) {
  AgentScenario s;
  BOOST_REQUIRE(s.sim("disablebinary").ok());
  s.start_agent();
  const auto warning = s.wait_for("node_disabled_at_start", cla::test::kMargin);
  BOOST_TEST(warning.at("binary_running").as_bool() == false);
  BOOST_TEST(warning.at("gossip_running").as_bool());
  s.wait_for_polls(3);
  BOOST_TEST(s.log("restore_started").empty());
  BOOST_TEST(s.agent_mutations() == Strings{"disablebinary"}, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_SUITE_END()
