// nodetool-sim's subcommand semantics (drain is one-way, stopped nodes refuse JMX) and fault injection.
#include "cassandra/sim/sim_commands.hpp"

#include <boost/test/unit_test.hpp>

#include "../cassandra_test_data.hpp"
#include "cassandra/nodetool_output/max_hint_window_parser.hpp"
#include "cassandra/nodetool_output/pending_hints_parser.hpp"
#include "cassandra/nodetool_output/tpstats_parser.hpp"

using cla::test::cassandra_data;

namespace {

constexpr std::int64_t kNow = 1700000000;

struct Fixture {
  cla::SimCluster cluster = cla::make_sim_cluster(cla::SimInitOptions{}, kNow - 60);
  bool changed = false;

  cla::SimReply run(const std::string& subcommand, const std::vector<std::string>& args = {},
                    const std::string& address = "127.0.1.1") {
    changed = false;
    auto ref = find_node(cluster, address);
    BOOST_REQUIRE(ref.has_value());
    return cla::execute_sim_command(cluster, *ref, subcommand, args, kNow, changed);
  }
  cla::SimNode& node(const std::string& address = "127.0.1.1") { return *find_node(cluster, address)->node; }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(sim_commands_test)

BOOST_FIXTURE_TEST_CASE(disable_and_enable_are_reversible_without_drain, Fixture) {
  BOOST_TEST(run("statusbinary").out == "running\n");
  BOOST_TEST(run("disablebinary").exit_code == 0);
  BOOST_TEST(changed);
  BOOST_TEST(run("statusbinary").out == "not running\n");
  BOOST_TEST(!changed);
  BOOST_TEST(run("disablegossip").out.empty());
  BOOST_TEST(run("statusgossip").out == "not running\n");
  BOOST_TEST(run("enablegossip").exit_code == 0);
  BOOST_TEST(run("enablebinary").exit_code == 0);
  BOOST_TEST(node().gossip);
  BOOST_TEST(node().binary);
}

BOOST_FIXTURE_TEST_CASE(drain_is_one_way_until_a_restart, Fixture) {
  const auto drained = run("drain");
  BOOST_TEST(drained.exit_code == 0);
  BOOST_TEST(drained.out.empty());
  BOOST_TEST(changed);
  BOOST_TEST(node().drained);
  BOOST_TEST(!node().gossip);
  BOOST_TEST(!node().binary);
  BOOST_TEST(run("drain").exit_code == 0);  // second drain: nothing, exit 0
  BOOST_TEST(!changed);

  const auto binary = run("enablebinary");
  BOOST_TEST(binary.exit_code == 1);
  BOOST_TEST(binary.out == cassandra_data("raw/nodetool_enablebinary_after_drain.stdout"));
  BOOST_TEST(binary.err.empty());
  const auto gossip = run("enablegossip");
  BOOST_TEST(gossip.exit_code == 1);
  BOOST_TEST(gossip.out == cassandra_data("raw/nodetool_enablegossip_after_drain.stdout"));
  const auto stop_gossip = run("disablegossip");
  BOOST_TEST(stop_gossip.exit_code == 1);
  BOOST_TEST(
      stop_gossip.out ==
      "nodetool: Unable to stop gossip because the node is not in the normal state. Try to stop the node "
      "instead.\nSee 'nodetool help' or 'nodetool help <command>'.\n");
  BOOST_TEST(run("disablebinary").exit_code == 0);
  BOOST_TEST(run("statusbinary").out == "not running\n");

  BOOST_TEST(run("restart").exit_code == 0);
  BOOST_TEST(!node().drained);
  BOOST_TEST(node().generation == kNow);
  BOOST_TEST(run("statusgossip").out == "running\n");
  BOOST_TEST(run("enablebinary").exit_code == 0);
}

BOOST_FIXTURE_TEST_CASE(a_stopped_node_refuses_the_jmx_connection, Fixture) {
  BOOST_TEST(run("stop", {}, "127.0.1.2").exit_code == 0);
  for (const char* subcommand : {"status", "info", "statusbinary", "disablebinary", "drain"}) {
    const auto reply = run(subcommand, {}, "127.0.1.2");
    BOOST_TEST(reply.exit_code == 1);
    BOOST_TEST(reply.out.empty());
    BOOST_TEST(reply.err ==
               "nodetool: Failed to connect to '127.0.1.2:7199' - ConnectException: 'Connection refused'.\n");
  }
  BOOST_TEST(run("status").out.find("DN  127.0.1.2 ") != std::string::npos);
  BOOST_TEST(run("start", {}, "127.0.1.2").exit_code == 0);
  BOOST_TEST(run("statusgossip", {}, "127.0.1.2").out == "running\n");
  BOOST_TEST(run("start", {}, "127.0.1.2").exit_code == 0);  // already running: nothing
  BOOST_TEST(!changed);
}

BOOST_FIXTURE_TEST_CASE(usage_errors_go_to_stdout_with_exit_1, Fixture) {
  const auto unknown = run("decommission");
  BOOST_TEST(unknown.exit_code == 1);
  BOOST_TEST(unknown.out ==
             "nodetool: Found unexpected parameters: [decommission]\nSee 'nodetool help' or 'nodetool help "
             "<command>'.\n");
  const auto extra = run("status", {"--help"});
  BOOST_TEST(extra.exit_code == 1);
  BOOST_TEST(extra.out.starts_with("nodetool: Found unexpected parameters: [--help]\n"));
}

BOOST_FIXTURE_TEST_CASE(faults_count_down_and_disappear, Fixture) {
  node().faults["disablegossip"] = cla::SimFault{2, "", "error: boom\n", 0, 2, std::nullopt};
  for (int i = 0; i < 2; ++i) {
    const auto fault = cla::take_fault(node(), "disablegossip");
    BOOST_REQUIRE(fault.has_value());
    BOOST_TEST(cla::fault_reply(*fault).exit_code == 2);
    BOOST_TEST(cla::fault_reply(*fault).err == "error: boom\n");
  }
  BOOST_TEST(!cla::take_fault(node(), "disablegossip").has_value());
  BOOST_TEST(node().faults.empty());
}

BOOST_FIXTURE_TEST_CASE(wildcard_faults_spare_lifecycle_commands, Fixture) {
  node().faults["*"] = cla::SimFault{1, "", "", 0, std::nullopt, std::nullopt};
  node().faults["statusbinary"] = cla::SimFault{std::nullopt, "", "", 250, std::nullopt, std::nullopt};
  BOOST_TEST(cla::take_fault(node(), "drain").has_value());
  BOOST_TEST(cla::take_fault(node(), "drain").has_value());  // no "times": forever
  BOOST_TEST(!cla::take_fault(node(), "restart").has_value());
  BOOST_TEST(!cla::take_fault(node(), "no-such-command").has_value());
  const auto own = cla::take_fault(node(), "statusbinary");
  BOOST_REQUIRE(own.has_value());
  BOOST_TEST(!own->exit_code.has_value());
  BOOST_TEST(own->latency_ms == 250);
}

BOOST_AUTO_TEST_CASE(fault_replies_default_to_nodetool_like_text) {
  const auto usage = cla::fault_reply(cla::SimFault{1, "", "", 0, std::nullopt, std::nullopt});
  BOOST_TEST(usage.exit_code == 1);
  BOOST_TEST(usage.out.starts_with("nodetool: injected fault"));
  BOOST_TEST(usage.err.empty());
  const auto crash = cla::fault_reply(cla::SimFault{2, "", "", 0, std::nullopt, std::nullopt});
  BOOST_TEST(crash.exit_code == 2);
  BOOST_TEST(crash.err.starts_with("error: injected fault"));
  const auto given = cla::fault_reply(
      cla::SimFault{1, "partial\n", "nodetool: Failed to connect to 'x'\n", 0, 1, std::nullopt});
  BOOST_TEST(given.out == "partial\n");
  BOOST_TEST(given.err == "nodetool: Failed to connect to 'x'\n");
}

// tpstats (SPEC 3.10): the replica stages complete tasks while peers see the node up, stop with
// disablegossip, and go on for announce_echo_s after it (peers that marked the node up again during the
// shutdown announce); the output is what parse_tpstats reads.
BOOST_FIXTURE_TEST_CASE(tpstats_counts_traffic_until_gossip_stops_and_its_echo, Fixture) {
  auto ref = *find_node(cluster, "127.0.1.1");
  const auto at = [&](std::int64_t t, const std::string& subcommand) {
    bool changed_now = false;
    return cla::execute_sim_command(cluster, ref, subcommand, {}, t, changed_now);
  };
  const auto reads = [&](std::int64_t t) {
    const auto parsed = cla::parse_tpstats(at(t, "tpstats").out);
    BOOST_REQUIRE_MESSAGE(parsed.ok(), (parsed.ok() ? "" : parsed.error().message));
    return parsed.value();
  };
  const std::int64_t since_start = kNow - node().generation;
  BOOST_TEST_REQUIRE(since_start > 0);
  BOOST_TEST(reads(kNow).read == since_start * cla::kSimTasksPerSecond, "counted from the process's start");
  const auto serving = reads(kNow + 2);
  BOOST_TEST(serving.read == (since_start + 2) * cla::kSimTasksPerSecond);
  BOOST_TEST(serving.mutation == serving.read / 3);

  node().announce_echo_s = 3;
  BOOST_TEST(at(kNow + 2, "disablegossip").exit_code == 0);
  BOOST_TEST(reads(kNow + 4).read == serving.read + 2 * cla::kSimTasksPerSecond, "the echo goes on");
  const auto after_echo = reads(kNow + 5);
  BOOST_TEST(after_echo.read == serving.read + 3 * cla::kSimTasksPerSecond);
  BOOST_TEST((reads(kNow + 60) == after_echo), "nothing after the echo");

  BOOST_TEST(at(kNow + 60, "enablegossip").exit_code == 0);
  BOOST_TEST(reads(kNow + 61).read == after_echo.read + cla::kSimTasksPerSecond, "no catch-up of the gap");
}

// Hints (SPEC 3.10): while a node is seen down its peers list nothing for it (the file is open); once it is
// seen up again every other running node lists it from a second later until hint_replay_s after, with a file
// per 10 s of outage; the output is what parse_listpendinghints reads. getmaxhintwindow prints the node's.
BOOST_FIXTURE_TEST_CASE(peers_list_hints_for_a_node_that_came_back_until_its_replay_ends, Fixture) {
  node("127.0.1.2").hint_replay_s = 6;
  auto drained = *find_node(cluster, "127.0.1.2");
  const auto at = [&](std::int64_t t, const std::string& subcommand, const std::string& address) {
    bool changed_now = false;
    return cla::execute_sim_command(cluster, *find_node(cluster, address), subcommand, {}, t, changed_now);
  };
  const auto listed = [&](std::int64_t t, const std::string& address) {
    const auto parsed = cla::parse_listpendinghints(at(t, "listpendinghints", address).out);
    BOOST_REQUIRE_MESSAGE(parsed.ok(), (parsed.ok() ? "" : parsed.error().message));
    return parsed.value();
  };
  BOOST_TEST(at(kNow, "listpendinghints", "127.0.1.1").out == "This node does not have any pending hints\n");
  bool changed_now = false;
  BOOST_TEST(cla::execute_sim_command(cluster, drained, "disablegossip", {}, kNow, changed_now).exit_code ==
             0);
  BOOST_TEST(node("127.0.1.2").down_since == kNow);
  BOOST_TEST(listed(kNow + 20, "127.0.1.1").empty(), "an open hints file is not listed");
  BOOST_TEST(
      cla::execute_sim_command(cluster, drained, "enablegossip", {}, kNow + 25, changed_now).exit_code == 0);
  BOOST_TEST(node("127.0.1.2").back_at == kNow + 25);
  BOOST_TEST(node("127.0.1.2").back_out_s == 25);
  BOOST_TEST(listed(kNow + 25, "127.0.1.1").empty(), "closed only once the peer saw it alive");
  const auto hints = listed(kNow + 26, "127.0.1.1");
  BOOST_REQUIRE(hints.size() == 1u);
  BOOST_TEST(hints[0].host_id == node("127.0.1.2").host_id);
  BOOST_TEST(hints[0].total_files == 3);
  BOOST_TEST(listed(kNow + 30, "127.0.1.3").size() == 1u, "every peer holds some");
  BOOST_TEST(listed(kNow + 30, "127.0.1.2").empty(), "never for itself");
  BOOST_TEST(listed(kNow + 31, "127.0.1.1").empty(), "delivered hint_replay_s after");

  const auto window = cla::parse_getmaxhintwindow(at(kNow, "getmaxhintwindow", "127.0.1.1").out);
  BOOST_REQUIRE(window.ok());
  BOOST_TEST(window->count() == 10800000);
}

BOOST_AUTO_TEST_SUITE_END()
