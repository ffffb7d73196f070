// One gate check's answer: the replication verdict over a refresh (SPEC 3.4's exact fields for the core), the
// rack count without one (gate_fallback), admission with drained nodes (SPEC 9), and when a refresh is due.
#include "cassandra/gate/replication_gate.hpp"

#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>

#include "replication_fixtures.hpp"

namespace {

using namespace std::chrono_literals;
using cla::Consistency;

// Three racks of one node, one token each: 10.0.0.1-3 in rack1-3 (host ids h1-h3); this node is 10.0.0.3.
const auto kThree = cla::test::even_ring(3, 3);
const std::vector<std::pair<std::string, std::string>> kKeyspaces{
    {"app", "NetworkTopologyStrategy {dc1=3}"}, {"system_auth", "SimpleStrategy {replication_factor=1}"}};
const cla::NodeInfo kSelf{"h3", "dc1", "rack3", true, true};

cla::ClusterStatus status(const std::map<std::string, std::string>& not_un = {}) {
  auto s = cla::test::status_of(kThree, not_un);
  for (std::size_t i = 0; i < s.rows.size(); ++i) s.rows[i].host_id = "h" + std::to_string(i + 1);
  return s;
}

cla::GateDecision decide(const cla::ClusterStatus& st, const cla::ReplicationSnapshot* snapshot,
                         Consistency cl, std::vector<std::string> drained = {}) {
  return cla::decide_gate({st, kSelf, "10.0.0.3", snapshot, cl, 3, std::move(drained)});
}

}  // namespace

BOOST_AUTO_TEST_SUITE(replication_gate_test)

BOOST_AUTO_TEST_CASE(a_short_range_gives_the_exact_fields_and_its_racks) {
  const auto snapshot = cla::test::snapshot(kThree, kKeyspaces);
  const auto st = status({{"10.0.0.2", "DN"}});
  const auto d = decide(st, &snapshot, Consistency::local_quorum);
  BOOST_TEST(!d.result.safe);
  BOOST_REQUIRE(d.verdict);
  const auto& f = d.result.fields;
  BOOST_TEST(f.at("keyspace") == "app");
  BOOST_TEST(f.at("needed") == 2);
  BOOST_TEST(f.at("available") == 1);
  BOOST_TEST(f.at("down") == boost::json::array{"10.0.0.2"});
  BOOST_TEST(f.contains("start_token"));
  BOOST_TEST(f.contains("end_token"));
  BOOST_TEST(d.result.down_racks == std::vector<std::string>{"rack2"}, boost::test_tools::per_element());
  BOOST_TEST(d.result.reason.find("keyspace app range") != std::string::npos, d.result.reason);
  // system_auth (RF 1) is left out: it alone would block every drain.
  BOOST_TEST(d.verdict->unprotectable.size() == 1u);

  const auto one = decide(st, &snapshot, Consistency::local_one);
  BOOST_TEST(one.result.safe, one.result.reason);
  BOOST_TEST(one.result.fields.empty());
}

BOOST_AUTO_TEST_CASE(schema_disagreement_is_named_by_its_reason) {
  auto snapshot = cla::test::snapshot(kThree, kKeyspaces);
  snapshot.cluster.schema_versions = {{"v1", {"10.0.0.1", "10.0.0.3"}}, {"v2", {"10.0.0.2"}}};
  const auto d = decide(status(), &snapshot, Consistency::local_one);
  BOOST_TEST(!d.result.safe);
  BOOST_TEST(d.result.fields == (boost::json::object{{"reason", "schema_disagreement"}}));
}

BOOST_AUTO_TEST_CASE(without_a_snapshot_the_rack_count_decides) {
  const auto down = decide(status({{"10.0.0.2", "DN"}}), nullptr, Consistency::local_one);
  BOOST_TEST(!down.result.safe, "RF 3 allows one rack out, whatever the level");
  BOOST_TEST(!down.verdict);
  BOOST_TEST(down.result.fields.empty());
  BOOST_TEST(down.result.down_racks == std::vector<std::string>{"rack2"}, boost::test_tools::per_element());
  BOOST_TEST(down.result.reason.rfind("rack count (gate_fallback)", 0) == 0u, down.result.reason);
  BOOST_TEST(decide(status(), nullptr, Consistency::local_quorum).result.safe);
}

BOOST_AUTO_TEST_CASE(drained_nodes_count_as_unavailable_though_status_shows_them_up) {
  const auto snapshot = cla::test::snapshot(kThree, kKeyspaces);
  BOOST_TEST(decide(status(), &snapshot, Consistency::local_quorum).result.safe);
  const auto admitted = decide(status(), &snapshot, Consistency::local_quorum, {"10.0.0.1"});
  BOOST_TEST(!admitted.result.safe);
  BOOST_TEST(admitted.result.fields.at("down") == boost::json::array{"10.0.0.1"});
  BOOST_TEST(decide(status(), &snapshot, Consistency::local_one, {"10.0.0.1"}).result.safe);
  BOOST_TEST(decide(status(), &snapshot, Consistency::local_quorum, {"10.0.0.3"}).result.safe,
             "this node among the drained changes nothing");
}

// Without a schema the rack count decides, and it counts the unavailable nodes too (issue 40): 10.0.0.1
// frozen by a Started event still shows UN, yet its rack is out.
BOOST_AUTO_TEST_CASE(without_a_snapshot_the_rack_count_counts_unavailable_nodes_as_down) {
  BOOST_TEST(decide(status(), nullptr, Consistency::local_quorum).result.safe);
  const auto d = decide(status(), nullptr, Consistency::local_quorum, {"10.0.0.1"});
  BOOST_TEST(!d.result.safe, d.result.reason);
  BOOST_TEST(d.result.down_racks == std::vector<std::string>{"rack1"}, boost::test_tools::per_element());
  BOOST_TEST(decide(status(), nullptr, Consistency::local_quorum, {"10.0.0.3"}).result.safe,
             "this node among them changes nothing");
}

BOOST_AUTO_TEST_CASE(address_of_a_host_id_and_when_a_refresh_is_due) {
  BOOST_TEST(cla::address_of_host_id(status(), "H2") == "10.0.0.2");
  BOOST_TEST(cla::address_of_host_id(status(), "h9").empty());
  BOOST_TEST(cla::address_of_host_id(status(), "").empty());
  const auto t = std::chrono::steady_clock::time_point{} + 1h;
  BOOST_TEST(cla::schema_refresh_due(std::nullopt, t, 300s));
  BOOST_TEST(!cla::schema_refresh_due(t - 299s, t, 300s));
  BOOST_TEST(cla::schema_refresh_due(t - 300s, t, 300s));
}

BOOST_AUTO_TEST_SUITE_END()
