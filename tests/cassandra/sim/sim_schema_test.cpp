// nodetool-sim's schema and ring: generated tokens (ccm's with one token, racks interleaved), what
// describecluster, ring and describering report, read back by the agent's parsers and compared with the
// placement; the real 3-node cluster's ring and replicas reproduced; keyspace options and cluster-file
// fields.
#include "cassandra/sim/sim_schema.hpp"

#include <boost/test/unit_test.hpp>
#include <set>

#include "../cassandra_test_data.hpp"
#include "cassandra/gate/replication_verdict.hpp"
#include "cassandra/nodetool_output/describering_parser.hpp"
#include "cassandra/nodetool_output/status_parser.hpp"
#include "cassandra/sim/sim_cluster_json.hpp"
#include "cassandra/sim/sim_schema_output.hpp"

namespace {

cla::SimCluster cluster_of(std::vector<std::string> dcs, int racks, int per_rack, int tokens,
                           std::string base = "127.0.1.") {
  cla::SimInitOptions init;
  init.datacenters = std::move(dcs);
  init.racks = racks;
  init.nodes_per_rack = per_rack;
  init.tokens = tokens;
  init.base_address = std::move(base);
  return cla::make_sim_cluster(init, 1700000000);
}

cla::SimNode& node(cla::SimCluster& c, const std::string& address) {
  return *cla::find_node(c, address)->node;
}

// The snapshot the agent would build from the sim's printed describecluster and ring.
cla::ReplicationSnapshot snapshot_from_output(const cla::SimCluster& c, const std::string& caller) {
  auto d =
      cla::parse_nodetool_describecluster(cla::format_describecluster(cla::sim_describecluster(c, caller)));
  BOOST_REQUIRE_MESSAGE(d.ok(), (d.ok() ? "" : d.error().message));
  auto r = cla::parse_nodetool_ring(cla::format_ring(cla::sim_ring(c, caller)));
  BOOST_REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message));
  auto s = cla::make_replication_snapshot(d.value(), r.value());
  BOOST_REQUIRE_MESSAGE(s.ok(), (s.ok() ? "" : s.error().message));
  return s.value();
}

// Every placeable keyspace: the sim's printed describering equals the placement of its printed ring.
void describering_matches_placement(const cla::SimCluster& c) {
  const auto s = snapshot_from_output(c, c.datacenters[0].racks[0].nodes[0].address);
  for (const auto& ks : *s.cluster.keyspaces) {
    const auto described = cla::sim_describering(c, "x", ks.name);
    if (!cla::is_placeable(ks.replication)) {
      BOOST_TEST(!described.has_value(), ks.name);
      continue;
    }
    BOOST_REQUIRE(described.has_value());
    const auto parsed = cla::parse_nodetool_describering(cla::format_describering(*described));
    BOOST_REQUIRE(parsed.ok());
    BOOST_TEST(parsed->ranges.size() == s.ring.tokens.size());
    const auto* placement = s.placements.find(ks.replication);
    BOOST_REQUIRE(placement != nullptr);
    for (const auto& range : parsed->ranges) {
      const auto i = static_cast<std::size_t>(
          std::find(s.ring.tokens.begin(), s.ring.tokens.end(), range.end_token) - s.ring.tokens.begin());
      BOOST_REQUIRE(i < s.ring.tokens.size());
      BOOST_TEST(s.ring.range_start(i) == range.start_token);
      std::vector<std::string> expected;
      for (auto e : placement->replicas[i]) expected.push_back(s.ring.endpoints[e].address);
      BOOST_TEST(range.endpoints == expected, ks.name << " " << range);
    }
  }
}

}  // namespace

BOOST_AUTO_TEST_SUITE(sim_schema_test)

BOOST_AUTO_TEST_CASE(one_token_is_ccms_ring_with_racks_interleaved) {
  const auto c = cluster_of({"dc1"}, 3, 1, 1, "127.0.0.");
  const auto tokens = cla::sim_tokens(c);
  BOOST_TEST(tokens.at("127.0.0.1") == std::vector<std::string>{"-9223372036854775808"});
  BOOST_TEST(tokens.at("127.0.0.2") == std::vector<std::string>{"-3074457345618258603"});
  BOOST_TEST(tokens.at("127.0.0.3") == std::vector<std::string>{"3074457345618258602"});
  // 3 racks of 3: consecutive tokens in distinct racks, so SimpleStrategy RF 3 is rack-safe too.
  for (int t : {1, 16}) {
    const auto s = snapshot_from_output(cluster_of({"dc1"}, 3, 3, t), "127.0.1.1");
    BOOST_TEST(s.ring.tokens.size() == static_cast<std::size_t>(9 * t));
    for (std::size_t i = 0; i < s.ring.tokens.size(); ++i)
      BOOST_TEST(s.ring.endpoints[s.ring.owners[i]].rack !=
                 s.ring.endpoints[s.ring.owners[(i + 1) % s.ring.tokens.size()]].rack);
  }
}

BOOST_AUTO_TEST_CASE(the_real_three_node_ring_and_replicas) {
  // scripts/cassandra-cluster.sh's 3 nodes with one token: the same tokens and the same replicas as
  // Cassandra's.
  auto c = cluster_of({"dc1"}, 3, 1, 1, "127.0.0.");
  const std::string shape = "real-5.0/placement/3n_1t/";
  const auto real =
      cla::parse_nodetool_describecluster(cla::test::cassandra_data(shape + "describecluster.stdout"));
  BOOST_REQUIRE(real.ok());
  c.keyspaces.clear();
  for (const auto& ks : *real->keyspaces) c.keyspaces.push_back(cla::SimKeyspace{ks.name, ks.replication});
  const auto real_ring = cla::parse_nodetool_ring(cla::test::cassandra_data(shape + "ring.stdout"));
  BOOST_REQUIRE(real_ring.ok());
  const auto sim_ring = cla::sim_ring(c, "127.0.0.1");
  BOOST_REQUIRE(sim_ring.rows.size() == real_ring->rows.size());
  for (std::size_t i = 0; i < sim_ring.rows.size(); ++i) {
    BOOST_TEST(sim_ring.rows[i].address == real_ring->rows[i].address);
    BOOST_TEST(sim_ring.rows[i].rack == real_ring->rows[i].rack);
    BOOST_TEST(sim_ring.rows[i].token == real_ring->rows[i].token);
  }
  BOOST_TEST(sim_ring.notes == real_ring->notes, boost::test_tools::per_element());
  for (const auto& ks : c.keyspaces) {
    const auto sim = cla::sim_describering(c, "127.0.0.1", ks.name);
    if (!sim) continue;
    const auto real_ranges = cla::parse_nodetool_describering(
        cla::test::cassandra_data(shape + "describering_" + ks.name + ".stdout"));
    BOOST_REQUIRE(real_ranges.ok());
    for (const auto& range : real_ranges->ranges) {
      const auto same = std::find_if(sim->ranges.begin(), sim->ranges.end(),
                                     [&](const auto& r) { return r.end_token == range.end_token; });
      BOOST_REQUIRE(same != sim->ranges.end());
      BOOST_TEST(*same == range, ks.name);
    }
  }
}

BOOST_AUTO_TEST_CASE(describering_is_the_placement_of_the_printed_ring) {
  describering_matches_placement(cluster_of({"dc1"}, 3, 3, 16));
  describering_matches_placement(cluster_of({"dc1", "dc2"}, 3, 2, 4));
  auto odd = cluster_of({"dc1"}, 2, 3, 1);
  odd.keyspaces.push_back({"wide", cla::parse_replication("NetworkTopologyStrategy {dc1=5}").value()});
  odd.keyspaces.push_back({"all", cla::parse_replication("EverywhereStrategy {}").value()});
  describering_matches_placement(odd);
}

BOOST_AUTO_TEST_CASE(describecluster_reports_the_views_and_the_ring_changes) {
  auto c = cluster_of({"dc1"}, 3, 1, 16);
  auto d = cla::sim_describecluster(c, "127.0.1.1");
  BOOST_TEST(d.reachable_schema_versions().size() == 1u);
  BOOST_TEST((d.counts == cla::NodeCounts{3, 0, 0, 0, 0}));
  BOOST_TEST(d.keyspaces->size() == 6u);
  BOOST_TEST(d.notes.empty());  // one non-system keyspace (lifecycle)
  node(c, "127.0.1.2").gossip = false;
  node(c, "127.0.1.3").ring_state = 'L';
  d = cla::sim_describecluster(c, "127.0.1.1");
  BOOST_TEST(d.schema_versions.at("UNREACHABLE") == std::vector<std::string>{"127.0.1.2"});
  BOOST_TEST((d.counts == cla::NodeCounts{2, 0, 0, 1, 1}));
  BOOST_TEST(d.datacenters.at(0).down == 1);
  // The node with gossip off sees itself up.
  BOOST_TEST(cla::sim_describecluster(c, "127.0.1.2").counts->live == 3);
  node(c, "127.0.1.3").schema_version = "5a3d0a60-0000-3000-8000-000000000000";
  BOOST_TEST(cla::sim_describecluster(c, "127.0.1.1").reachable_schema_versions().size() == 2u);
  c.keyspaces.push_back({"other", cla::parse_replication("SimpleStrategy {replication_factor=1}").value()});
  BOOST_TEST(cla::sim_describecluster(c, "127.0.1.1").notes.size() == 1u);
}

BOOST_AUTO_TEST_CASE(ring_shows_ownership_down_nodes_and_joining_tokens) {
  auto c = cluster_of({"dc1"}, 3, 1, 4);
  auto ring = cla::sim_ring(c, "127.0.1.1");
  BOOST_TEST(ring.vnodes_warning);
  BOOST_TEST(ring.notes.empty());
  for (const auto& row : ring.rows) BOOST_TEST(row.owns == "100.00%");  // lifecycle: dc1 3 on 3 nodes
  node(c, "127.0.1.3").running = false;
  node(c, "127.0.1.2").ring_state = 'J';
  ring = cla::sim_ring(c, "127.0.1.1");
  for (const auto& row : ring.rows) {
    BOOST_TEST(row.status == (row.address == "127.0.1.3" ? "Down" : "Up"));
    BOOST_TEST(row.state == (row.address == "127.0.1.2" ? "Joining" : "Normal"));
  }
  c.keyspaces.push_back({"other", cla::parse_replication("SimpleStrategy {replication_factor=1}").value()});
  ring = cla::sim_ring(c, "127.0.1.1");
  BOOST_TEST(ring.notes.size() == 1u);
  BOOST_TEST(ring.rows.front().owns == "?");
  BOOST_TEST(!cla::sim_describering(c, "127.0.1.1", "system").has_value());
  BOOST_TEST(!cla::sim_describering(c, "127.0.1.1", "nosuch").has_value());
}

BOOST_AUTO_TEST_CASE(keyspace_options) {
  const auto nts = cla::parse_sim_keyspace_option("geo:nts:dc1=3,dc2=2/1");
  BOOST_REQUIRE(nts.ok());
  BOOST_TEST(nts->name == "geo");
  BOOST_TEST(nts->replication.dc_factors.at("dc2").transient_replicas == 1);
  BOOST_TEST(cla::parse_sim_keyspace_option("system_auth:simple:3")->replication.replication_factor.all == 3);
  BOOST_TEST((cla::parse_sim_keyspace_option("s:local")->replication.kind == cla::StrategyKind::local));
  BOOST_TEST(
      (cla::parse_sim_keyspace_option("e:everywhere")->replication.kind == cla::StrategyKind::everywhere));
  for (const char* bad :
       {"", "noname", ":simple:3", "x:simple", "x:simple:three", "x:nts:dc1", "x:local:3", "x:lol:1"})
    BOOST_TEST(!cla::parse_sim_keyspace_option(bad).ok(), bad);
}

BOOST_AUTO_TEST_CASE(cluster_file_keyspaces_and_tokens) {
  auto c = cluster_of({"dc1"}, 1, 2, 2);
  node(c, "127.0.1.1").ring_tokens = {"-5", "10"};
  node(c, "127.0.1.1").schema_version = "v-own";
  c.keyspaces.push_back({"t", cla::parse_replication("NetworkTopologyStrategy {dc1=3/1}").value()});
  const std::string text = cla::serialize_sim_cluster(c);
  const auto back = cla::parse_sim_cluster(text);
  BOOST_REQUIRE_MESSAGE(back.ok(), (back.ok() ? "" : back.error().message));
  BOOST_TEST(cla::serialize_sim_cluster(*back) == text);
  BOOST_TEST(back->keyspaces.back().replication == c.keyspaces.back().replication);
  BOOST_TEST(cla::sim_tokens(*back).at("127.0.1.1") == (std::vector<std::string>{"-5", "10"}));
  // A file without keyspaces gets the defaults; tokens must be 64-bit integers and agree with "tokens".
  const auto minimal = cla::parse_sim_cluster(
      R"({"datacenters": [{"name": "dc1", "racks": [{"name": "r1", "nodes": [{"address": "10.0.0.1"}]}]}]})");
  BOOST_REQUIRE(minimal.ok());
  BOOST_TEST(minimal->keyspaces.size() == cla::default_sim_keyspaces().size());
  for (const char* node_fields : {R"("ring_tokens": ["x"])", R"("ring_tokens": ["99999999999999999999"])",
                                  R"("ring_tokens": [])", R"("tokens": 2, "ring_tokens": ["1"])"}) {
    std::string text =
        R"({"datacenters": [{"name": "dc1", "racks": [{"name": "r1", "nodes": [{"address": "10.0.0.1", )";
    text.append(node_fields).append("}]}]}]}");  // appended piecewise (GCC 12's -Warray-bounds)
    const auto parsed = cla::parse_sim_cluster(text);
    BOOST_TEST(!parsed.ok(), node_fields);
  }
  const auto dup = cla::parse_sim_cluster(
      R"({"keyspaces": [{"name": "a", "class": "LocalStrategy", "replication": {}}, {"name": "a", "class": "LocalStrategy", "replication": {}}], "datacenters": []})");
  BOOST_TEST(!dup.ok());
}

BOOST_AUTO_TEST_SUITE_END()
