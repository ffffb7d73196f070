// Out of the request path before the approval, end to end (SPEC 3.10). Quiet before approval: nodetool-sim
// plays peers that marked the drained node up again during Cassandra's shutdown announce (its replica stages
// keep completing tasks for announce_echo_s after disablegossip). The approval comes only once tpstats has
// not moved for policy.quiet_s, so after the echo; without the echo, right after quiet_s.
#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "agent_scenario.hpp"
#include "tests/support/temp_dir.hpp"

using namespace cla::test::agent_tests;

namespace {

constexpr int kEchoS = 3;
constexpr int kQuietS = 1;
// The simulator counts traffic in whole seconds: the echo ends at the second of disablegossip plus kEchoS, so
// it lasts more than kEchoS - 1 s after the call; the wait ends at most two readings (quiet_s apart) after
// the counts stop.
constexpr auto kShortestEcho = std::chrono::seconds(kEchoS - 1);
constexpr auto kLongestWait = std::chrono::seconds(kEchoS + 2 * kQuietS + 1);

// The simulator's first disablegossip on the agent's node.
cla::WallTime disablegossip_at(const AgentScenario& s) {
  for (const auto& call : s.calls())
    if (call.node == cla::test::kAgentNode && call.subcommand == "disablegossip") return call.t;
  BOOST_FAIL("no disablegossip on the agent's node");
  return {};
}

}  // namespace

BOOST_AUTO_TEST_SUITE(agent_quiet_test)

BOOST_AUTO_TEST_CASE(the_approval_waits_until_the_drained_node_gets_no_more_requests) {
  for (const int echo_s : {kEchoS, 0}) {
    BOOST_TEST_CONTEXT("announce_echo_s " << echo_s) {
      AgentScenario s;
      s.set_sim_node(cla::test::kAgentNode, "announce_echo_s", echo_s);
      s.write_config({{"policy", {{"drain_lead_s", 14}, {"quiet_s", kQuietS}}}});
      s.start_agent();
      const std::string id = s.emulator().add_event(
          {{"type", "Freeze"}, {"resources", {"vm0"}}, {"not_before_in_s", 20}, {"duration_s", 5}});
      s.wait_for("drain_completed", s.until_drain_due(id), id);
      const auto quiet = s.wait_for("drain_quiet", kLongestWait + cla::test::kMargin, id);
      s.wait_for("event_approved", s.within_a_poll(), id);
      BOOST_REQUIRE(s.emulator().approvals().size() == 1u);
      const auto approved = cla::test::emulator_time(s.emulator().approvals().at(0));
      const auto after_gossip_ms = ms_between(disablegossip_at(s), approved);
      BOOST_TEST(quiet.at("quiet_s").as_int64() == kQuietS);
      BOOST_TEST(quiet.at("readings").as_int64() >= 2);
      BOOST_TEST(quiet.at("read_stage").as_int64() > 0, "the stages were read, not assumed");
      if (echo_s > 0) {
        BOOST_TEST(
            after_gossip_ms >=
                std::chrono::milliseconds(kShortestEcho + std::chrono::seconds(kQuietS)).count(),
            "approved " << after_gossip_ms << " ms after disablegossip, while peers still sent requests");
        BOOST_TEST(quiet.at("readings").as_int64() >= 3, "the echo's readings moved");
      } else {
        BOOST_TEST(after_gossip_ms <
                       std::chrono::milliseconds(kShortestEcho + std::chrono::seconds(kQuietS)).count(),
                   "without the echo the wait is quiet_s, not the echo's");
      }
    }
  }
}

// A tpstats that fails after the drain: no approval (stages_unreadable), and the impact comes at NotBefore
// on a drained node.
BOOST_AUTO_TEST_CASE(unreadable_stages_withhold_the_approval) {
  AgentScenario s;
  s.add_sim_fault(cla::test::kAgentNode, "tpstats", {{"exit_code", 1}});
  s.write_config({{"policy", {{"quiet_s", kQuietS}}}});
  s.start_agent();
  const std::string id = s.emulator().add_event(
      {{"type", "Freeze"}, {"resources", {"vm0"}}, {"not_before_in_s", 6}, {"duration_s", 5}});
  s.wait_for("drain_completed", s.until_drain_due(id), id);
  const auto unreadable = s.wait_for("stages_unreadable", s.within_a_poll());
  BOOST_TEST(unreadable.at("detail").as_string().find("tpstats") != std::string::npos);
  s.wait_for("event_status_changed", s.until_started_by_not_before(id), id);
  BOOST_TEST(s.emulator().approvals().empty());
  BOOST_TEST(s.log("event_approved").empty());
  BOOST_TEST(!s.running("statusgossip"));
}

// The shutdown announce's setting (SPEC 3.10), read once a start from this host's Cassandra command line with
// the nodetool backend: a warning when it is Cassandra's default; CLA_PROC_DIR gives the agent a process list
// of the test's own.
BOOST_AUTO_TEST_CASE(the_shutdown_announce_setting_is_read_from_this_host_s_cassandra) {
  using namespace std::string_literals;
  struct Row {
    const char* name;
    std::string cmdline;  // "" = no Cassandra on this host
    const char* msg;
  };
  const Row rows[] = {
      {"default", "java\0-Xmx512M\0org.apache.cassandra.service.CassandraDaemon\0"s,
       "shutdown_announce_default"},
      {"advised",
       "java\0-Dcassandra.shutdown_announce_in_ms=0\0org.apache.cassandra.service.CassandraDaemon\0"s,
       "shutdown_announce"},
      {"no Cassandra here", "", "shutdown_announce_unknown"},
  };
  for (const Row& row : rows) {
    BOOST_TEST_CONTEXT(row.name) {
      cla::test::TempDir proc("cla-proc");
      if (!row.cmdline.empty()) {
        std::filesystem::create_directories(proc.path / "4242");
        std::ofstream(proc.path / "4242" / "cmdline", std::ios::binary) << row.cmdline;
      }
      ::setenv("CLA_PROC_DIR", proc.path.c_str(), 1);
      AgentScenario s;
      s.start_agent();
      ::unsetenv("CLA_PROC_DIR");
      const auto line = s.wait_for(row.msg, cla::test::kMargin);
      for (const char* other :
           {"shutdown_announce_default", "shutdown_announce", "shutdown_announce_unknown"})
        if (std::string(other) != row.msg) BOOST_TEST(s.log(other).empty(), other);
      if (std::string(row.msg) == "shutdown_announce")
        BOOST_TEST(line.at("shutdown_announce_in_ms").as_int64() == 0);
      if (std::string(row.msg) == "shutdown_announce_default") {
        BOOST_TEST(line.at("advice").as_string().find("-Dcassandra.shutdown_announce_in_ms=0") !=
                   std::string::npos);
        BOOST_TEST(line.at("unsafe_drain_lead_s").as_int64() == s.unsafe_drain_lead().count(),
                   "the forced drain's lead, which the announce's 10-20 s outlast");
      }
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
