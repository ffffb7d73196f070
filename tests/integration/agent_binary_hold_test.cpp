// End to end (SPEC 3.3, 3.10): after the VM rebooted, the restored node reopens CQL only once it caught up.
// A Reboot drained for and approved; the VM reboots (CLA_BOOT_ID_FILE renewed, the simulated Cassandra
// restarted without its native transport, as deploy/cassandra.service.d boots it while the agent holds the
// node); the Reboot ends. The agent's restore holds enablebinary (`binary_held`, /state) for catch_up_min_s,
// then reopens CQL, and the catch-up that follows restore_completed counts from the hold's start. Checked
// without the feature: with binary_held's call removed from Core::restore_work, enablebinary runs at the
// restore's start and the case fails.
#include <boost/beast/http/verb.hpp>
#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>

#include "agent_scenario.hpp"
#include "cassandra_support.hpp"

using namespace cla::test::agent_tests;

namespace {

constexpr int kMinS = 4;

std::optional<cla::WallTime> last_call(const AgentScenario& s, const std::string& subcommand) {
  std::optional<cla::WallTime> at;
  for (const auto& call : s.calls())
    if (call.node == cla::test::kAgentNode && call.subcommand == subcommand) at = call.t;
  return at;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(agent_binary_hold_test)

BOOST_AUTO_TEST_CASE(a_rebooted_node_reopens_cql_once_caught_up) {
  AgentScenario s;
  s.write_config({{"policy", {{"catch_up_min_s", kMinS}, {"catch_up_max_s", 60}}},
                  {"http", {{"listen", "127.0.0.1:0"}}}});
  s.start_agent();
  const std::string id = s.emulator().add_event(
      {{"type", "Reboot"}, {"resources", {"vm0"}}, {"not_before_in_s", 4}, {"complete_after_s", 1}});
  s.wait_for("event_approved", s.until_drain_due(id), id);
  s.kill_agent();
  s.set_boot_id("boot-2");
  BOOST_REQUIRE(s.sim("restart").ok());
  BOOST_REQUIRE(s.sim("disablebinary").ok());  // booted without its native transport
  BOOST_REQUIRE(cla::test::wait_until([&] { return s.emulator().events().empty(); }, s.until_removed(id)));

  s.start_agent();
  // The log holds the first run's line too.
  BOOST_REQUIRE(
      cla::test::wait_until([&] { return s.log("http_listening").size() == 2u; }, cla::test::kMargin));
  const auto port = static_cast<std::uint16_t>(s.log("http_listening").back().at("port").as_int64());
  const auto held = s.wait_for("binary_held", s.within_a_poll());
  BOOST_TEST(held.at("rebooted").as_bool());
  const auto state =
      cla::test::http_call(port, boost::beast::http::verb::get, "/state", {}, {}, 2s).json().as_object();
  BOOST_TEST(state.at("phase").as_string() == "restoring");
  BOOST_TEST(!state.at("binary_held_since").is_null());
  BOOST_TEST(!s.sim("statusbinary").out.starts_with("running"), "CQL reopened during the hold");

  // Uncoordinated nobody names its hints: catch_up_min_s, then the read the core schedules for that instant.
  const auto ended = s.wait_for("binary_hold_ended", std::chrono::seconds(kMinS) + s.within_a_poll());
  BOOST_TEST(ended.at("held_s").as_int64() == kMinS);
  s.wait_for("restore_completed", s.within_a_poll());
  const auto enabled = last_call(s, "enablebinary");
  BOOST_REQUIRE(enabled.has_value());
  BOOST_TEST(ms_between(cla::test::log_time(held), *enabled) >= kMinS * 1000,
             "enablebinary " << ms_between(cla::test::log_time(held), *enabled) << " ms after binary_held");
  // The node was UN from the hold's start: caught up at once, its catch-up counted from there.
  const auto caught = s.wait_for("caught_up", s.within_a_poll());
  BOOST_TEST(caught.at("catch_up_s").as_int64() >= kMinS);
  BOOST_TEST(s.node_restored());
}

BOOST_AUTO_TEST_SUITE_END()
