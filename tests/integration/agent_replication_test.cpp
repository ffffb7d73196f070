// End to end: the replication-exact gate (SPEC 3.4) over nodetool-sim's keyspaces and ring. The schema
// refresh (describecluster + ring) runs at start and reports the keyspaces it cannot protect; a gate check
// stays one `nodetool status`; the level decides what a rack down allows; a schema that cannot be read falls
// back to the rack count.
#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>
#include <chrono>
#include <map>
#include <string>
#include <thread>

#include "agent_scenario.hpp"

namespace {

using namespace cla::test;
namespace json = boost::json;
using Strings = std::vector<std::string>;

// The agent node's nodetool calls by subcommand, those at or after `from` only.
std::map<std::string, int> agent_calls(const AgentScenario& s, cla::WallTime from = {}) {
  std::map<std::string, int> counts;
  for (const auto& call : s.calls())
    if (call.node == kAgentNode && call.t >= from) ++counts[call.subcommand];
  return counts;
}

// Those calls in order, for a failed count: each subcommand with its exit code and time after `from`.
std::string agent_calls_text(const AgentScenario& s, cla::WallTime from) {
  std::string text;
  for (const auto& call : s.calls())
    if (call.node == kAgentNode && call.t >= from)
      text += call.subcommand + " (exit " + std::to_string(call.exit_code) + ", +" +
              std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(call.t - from).count()) +
              " ms) ";
  return text;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(agent_replication_test)

// The sim's default keyspaces (a fresh 5.0 cluster's): system_auth SimpleStrategy 1 and system_traces
// SimpleStrategy 2 cannot keep LOCAL_QUORUM without this node; lifecycle and system_distributed can.
BOOST_AUTO_TEST_CASE(refresh_at_start_reports_the_unprotectable_and_a_drain_costs_no_more_runs_than_before) {
  AgentScenario s;
  s.start_agent();
  const auto refreshed = s.wait_for("schema_refreshed", kMargin);
  BOOST_TEST(refreshed.at("trigger") == "start");
  BOOST_TEST(refreshed.at("unprotectable") == 2);
  std::map<std::string, json::object> unprotectable;
  for (const auto& line : s.log("keyspace_unprotectable"))
    unprotectable[std::string(line.at("keyspace").as_string())] = line;
  BOOST_REQUIRE(unprotectable.size() == 2u);
  const auto& auth = unprotectable.at("system_auth");
  BOOST_TEST(auth.at("level") == "warning");
  BOOST_TEST(auth.at("class") == "SimpleStrategy");
  BOOST_TEST(auth.at("rf") == 1);
  BOOST_TEST(auth.at("consistency") == "LOCAL_QUORUM");
  BOOST_TEST(unprotectable.at("system_traces").at("rf") == 2);
  const auto at_start = agent_calls(s);
  BOOST_TEST(at_start.at("describecluster") == 1);
  BOOST_TEST(at_start.at("ring") == 1);
  BOOST_TEST(at_start.at("getmaxhintwindow") == 1, "the hint window is read with the schema");

  const auto event_added = cla::WallClock::now();
  const std::string id = s.emulator().add_event(
      {{"type", "Freeze"}, {"resources", {"vm0"}}, {"not_before_in_s", 5}, {"duration_s", 30}});
  s.approved_and_started(id);
  BOOST_TEST(s.log("unsafe_to_drain").empty());
  BOOST_TEST(s.log("gate_fallback").empty());
  // The event seen within schema_refresh_s of the start refresh: no second refresh; the gate is one status
  // (the host id came with the start refresh's status) and, beside it, the node's pending hints (SPEC 3.10:
  // peers still catching up), the drain its two commands.
  const auto during = agent_calls(s, event_added);
  BOOST_TEST((during ==
              std::map<std::string, int>{
                  {"disablebinary", 1}, {"disablegossip", 1}, {"listpendinghints", 1}, {"status", 1}}),
             "the agent's calls since the event: " << agent_calls_text(s, event_added));
  BOOST_TEST(agent_calls(s).at("info") == 1, "the host id is read once");
  BOOST_TEST(s.log("schema_refreshed").size() == 1u);
  BOOST_TEST(s.log("keyspace_unprotectable").size() == 2u, "reported once per refresh");
}

// rack2's node down, 16 tokens a node: at LOCAL_ONE a range of system_traces (SimpleStrategy 2) that rack1
// and rack2 hold alone would keep no replica, until it is altered to NTS {dc1: 3} (docs/gate.md's advice);
// then every range keeps one. At LOCAL_QUORUM the gate names a keyspace and a range that would fall short.
BOOST_AUTO_TEST_CASE(the_level_decides_what_a_rack_down_allows) {
  const json::object freeze{
      {"type", "Freeze"}, {"resources", {"vm0"}}, {"not_before_in_s", 5}, {"duration_s", 30}};
  {
    AgentScenario s;
    BOOST_REQUIRE(s.sim("stop", "127.0.1.2").ok());
    s.write_config({{"topology", {{"consistency", "LOCAL_ONE"}}}});
    s.start_agent();
    const std::string id = s.emulator().add_event(freeze);
    const auto unsafe = s.wait_for("unsafe_to_drain", s.until_drain_due(id), id);
    BOOST_TEST(unsafe.at("keyspace") == "system_traces");
    BOOST_TEST(unsafe.at("needed") == 1);
    BOOST_TEST(unsafe.at("available") == 0);
  }
  {
    AgentScenario s;
    BOOST_REQUIRE(s.sim("stop", "127.0.1.2").ok());
    s.alter_sim_keyspace("system_traces", "NetworkTopologyStrategy", {{"dc1", 3}});
    s.write_config({{"topology", {{"consistency", "LOCAL_ONE"}}}});
    s.start_agent();
    const std::string id = s.emulator().add_event(freeze);
    s.approved_and_started(id);
    BOOST_TEST(s.log("unsafe_to_drain").empty());
    BOOST_TEST(s.log("keyspace_unprotectable").size() == 1u, "system_auth alone at LOCAL_ONE");
  }
  AgentScenario s;
  BOOST_REQUIRE(s.sim("stop", "127.0.1.2").ok());
  s.start_agent();
  const std::string id = s.emulator().add_event(freeze);
  const auto unsafe = s.wait_for("unsafe_to_drain", s.until_drain_due(id), id);
  const std::string keyspace(unsafe.at("keyspace").as_string());
  BOOST_TEST((keyspace == "lifecycle" || keyspace == "system_distributed"), keyspace);
  BOOST_TEST(unsafe.at("needed") == 2);
  BOOST_TEST(unsafe.at("available") == 1);
  BOOST_TEST(unsafe.at("down") == json::array{"127.0.1.2"});
  BOOST_TEST(!unsafe.at("start_token").as_string().empty());
  BOOST_TEST(!unsafe.at("end_token").as_string().empty());
  BOOST_TEST(unsafe.at("down_racks") == json::array{"rack2"});
  BOOST_TEST(s.emulator().approvals().empty());
}

// describecluster fails: gate_fallback, and the rack count against topology.replication_factor decides (one
// rack out of RF 3 is allowed: the drain goes ahead).
BOOST_AUTO_TEST_CASE(a_schema_that_cannot_be_read_falls_back_to_the_rack_count) {
  AgentScenario s;
  s.add_sim_fault(kAgentNode, "describecluster", {{"exit_code", 1}, {"stderr", "error: JMX busy\n"}});
  s.start_agent();
  const auto fallback = s.wait_for("gate_fallback", kMargin);
  BOOST_TEST(fallback.at("level") == "warning");
  BOOST_TEST(fallback.at("reason").as_string().find("describecluster") != json::string::npos);
  BOOST_TEST(s.log("schema_refreshed").empty());
  const std::string id = s.emulator().add_event(
      {{"type", "Freeze"}, {"resources", {"vm0"}}, {"not_before_in_s", 5}, {"duration_s", 30}});
  s.approved_and_started(id);
  BOOST_TEST(agent_calls(s).at("describecluster") == 1, "asked again only after schema_refresh_s");
}

// A refresh on event_seen serves the gate: an event first seen Started (an emergency drain) passes no gate,
// so it triggers none even when one is due; its drain has the cores to itself. A platform event seen next
// does.
BOOST_AUTO_TEST_CASE(an_event_first_seen_started_triggers_no_refresh) {
  AgentScenario s;
  constexpr std::chrono::seconds refresh_interval{10};  // the least schema_refresh_s allows
  s.write_config({{"topology", {{"schema_refresh_s", refresh_interval.count()}}}});
  s.start_agent();
  const auto at_start = s.wait_for("schema_refreshed", kMargin);
  // Past the interval, counted from the start refresh's end (its attempt began before): a refresh is due.
  std::this_thread::sleep_until(log_time(at_start) + refresh_interval);
  const auto added = cla::WallClock::now();
  const std::string started = s.emulator().add_event(
      {{"type", "Reboot"}, {"resources", {"vm0"}}, {"started", true}, {"complete_after_s", 60}});
  s.wait_for("drain_completed", s.within_a_poll() + kMargin, started);
  const auto during = agent_calls(s, added);
  BOOST_TEST(!during.contains("describecluster"));
  BOOST_TEST(!during.contains("ring"));
  BOOST_TEST(s.log("schema_refreshed").size() == 1u);

  s.emulator().add_event(
      {{"type", "Freeze"}, {"resources", {"vm0"}}, {"not_before_in_s", 30}, {"duration_s", 5}});
  BOOST_TEST_REQUIRE(
      wait_until([&] { return s.log("schema_refreshed").size() == 2u; }, s.within_a_poll() + 2 * kMargin),
      "a refresh was due: a scheduled event's sighting makes it");
  BOOST_TEST(s.log("schema_refreshed").back().at("trigger") == "event_seen");
}

BOOST_AUTO_TEST_SUITE_END()
