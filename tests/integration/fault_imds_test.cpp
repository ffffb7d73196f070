// Fault matrix: IMDS misbehaving under the real agent. A slow drip, a connection closed mid-body, a body over
// 1 MiB, a storm of 429s, DocumentIncarnation going backwards, an event flapping between Scheduled and
// removed: each gets a clear log line, none is read as a removal, and the agent keeps working.
#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>

#include "agent_scenario.hpp"

namespace {

using namespace cla::test::agent_tests;

std::size_t count(const AgentScenario& s, const std::string& msg) {
  return s.log(msg).size();
}

// Whether the node had binary and gossip off at `t`, replaying the agent node's successful calls until then.
bool drained_at(const AgentScenario& s, cla::WallTime t) {
  bool binary_off = false, gossip_off = false;
  for (const auto& call : s.calls()) {
    if (call.node != cla::test::kAgentNode || call.exit_code != 0 || call.t > t) continue;
    if (call.subcommand == "disablebinary") binary_off = true;
    if (call.subcommand == "enablebinary") binary_off = false;
    if (call.subcommand == "disablegossip") gossip_off = true;
    if (call.subcommand == "enablegossip") gossip_off = false;
  }
  return binary_off && gossip_off;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(fault_imds_test)

// Each broken answer in turn while an event is pending: logged with its kind, never a removal; the next good
// answer is a recovery, and the event is still there.
BOOST_AUTO_TEST_CASE(broken_answers_are_errors_not_removals) {
  AgentScenario s;
  s.start_agent();
  const std::string id = s.emulator().add_event(
      {{"type", "Freeze"}, {"resources", {"vm0"}}, {"not_before_in_s", 600}, {"duration_s", 30}});
  s.wait_for("event_seen", s.within_a_poll(), id);

  const std::vector<std::pair<json::object, std::string>> faults{
      {{{"drip_ms", 200}}, "timeout"},  // ~30 chunks of 16 bytes: far beyond request_timeout_ms (1 s)
      {{{"close_mid_body", true}}, "connect"},
      {{{"pad_bytes", (1 << 20) + 1}}, "body_too_large"},
  };
  for (const auto& [fault, kind] : faults) {
    BOOST_TEST_CONTEXT(json::serialize(fault)) {
      const std::size_t recovered = count(s, "imds_recovered");
      const std::size_t errors = count(s, "imds_error");
      s.emulator().set_fault(fault);
      // One request timeout at most before the failure shows.
      BOOST_REQUIRE(cla::test::wait_until([&] { return count(s, "imds_error") > errors; },
                                          s.request_timeout() + s.within_a_poll()));
      const auto error = s.log("imds_error").at(errors);
      BOOST_TEST(error.at("kind").as_string() == kind);
      BOOST_TEST(!error.at("detail").as_string().empty());
      s.wait_for_polls(2);
      s.emulator().set_fault({});
      BOOST_REQUIRE(cla::test::wait_until([&] { return count(s, "imds_recovered") > recovered; },
                                          s.request_timeout() + s.within_a_poll()));
    }
  }
  BOOST_TEST(s.log("event_removed").empty());
  BOOST_TEST(s.log("event_seen", id).size() == 1u);
  s.emulator().cancel_event(id);  // a real removal is still seen
  s.wait_for("event_removed", s.within_a_poll(), id);
}

// IMDS throttles every request, polls and the approval alike, from before the drain is due: the drain runs on
// its timer, the approval waits for the storm to pass, polls back off meanwhile.
BOOST_AUTO_TEST_CASE(a_429_storm_delays_the_approval_not_the_drain) {
  AgentScenario s;
  s.write_config({{"policy", {{"drain_lead_s", 8}}}});
  s.start_agent();
  const std::string id = s.emulator().add_event(
      {{"type", "Freeze"}, {"resources", {"vm0"}}, {"not_before_in_s", 12}, {"duration_s", 30}});
  s.wait_for("event_seen", s.within_a_poll(), id);
  const auto storm_from = cla::WallClock::now();
  s.emulator().set_fault({{"status", 429}});
  s.wait_for("drain_completed", s.until_drain_due(id), id);
  const auto failed = s.wait_for("approval_failed", s.within_a_poll(), id);
  BOOST_TEST(std::string(failed.at("detail").as_string()).find("429") != std::string::npos);
  const auto storm_until = cla::WallClock::now();
  s.emulator().set_fault({});

  std::size_t throttled = 0;
  for (const auto& r : s.emulator().requests())
    throttled += r.at("method").as_string() == "GET" && r.at("status").as_int64() == 429;
  const auto storm_polls = cla::test::ms_between(storm_from, storm_until) / s.poll_interval().count();
  BOOST_TEST(throttled < static_cast<std::size_t>(storm_polls), "polls back off under 429");
  BOOST_TEST(count(s, "imds_error") <= 2u, "logged once (rate-limited)");

  const auto approved =
      s.wait_for("event_approved", failed.at("retry_in_s").as_int64() * 1s + s.within_a_poll(), id);
  BOOST_TEST(cla::test::ms_between(cla::test::log_time(failed), cla::test::log_time(approved)) >= 0);
  s.emulator().cancel_event(id);
  s.wait_for("restore_completed", s.within_a_poll());
  BOOST_TEST(s.node_restored());
}

// DocumentIncarnation stuck at an older value while the events change: a warning, and every change is still
// acted on (the agent evaluates each document in full).
BOOST_AUTO_TEST_CASE(incarnation_going_backwards_is_logged_and_changes_still_count) {
  AgentScenario s;
  s.start_agent();
  const std::string id = s.emulator().add_event(
      {{"type", "Freeze"}, {"resources", {"vm0"}}, {"not_before_in_s", 600}, {"duration_s", 30}});
  s.wait_for("event_seen", s.within_a_poll(), id);
  s.emulator().set_fault({{"incarnation", 1}});
  const auto backwards = s.wait_for("incarnation_went_backwards", s.within_a_poll());
  BOOST_TEST(backwards.at("level").as_string() == "warning");
  BOOST_TEST(backwards.at("document_incarnation").as_int64() == 1);

  s.emulator().cancel_event(id);
  s.wait_for("event_removed", s.within_a_poll(), id);
  const std::string user = s.emulator().add_event(
      {{"type", "Reboot"}, {"resources", {"vm0"}}, {"source", "User"}, {"not_before_in_s", 600}});
  s.wait_for("drain_completed", s.within_a_poll(), user);
  s.emulator().cancel_event(user);
  s.wait_for("restore_completed", s.within_a_poll());
  BOOST_TEST(s.node_restored());
  BOOST_TEST(count(s, "incarnation_went_backwards") == 1u);
}

// Every other document omits the Scheduled event while its drain falls due. Whatever the agent makes of it,
// no approval comes while the node is not drained, and once the event is really gone the node is back.
BOOST_AUTO_TEST_CASE(an_event_flapping_between_scheduled_and_removed_never_breaks_the_invariant) {
  AgentScenario s;
  s.write_config({{"policy", {{"drain_lead_s", 5}}}});
  s.start_agent();
  s.emulator().set_fault({{"flap", true}});
  const std::string id = s.emulator().add_event(
      {{"type", "Freeze"}, {"resources", {"vm0"}}, {"not_before_in_s", 8}, {"duration_s", 30}});
  s.wait_for("event_removed", s.within_a_poll() * 2, id);  // seen, then gone with the next document
  s.wait_for("drain_started", s.until_drain_due(id), id);
  s.wait_for_polls(6);
  s.emulator().set_fault({});
  s.emulator().cancel_event(id);
  s.wait_for_polls(2);
  BOOST_REQUIRE(cla::test::wait_until([&] { return s.node_restored(); }, s.within_a_poll() + kMargin));
  for (const auto& approval : s.emulator().approvals())
    BOOST_TEST(drained_at(s, cla::test::emulator_time(approval)), "approved while not drained");
  BOOST_TEST(s.log("event_seen", id).size() >= 2u, "the flapping shows in the log");
}

BOOST_AUTO_TEST_SUITE_END()
