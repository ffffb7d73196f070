// nodetool-sim as a binary: its status/info parse with our parsers, DN views, drain semantics, faults,
// concurrent calls under the file lock, the call log and its own errors.
#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>
#include <regex>

#include "cassandra/gate/replication_verdict.hpp"
#include "cassandra/gate/safety_gate.hpp"
#include "cassandra/nodetool/nodetool_runner.hpp"
#include "cassandra/nodetool_output/describecluster_parser.hpp"
#include "cassandra/nodetool_output/describering_parser.hpp"
#include "cassandra/nodetool_output/info_parser.hpp"
#include "cassandra/nodetool_output/ring_parser.hpp"
#include "cassandra/nodetool_output/running_parser.hpp"
#include "cassandra/nodetool_output/status_parser.hpp"
#include "cassandra/sim/sim_cluster_json.hpp"
#include "cassandra_support.hpp"

using namespace std::chrono_literals;
using cla::CommandOutcome;
using cla::test::run_blocking;

namespace {

std::string reference(const std::string& name) {
  std::string path = CLA_TEST_DATA_DIR;
  return cla::test::read_text(path.append("/cassandra/raw/").append(name));
}

// Output up to 4 MiB: describering of 18 nodes x 16 tokens is ~100 KB (the runner keeps 64 KiB by default).
CommandOutcome run_sim(std::vector<std::string> args) {
  args.insert(args.begin(), cla::test::nodetool_sim_path());
  return run_blocking(cla::run_command(std::move(args), 10s, {}, 4 << 20));
}

// Two DCs (eastus2: 127.0.1.1-9, westus2: 127.0.1.10-18), 3 racks of 3 nodes each, in a temp dir.
struct SimCluster {
  cla::test::TempDir dir;
  std::string file = dir.file("cluster.json");
  std::string log = dir.file("calls.jsonl");

  SimCluster() {
    const auto init = run_sim({"--init-cluster", file, "--dcs", "eastus2,westus2", "--racks", "3",
                               "--nodes-per-rack", "3", "--base-address", "127.0.1.", "--call-log", log});
    BOOST_REQUIRE_MESSAGE(init.ok(), init.summary());
  }
  CommandOutcome call(const std::string& address, const std::string& subcommand) {
    return cla::test::sim(file, address, subcommand);
  }
  cla::ClusterStatus status(const std::string& viewer) {
    const auto outcome = call(viewer, "status");
    BOOST_REQUIRE_MESSAGE(outcome.ok(), outcome.summary());
    auto parsed = cla::parse_nodetool_status(outcome.out);
    BOOST_REQUIRE_MESSAGE(parsed.ok(), (parsed.ok() ? "" : parsed.error().message));
    return parsed.value();
  }
  std::string letters(const std::string& viewer, const std::string& address) {
    for (const auto& row : status(viewer).rows)
      if (row.address == address) return std::string{row.status, row.state};
    return "missing";
  }
  cla::NodeInfo info(const std::string& address) {
    const auto outcome = call(address, "info");
    BOOST_REQUIRE_MESSAGE(outcome.ok(), outcome.summary());
    auto parsed = cla::parse_nodetool_info(outcome.out);
    BOOST_REQUIRE(parsed.ok());
    return parsed.value();
  }
  cla::SimCluster model() {
    auto parsed = cla::parse_sim_cluster(cla::test::read_text(file));
    BOOST_REQUIRE_MESSAGE(parsed.ok(), (parsed.ok() ? "" : parsed.error().message));
    return parsed.value();
  }
  void save(const cla::SimCluster& cluster) {
    cla::test::write_text(file, cla::serialize_sim_cluster(cluster));
  }
  cla::SafetyVerdict gate(const std::string& address) {
    return cla::evaluate_safety(status(address), info(address), 3);
  }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(nodetool_sim_test)

BOOST_AUTO_TEST_CASE(help_teaches_usage_and_the_cluster_file) {
  const auto help = run_sim({"--help"});
  BOOST_TEST(help.ok());
  for (const char* topic : {"--cluster FILE --node ADDRESS", "--init-cluster", "\"faults\"", "\"times\"",
                            "call_log", "drain", "restart"})
    BOOST_TEST(help.out.find(topic) != std::string::npos, topic);
}

BOOST_FIXTURE_TEST_CASE(status_and_info_parse_with_our_parsers, SimCluster) {
  const auto rows = status("127.0.1.1").rows;
  BOOST_TEST(rows.size() == 18u);
  BOOST_TEST(std::all_of(rows.begin(), rows.end(), [](auto& r) { return r.up_normal(); }));
  const auto me = info("127.0.1.5");
  BOOST_TEST(me.datacenter == "eastus2");
  BOOST_TEST(me.rack == "rack2");
  BOOST_TEST(me.gossip_active);
  const auto row = std::find_if(rows.begin(), rows.end(), [](auto& r) { return r.address == "127.0.1.5"; });
  BOOST_REQUIRE(row != rows.end());
  BOOST_TEST(row->host_id == me.host_id);
  BOOST_TEST(gate("127.0.1.5").safe);
}

BOOST_FIXTURE_TEST_CASE(gossip_disabled_node_is_down_to_others_and_up_to_itself, SimCluster) {
  BOOST_TEST(call("127.0.1.4", "disablegossip").ok());
  BOOST_TEST(cla::parse_running(call("127.0.1.4", "statusgossip").out).value() == false);
  BOOST_TEST(letters("127.0.1.1", "127.0.1.4") == "DN");
  BOOST_TEST(letters("127.0.1.12", "127.0.1.4") == "DN");
  BOOST_TEST(letters("127.0.1.4", "127.0.1.4") == "UN");
  BOOST_TEST(!gate("127.0.1.1").safe);  // rack2 of eastus2 is down, rack1 would make two
  BOOST_TEST(gate("127.0.1.5").safe);   // the same rack
  BOOST_TEST(gate("127.0.1.10").safe);  // the other DC
  BOOST_TEST(call("127.0.1.4", "enablegossip").ok());
  BOOST_TEST(letters("127.0.1.1", "127.0.1.4") == "UN");
}

BOOST_FIXTURE_TEST_CASE(drain_is_one_way_until_restart, SimCluster) {
  const auto drained = call("127.0.1.7", "drain");
  BOOST_TEST(drained.ok());
  BOOST_TEST((drained.out.empty() && drained.err.empty()));
  BOOST_TEST(call("127.0.1.7", "drain").ok());
  const auto binary = call("127.0.1.7", "enablebinary");
  BOOST_TEST(binary.exit_code == 1);
  BOOST_TEST(binary.out == reference("nodetool_enablebinary_after_drain.stdout"));
  BOOST_TEST(binary.err.empty());
  BOOST_TEST(cla::is_refused_after_drain(binary));
  const auto gossip = call("127.0.1.7", "enablegossip");
  BOOST_TEST(gossip.exit_code == 1);
  BOOST_TEST(gossip.out == reference("nodetool_enablegossip_after_drain.stdout"));
  const auto stop_gossip = call("127.0.1.7", "disablegossip");
  BOOST_TEST(stop_gossip.exit_code == 1);
  BOOST_TEST(cla::is_refused_after_drain(stop_gossip));
  BOOST_TEST(call("127.0.1.7", "disablebinary").ok());
  const auto drained_info = info("127.0.1.7");
  BOOST_TEST(!drained_info.gossip_active);
  BOOST_TEST(!drained_info.native_transport_active);
  BOOST_TEST(letters("127.0.1.8", "127.0.1.7") == "DN");
  BOOST_TEST(letters("127.0.1.7", "127.0.1.7") == "UN");

  BOOST_TEST(call("127.0.1.7", "restart").ok());
  BOOST_TEST(call("127.0.1.7", "statusgossip").out == "running\n");
  BOOST_TEST(call("127.0.1.7", "statusbinary").out == "running\n");
  BOOST_TEST(call("127.0.1.7", "disablegossip").ok());
  BOOST_TEST(call("127.0.1.7", "enablegossip").ok());
}

BOOST_FIXTURE_TEST_CASE(stopped_node_refuses_jmx, SimCluster) {
  BOOST_TEST(call("127.0.1.2", "stop").ok());
  const auto refused = call("127.0.1.2", "info");
  BOOST_TEST(refused.exit_code == 1);
  BOOST_TEST(refused.out.empty());
  BOOST_TEST(refused.err ==
             "nodetool: Failed to connect to '127.0.1.2:7199' - ConnectException: 'Connection refused'.\n");
  BOOST_TEST(cla::is_connect_failure(refused));
  BOOST_TEST(letters("127.0.1.3", "127.0.1.2") == "DN");
  BOOST_TEST(call("127.0.1.2", "start").ok());
  BOOST_TEST(info("127.0.1.2").native_transport_active);
}

BOOST_FIXTURE_TEST_CASE(faults_apply_then_clear, SimCluster) {
  auto cluster = model();
  auto& node = *find_node(cluster, "127.0.1.3")->node;
  node.faults["drain"] =
      cla::SimFault{2, "", "error: Error occurred during flushing\n-- StackTrace --\n", 0, 1, std::nullopt};
  constexpr auto latency = 300ms;
  node.faults["statusgossip"] =
      cla::SimFault{std::nullopt, "", "", latency.count(), std::nullopt, std::nullopt};
  node.faults["*"] = cla::SimFault{1, "", "", 0, 1, std::nullopt};
  save(cluster);

  const auto first_info = call("127.0.1.3", "info");  // "*" once
  BOOST_TEST(first_info.exit_code == 1);
  BOOST_TEST(call("127.0.1.3", "info").ok());
  const auto failed_drain = call("127.0.1.3", "drain");
  BOOST_TEST(failed_drain.exit_code == 2);
  BOOST_TEST(failed_drain.err.starts_with("error: Error occurred during flushing\n"));
  BOOST_TEST(info("127.0.1.3").gossip_active);  // a failed drain changed nothing
  BOOST_TEST(call("127.0.1.3", "drain").ok());
  BOOST_TEST(!info("127.0.1.3").gossip_active);
  for (int i = 0; i < 2; ++i) {  // latency without times: every call, and the command still runs
    const auto slow = call("127.0.1.3", "statusgossip");
    BOOST_TEST(slow.out == "not running\n");
    BOOST_TEST(slow.duration >= latency);
  }
  const auto left = find_node(cluster = model(), "127.0.1.3")->node->faults;
  BOOST_TEST(left.size() == 1u);
  BOOST_TEST(left.count("statusgossip") == 1u);
}

BOOST_FIXTURE_TEST_CASE(concurrent_calls_lose_no_update, SimCluster) {
  // 20 processes at once: disablebinary on each of the 18 nodes, disablegossip on two. Without the lock a
  // read-modify-write would overwrite another one's change.
  std::vector<std::pair<std::string, std::string>> calls;
  for (int n = 1; n <= 18; ++n) calls.emplace_back("127.0.1." + std::to_string(n), "disablebinary");
  calls.emplace_back("127.0.1.1", "disablegossip");
  calls.emplace_back("127.0.1.18", "disablegossip");
  boost::asio::io_context io;
  std::vector<CommandOutcome> outcomes(calls.size());
  for (std::size_t i = 0; i < calls.size(); ++i) {
    auto argv = cla::test::sim_prefix(file, calls[i].first);
    argv.push_back(calls[i].second);
    boost::asio::co_spawn(
        io, cla::run_command(argv, 20s),
        [&, i](std::exception_ptr, CommandOutcome outcome) { outcomes[i] = std::move(outcome); });
  }
  io.run();
  for (const auto& outcome : outcomes) BOOST_TEST(outcome.ok(), outcome.summary());

  const auto cluster = model();  // still a valid file
  int binary_on = 0, gossip_off = 0;
  for (const auto& dc : cluster.datacenters)
    for (const auto& rack : dc.racks)
      for (const auto& node : rack.nodes) {
        binary_on += node.binary;
        gossip_off += !node.gossip;
      }
  BOOST_TEST(binary_on == 0);
  BOOST_TEST(gossip_off == 2);
  BOOST_TEST(letters("127.0.1.2", "127.0.1.1") == "DN");
  const std::string logged = cla::test::read_text(log);
  BOOST_TEST(std::count(logged.begin(), logged.end(), '\n') == 21);  // the 20 calls and one status
}

BOOST_FIXTURE_TEST_CASE(every_call_is_logged_as_a_json_line, SimCluster) {
  call("127.0.1.1", "statusbinary");
  call("127.0.1.2", "nosuchcommand");
  call("10.9.9.9", "info");
  const std::string override_log = dir.file("override.jsonl");
  run_sim({"--cluster", file, "--node", "127.0.1.3", "--call-log", override_log, "drain"});

  std::vector<boost::json::object> lines;
  std::istringstream in(cla::test::read_text(log));
  for (std::string line; std::getline(in, line);) lines.push_back(boost::json::parse(line).as_object());
  BOOST_REQUIRE(lines.size() == 3u);
  const std::regex iso(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z)");
  for (const auto& line : lines) {
    BOOST_TEST(line.size() == 4u);
    BOOST_TEST(std::regex_match(std::string(line.at("t").as_string()), iso));
  }
  BOOST_TEST(lines[0].at("node").as_string() == "127.0.1.1");
  BOOST_TEST(lines[0].at("subcommand").as_string() == "statusbinary");
  BOOST_TEST(lines[0].at("exit_code").as_int64() == 0);
  BOOST_TEST(lines[1].at("exit_code").as_int64() == 1);
  BOOST_TEST(lines[2].at("node").as_string() == "10.9.9.9");
  BOOST_TEST(lines[2].at("exit_code").as_int64() == 2);
  BOOST_TEST(cla::test::read_text(override_log).find("\"subcommand\":\"drain\"") != std::string::npos);
}

BOOST_FIXTURE_TEST_CASE(usage_and_simulator_errors, SimCluster) {
  const auto unknown = call("127.0.1.1", "nosuchcommand");
  BOOST_TEST(unknown.exit_code == 1);
  BOOST_TEST(unknown.out.starts_with("nodetool: Found unexpected parameters: [nosuchcommand]\n"));
  const auto stranger = call("10.9.9.9", "status");
  BOOST_TEST(stranger.exit_code == 2);
  BOOST_TEST(stranger.err.starts_with("nodetool-sim: no node with address 10.9.9.9"));
  BOOST_TEST(run_sim({"--cluster", dir.file("missing.json"), "--node", "127.0.1.1", "status"}).exit_code ==
             2);
  BOOST_TEST(run_sim({"--node", "127.0.1.1", "status"}).exit_code == 2);
  BOOST_TEST(run_sim({"--colour", "red"}).err.find("unknown option --colour") != std::string::npos);
  cla::test::write_text(dir.file("bad.json"), R"({"datacenters": [], "nodes": 3})");
  const auto bad = run_sim({"--cluster", dir.file("bad.json"), "--node", "127.0.1.1", "status"});
  BOOST_TEST(bad.exit_code == 2);
  BOOST_TEST(bad.err.find("nodes: unknown key") != std::string::npos, bad.err);
}

// describecluster, ring and describering from the binary: read by the agent's parsers, and the views change
// as nodes go down (issue 22). The sim's describering prints the agent's own placement (replica_placement),
// so its agreement with the ring below is a consistency check of the simulator (its ring, keyspaces and
// describering printer agree), not a proof of placement: only the real corpus proves that
// (placement_corpus_test).
BOOST_FIXTURE_TEST_CASE(sim_schema_and_ring_consistent_as_the_agent_reads_them, SimCluster) {
  const auto described = call("127.0.1.1", "describecluster");
  BOOST_REQUIRE_MESSAGE(described.ok(), described.summary());
  auto cluster = cla::parse_nodetool_describecluster(described.out);
  BOOST_REQUIRE_MESSAGE(cluster.ok(), (cluster.ok() ? "" : cluster.error().message));
  BOOST_TEST(cluster->keyspaces->size() == 6u);
  const auto ring_out = call("127.0.1.1", "ring");
  BOOST_REQUIRE_MESSAGE(ring_out.ok(), ring_out.summary());
  const auto ring = cla::parse_nodetool_ring(ring_out.out);
  BOOST_REQUIRE_MESSAGE(ring.ok(), (ring.ok() ? "" : ring.error().message));
  BOOST_TEST(ring->rows.size() == 18u * 16u);
  const auto snapshot = cla::make_replication_snapshot(cluster.value(), ring.value());
  BOOST_REQUIRE(snapshot.ok());
  // Consistency, not proof: the sim places with the agent's code, so this holds whatever Cassandra does.
  for (const auto& ks : *snapshot->cluster.keyspaces) {
    const auto out = run_sim({"--cluster", file, "--node", "127.0.1.4", "describering", ks.name});
    if (ks.replication.kind == cla::StrategyKind::local) {
      BOOST_TEST(out.exit_code == 2, ks.name);
      BOOST_TEST(out.err.starts_with("error: There is no ring for the keyspace: " + ks.name));
      continue;
    }
    BOOST_REQUIRE_MESSAGE(out.ok(), out.summary());
    const auto ranges = cla::parse_nodetool_describering(out.out);
    BOOST_REQUIRE_MESSAGE(ranges.ok(), ks.name << ": " << (ranges.ok() ? "" : ranges.error().message));
    const auto* placement = snapshot->placements.find(ks.replication);
    BOOST_REQUIRE(placement != nullptr);
    BOOST_TEST(ranges->ranges.size() == snapshot->ring.tokens.size());
    for (const auto& range : ranges->ranges) {
      const auto i = static_cast<std::size_t>(
          std::find(snapshot->ring.tokens.begin(), snapshot->ring.tokens.end(), range.end_token) -
          snapshot->ring.tokens.begin());
      BOOST_REQUIRE(i < snapshot->ring.tokens.size());
      std::vector<std::string> computed;
      for (auto e : placement->replicas[i]) computed.push_back(snapshot->ring.endpoints[e].address);
      BOOST_TEST(computed == range.endpoints, ks.name << " " << range);
    }
  }
  // The verdict over the sim: system_auth (RF 1) and system_traces (RF 2) unprotectable at LOCAL_QUORUM.
  const auto verdict = cla::evaluate_replication(*snapshot, status("127.0.1.1"), {"127.0.1.1", "eastus2"},
                                                 cla::Consistency::local_quorum);
  BOOST_TEST(verdict.safe, verdict);
  BOOST_TEST(verdict.unprotectable.size() == 3u, verdict);  // + system_distributed: SimpleStrategy over 2 DCs
  BOOST_TEST(call("127.0.1.5", "disablegossip").ok());
  auto down = cla::parse_nodetool_describecluster(call("127.0.1.1", "describecluster").out);
  BOOST_REQUIRE(down.ok());
  BOOST_TEST(down->schema_versions.at("UNREACHABLE") == std::vector<std::string>{"127.0.1.5"});
  BOOST_TEST(down->counts->unreachable == 1);
  const auto down_ring = cla::parse_nodetool_ring(call("127.0.1.1", "ring").out);
  BOOST_REQUIRE(down_ring.ok());
  for (const auto& row : down_ring->rows)
    BOOST_TEST(row.status == (row.address == "127.0.1.5" ? "Down" : "Up"));
  const auto missing = call("127.0.1.1", "describering");
  BOOST_TEST(missing.exit_code == 1);
  BOOST_TEST(missing.out.starts_with("nodetool: Required parameters are missing: keyspace"));
}

BOOST_AUTO_TEST_CASE(init_cluster_keyspace_options) {
  cla::test::TempDir dir;
  const std::string file = dir.file("cluster.json");
  const auto init = run_sim({"--init-cluster", file, "--racks", "3", "--nodes-per-rack", "1", "--tokens", "1",
                             "--no-default-keyspaces", "--keyspace", "app:nts:dc1=2", "--keyspace",
                             "system_auth:simple:3"});
  BOOST_REQUIRE_MESSAGE(init.ok(), init.summary());
  const auto cluster =
      cla::parse_nodetool_describecluster(cla::test::sim(file, "127.0.1.1", "describecluster").out);
  BOOST_REQUIRE(cluster.ok());
  std::vector<std::string> names;
  for (const auto& ks : *cluster->keyspaces) names.push_back(ks.name);
  BOOST_TEST(names == (std::vector<std::string>{"app", "system_auth", "system_schema", "system"}),
             boost::test_tools::per_element());
  BOOST_TEST(cluster->keyspaces->at(1).replication.replication_factor.all == 3);
  const auto bad = run_sim({"--init-cluster", dir.file("bad.json"), "--keyspace", "app:nts"});
  BOOST_TEST(bad.exit_code == 2);
  BOOST_TEST(bad.err.find("--keyspace 'app:nts'") != std::string::npos, bad.err);
}

BOOST_AUTO_TEST_SUITE_END()
