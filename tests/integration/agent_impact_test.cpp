// End to end, every impact drained (SPEC 3.2, 3.3): a short Freeze with the default config, an event first
// seen Started (emergency drain, no gate), and a Reboot following a Freeze (the node stays out between them).
#include <algorithm>
#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>

#include "agent_scenario.hpp"

using namespace cla::test::agent_tests;

BOOST_AUTO_TEST_SUITE(agent_impact_test)

// SPEC 2.3: no_impact_freeze_max_s is 0 by default, so a 5 s Freeze (the docs' own example) is drained and
// approved only after the drain.
BOOST_AUTO_TEST_CASE(a_five_second_freeze_is_drained_by_default) {
  AgentScenario s;
  s.start_agent();
  const std::string id = s.emulator().add_event(
      {{"type", "Freeze"}, {"resources", {"vm0"}}, {"not_before_in_s", 5}, {"duration_s", 5}});
  const auto seen = s.wait_for("event_seen", s.within_a_poll(), id);
  BOOST_TEST(seen.at("plan").as_string() == "platform_drain");
  s.wait_for("drain_completed", s.until_drain_due(id), id);
  const auto approved = s.wait_for("event_approved", s.within_a_poll(), id);
  BOOST_TEST(ms_between(log_time(s.wait_for("drain_completed", 0ms, id)), log_time(approved)) >= 0);
  s.wait_for("restore_completed", s.until_removed(id));
  BOOST_TEST(
      s.agent_mutations() == (Strings{"disablebinary", "disablegossip", "enablegossip", "enablebinary"}),
      boost::test_tools::per_element());
}

// A hardware failure (no Scheduled phase): the impact is under way, so the agent drains at once, without the
// gate (another rack is down here: the gate would refuse), approves nothing, and restores once it is gone.
BOOST_AUTO_TEST_CASE(an_event_first_seen_started_is_drained_at_once_without_the_gate) {
  AgentScenario s;
  BOOST_REQUIRE(s.sim("stop", "127.0.1.2").ok());  // rack2 down: the gate would say unsafe
  s.start_agent();
  const std::string id = s.emulator().add_event({{"type", "Reboot"},
                                                 {"resources", {"vm0"}},
                                                 {"started", true},
                                                 {"duration_s", 5},
                                                 {"complete_after_s", 3}});
  const auto warned = s.wait_for("impact_without_drain", s.within_a_poll(), id);
  BOOST_TEST(warned.at("emergency").as_bool());
  const auto started = s.wait_for("drain_started", s.within_a_poll(), id);
  BOOST_TEST(started.at("emergency").as_bool());
  BOOST_TEST(ms_between(log_time(warned), log_time(started)) >= 0);
  const auto completed = s.wait_for("drain_completed", s.within_a_poll(), id);
  BOOST_TEST(completed.at("emergency").as_bool());
  BOOST_TEST(s.log("unsafe_to_drain").empty(), "the gate was not asked");
  BOOST_TEST(s.agent_mutations() == (Strings{"disablebinary", "disablegossip", "drain"}),
             boost::test_tools::per_element());
  s.wait_for("restore_completed", s.until_removed(id));
  BOOST_TEST(s.emulator().approvals().empty(), "a started event is not approved");
  BOOST_TEST(s.node_restored());
}

// Azure often follows a Freeze with a Reboot: the node stays out from the Freeze's end to the Reboot's, with
// one restore after both (SPEC 3.2, back to back).
BOOST_AUTO_TEST_CASE(a_reboot_following_a_freeze_keeps_the_node_out_between_them) {
  AgentScenario s;
  s.start_agent();
  const std::string freeze = s.emulator().add_event({{"type", "Freeze"},
                                                     {"resources", {"vm0"}},
                                                     {"not_before_in_s", 4},
                                                     {"duration_s", 2},
                                                     {"complete_after_s", 1}});
  // Its drain (NotBefore - 3 s) falls well within hold_between_events_s (120 s) of the Freeze's end.
  const std::string reboot = s.emulator().add_event(
      {{"type", "Reboot"}, {"resources", {"vm0"}}, {"not_before_in_s", 40}, {"complete_after_s", 1}});
  s.wait_for("drain_completed", s.until_drain_due(freeze), freeze);
  const auto deferred = s.wait_for("restore_deferred", s.until_removed(freeze), reboot);
  BOOST_TEST(deferred.at("gap_s").as_double() > 0.0);
  BOOST_TEST(deferred.at("gap_s").as_double() <= 120.0);
  // The Reboot's remaining step (the flush) runs at once on the drained node, then it is approved.
  s.wait_for("drain_completed", s.within_a_poll(), reboot);
  s.wait_for("event_approved", s.within_a_poll(), reboot);
  s.wait_for("restore_completed", s.until_removed(reboot));
  const Strings mutations = s.agent_mutations();
  BOOST_TEST(mutations.front() == "disablebinary");
  BOOST_TEST(std::count(mutations.begin(), mutations.end(), "disablebinary") == 1, "drained once");
  BOOST_TEST(std::count(mutations.begin(), mutations.end(), "enablebinary") <= 1,
             "restored once, at the end");
  BOOST_TEST(s.log("restore_started").size() == 1u);
  BOOST_TEST(s.node_restored());
}

BOOST_AUTO_TEST_SUITE_END()
