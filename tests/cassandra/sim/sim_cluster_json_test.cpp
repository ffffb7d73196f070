// nodetool-sim cluster files: generated clusters, round trips, defaults and errors that name the key path.
#include "cassandra/sim/sim_cluster_json.hpp"

#include <boost/test/unit_test.hpp>
#include <set>

BOOST_AUTO_TEST_SUITE(sim_cluster_json_test)

namespace {

std::string error_of(const std::string& text) {
  const auto parsed = cla::parse_sim_cluster(text);
  BOOST_REQUIRE_MESSAGE(!parsed.ok(), "accepted: " + text);
  return parsed.error().message;
}

std::string one_node(const std::string& node_fields) {
  return R"({"datacenters": [{"name": "dc1", "racks": [{"name": "r1", "nodes": [{"address": "10.0.0.1"}, {)" +
         node_fields + "}]}]}]}";
}

}  // namespace

BOOST_AUTO_TEST_CASE(init_cluster_layout) {
  const auto cluster =
      cla::make_sim_cluster(cla::SimInitOptions{{"dc1", "dc2"}, 3, 3, "127.0.1.", 16, "calls.jsonl", {}}, 7);
  BOOST_REQUIRE(cluster.datacenters.size() == 2u);
  BOOST_TEST(cluster.datacenters[1].name == "dc2");
  BOOST_TEST(cluster.datacenters[1].racks[2].name == "rack3");
  BOOST_TEST(cluster.datacenters[0].racks[0].nodes[0].address == "127.0.1.1");
  BOOST_TEST(cluster.datacenters[1].racks[2].nodes[2].address == "127.0.1.18");
  BOOST_TEST(cluster.call_log == "calls.jsonl");
  std::set<std::string> host_ids;
  for (const auto& dc : cluster.datacenters)
    for (const auto& rack : dc.racks)
      for (const auto& node : rack.nodes) {
        host_ids.insert(node.host_id);
        BOOST_TEST(node.host_id.size() == 36u);
        BOOST_TEST(node.generation == 7);
        BOOST_TEST((node.running && node.gossip && node.binary && !node.drained));
      }
  BOOST_TEST(host_ids.size() == 18u);
  BOOST_TEST(cla::default_host_id("127.0.1.1") ==
             cluster.datacenters[0].racks[0].nodes[0].host_id);  // deterministic
}

// bench-fleet's case study: 3 DCs of 150 nodes. A 3-octet base counts on into the next /24 past .254 (never
// .0 or .255); the first 254 nodes keep base + k, as every cluster of up to 254 nodes had before.
BOOST_AUTO_TEST_CASE(init_cluster_past_254_nodes) {
  const auto cluster =
      cla::make_sim_cluster(cla::SimInitOptions{{"dc1", "dc2", "dc3"}, 3, 50, "127.0.1.", 16, "", {}}, 7);
  std::vector<std::string> addresses;
  for (const auto& dc : cluster.datacenters)
    for (const auto& rack : dc.racks)
      for (const auto& node : rack.nodes) addresses.push_back(node.address);
  BOOST_REQUIRE(addresses.size() == 450u);
  for (int k = 1; k <= 254; ++k) BOOST_TEST(addresses[k - 1] == "127.0.1." + std::to_string(k));
  BOOST_TEST(addresses[254] == "127.0.2.1");
  BOOST_TEST(addresses[449] == "127.0.2.196");
  BOOST_TEST(cluster.datacenters[2].racks[0].nodes[0].address == "127.0.2.47");  // node 301
  BOOST_TEST(std::set<std::string>(addresses.begin(), addresses.end()).size() == 450u);
  for (const auto& address : addresses) {
    const auto host = address.substr(address.rfind('.') + 1);
    BOOST_TEST((host != "0" && host != "255"), address);
  }

  BOOST_TEST(cla::sim_node_address("10.0.255.", 255).value_or("") == "10.1.0.1");  // carries on
  BOOST_TEST(cla::sim_node_address("10.0.255.", 509).value_or("") == "10.1.1.1");
  BOOST_TEST(!cla::sim_node_address("255.255.255.", 255).has_value());  // runs out
  BOOST_TEST(cla::sim_node_address("255.255.255.", 254).value_or("") == "255.255.255.254");
  // Any other base: base + k, as before.
  BOOST_TEST(cla::sim_node_address("node-", 300).value_or("") == "node-300");
  BOOST_TEST(cla::sim_node_address("127.0.", 300).value_or("") == "127.0.300");
  BOOST_TEST(cla::sim_node_address("127.0.1.1", 3).value_or("") == "127.0.1.13");
  BOOST_TEST(cla::sim_node_address("127.0.256.", 300).value_or("") == "127.0.256.300");
  BOOST_TEST(cla::sim_node_address("127.0.01.", 300).value_or("") == "127.0.01.300");
}

BOOST_AUTO_TEST_CASE(round_trip) {
  auto cluster = cla::make_sim_cluster(cla::SimInitOptions{}, 1700000000);
  auto& node = cluster.datacenters[0].racks[1].nodes[0];
  node.drained = true;
  node.ring_state = 'L';
  node.faults["*"] = cla::SimFault{2, "out\n", "err \"quoted\"\n", 5, 3, std::nullopt};
  node.faults["drain"] = cla::SimFault{std::nullopt, "", "", 100, std::nullopt, 9};
  cluster.ownership_unavailable = true;
  const std::string text = cla::serialize_sim_cluster(cluster);
  const auto parsed = cla::parse_sim_cluster(text);
  BOOST_REQUIRE_MESSAGE(parsed.ok(), (parsed.ok() ? "" : parsed.error().message));
  BOOST_TEST(cla::serialize_sim_cluster(*parsed) == text);
  const auto& back = parsed->datacenters[0].racks[1].nodes[0];
  BOOST_TEST(back.drained);
  BOOST_TEST(back.ring_state == 'L');
  BOOST_TEST(back.faults.at("*").stderr_text == "err \"quoted\"\n");
  BOOST_TEST(back.faults.at("*").times.value_or(0) == 3);
  BOOST_TEST(!back.faults.at("drain").exit_code.has_value());
  BOOST_TEST(!back.faults.at("drain").times.has_value());
}

BOOST_AUTO_TEST_CASE(minimal_node_gets_defaults) {
  const auto parsed = cla::parse_sim_cluster(one_node(R"("address": "10.0.0.2", "gossip": false)"));
  BOOST_REQUIRE(parsed.ok());
  const auto& node = parsed->datacenters[0].racks[0].nodes[1];
  BOOST_TEST(node.host_id == cla::default_host_id("10.0.0.2"));
  BOOST_TEST(node.load == cla::default_load("10.0.0.2"));
  BOOST_TEST(node.tokens == 16);
  BOOST_TEST(node.running);
  BOOST_TEST(!node.gossip);
  BOOST_TEST(node.ring_state == 'N');
  BOOST_TEST(parsed->replication_factor == 3);
}

BOOST_AUTO_TEST_CASE(errors_name_the_key_path) {
  BOOST_TEST(error_of("{").find("invalid JSON") != std::string::npos);
  BOOST_TEST(error_of("{}") == "datacenters: missing");
  BOOST_TEST(error_of(R"({"datacenters": [], "color": 1})") == "color: unknown key");
  BOOST_TEST(error_of(one_node(R"("address": "10.0.0.2", "gossp": true)")) ==
             "datacenters[0].racks[0].nodes[1].gossp: unknown key");
  BOOST_TEST(error_of(one_node(R"("address": "10.0.0.2", "gossip": "yes")")) ==
             "datacenters[0].racks[0].nodes[1].gossip: expected true or false");
  BOOST_TEST(error_of(one_node(R"("address": "10.0.0.1")")) ==
             "datacenters[0].racks[0].nodes[1].address: duplicate address 10.0.0.1");
  BOOST_TEST(error_of(one_node(R"("host_id": "x")")) == "datacenters[0].racks[0].nodes[1].address: missing");
  BOOST_TEST(error_of(one_node(R"("address": "10.0.0.2", "ring_state": "Q")")).find("ring_state") !=
             std::string::npos);
  BOOST_TEST(error_of(one_node(R"("address": "10.0.0.2", "faults": {"drain": {"exit_code": 256}})")) ==
             "datacenters[0].racks[0].nodes[1].faults.drain.exit_code: expected an integer from 0 to 255");
  BOOST_TEST(error_of(one_node(R"("address": "10.0.0.2", "faults": {"drain": {"signal": 0}})")) ==
             "datacenters[0].racks[0].nodes[1].faults.drain.signal: expected an integer from 1 to 31");
  BOOST_TEST(
      error_of(one_node(R"("address": "10.0.0.2", "faults": {"drain": {"times": 0}})")).find("times") !=
      std::string::npos);
  BOOST_TEST(error_of(one_node(R"("address": "10.0.0.2", "faults": {"drain": {"exitcode": 1}})")) ==
             "datacenters[0].racks[0].nodes[1].faults.drain.exitcode: unknown key");
  BOOST_TEST(error_of(R"({"datacenters": [{"name": "dc1", "racks": {}}]})") ==
             "datacenters[0].racks: expected an array");
}

BOOST_AUTO_TEST_SUITE_END()
