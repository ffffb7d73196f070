// evaluate_safety: table-driven clusters (RF 1/3/5, two DCs, fewer racks than RF, fail-closed cases).
#include "cassandra/gate/safety_gate.hpp"

#include <boost/test/unit_test.hpp>

#include "../cassandra_test_data.hpp"

namespace {

// One status row: datacenter, rack, the two status letters, host id (address derived from the host id).
struct Node {
  std::string dc, rack, letters, host_id;
};

cla::ClusterStatus cluster(const std::vector<Node>& nodes) {
  cla::ClusterStatus status;
  for (const auto& n : nodes)
    status.rows.push_back(
        cla::StatusRow{n.dc, n.letters[0], n.letters[1], "addr-" + n.host_id, "1 TiB", n.host_id, n.rack});
  return status;
}

// dc1 with `racks` racks x `per_rack` nodes, all UN, host ids "<rack>-<n>"; dc2 likewise, host ids
// "x<rack>-<n>".
std::vector<Node> healthy(int racks, int per_rack) {
  std::vector<Node> nodes;
  for (const char* dc : {"dc1", "dc2"})
    for (int r = 1; r <= racks; ++r)
      for (int n = 1; n <= per_rack; ++n)
        nodes.push_back(
            {dc, "rack" + std::to_string(r), "UN",
             std::string(dc == std::string("dc2") ? "x" : "") + std::to_string(r) + "-" + std::to_string(n)});
  return nodes;
}

std::vector<Node> with(std::vector<Node> nodes, const std::string& host_id, const std::string& letters) {
  for (auto& n : nodes)
    if (n.host_id == host_id) n.letters = letters;
  return nodes;
}

cla::NodeInfo self(const std::string& host_id, const std::string& rack, const std::string& dc = "dc1") {
  return cla::NodeInfo{host_id, dc, rack, true, true};
}

struct Case {
  const char* name;
  std::vector<Node> nodes;
  cla::NodeInfo me;
  int rf;
  bool safe;
  int would_be_out;
  std::vector<std::string> down_racks;
  bool counted_nodes;
};

}  // namespace

BOOST_AUTO_TEST_SUITE(safety_gate_test)

BOOST_AUTO_TEST_CASE(table) {
  const auto three = healthy(3, 3);
  const auto five = healthy(5, 2);
  const std::vector<Case> cases{
      {"rf3 all up", three, self("1-1", "rack1"), 3, true, 1, {}, false},
      {"rf3 other rack DN", with(three, "2-2", "DN"), self("1-1", "rack1"), 3, false, 2, {"rack2"}, false},
      {"rf3 own rack DN counted once",
       with(three, "1-3", "DN"),
       self("1-1", "rack1"),
       3,
       true,
       1,
       {"rack1"},
       false},
      {"rf3 self shown down is still self",
       with(three, "1-1", "DN"),
       self("1-1", "rack1"),
       3,
       true,
       1,
       {},
       false},
      {"rf3 other DC down does not matter",
       with(with(three, "x2-1", "DN"), "x3-1", "DN"),
       self("1-1", "rack1"),
       3,
       true,
       1,
       {},
       false},
      {"rf3 UL counts as down",
       with(three, "3-1", "UL"),
       self("1-1", "rack1"),
       3,
       false,
       2,
       {"rack3"},
       false},
      {"rf3 UJ counts as down",
       with(three, "3-1", "UJ"),
       self("1-1", "rack1"),
       3,
       false,
       2,
       {"rack3"},
       false},
      {"rf3 UM counts as down",
       with(three, "3-1", "UM"),
       self("1-1", "rack1"),
       3,
       false,
       2,
       {"rack3"},
       false},
      {"rf3 ?N counts as down",
       with(three, "2-1", "?N"),
       self("1-1", "rack1"),
       3,
       false,
       2,
       {"rack2"},
       false},
      {"rf3 two other racks down",
       with(with(three, "2-1", "DN"), "3-3", "DN"),
       self("1-1", "rack1"),
       3,
       false,
       3,
       {"rack2", "rack3"},
       false},
      {"rf3 many down in one other rack",
       with(with(three, "2-1", "DN"), "2-2", "DN"),
       self("1-1", "rack1"),
       3,
       false,
       2,
       {"rack2"},
       false},
      {"rf5 one other rack down",
       with(five, "2-1", "DN"),
       self("1-1", "rack1"),
       5,
       true,
       2,
       {"rack2"},
       false},
      {"rf5 two other racks down",
       with(with(five, "2-1", "DN"), "4-2", "DL"),
       self("1-1", "rack1"),
       5,
       false,
       3,
       {"rack2", "rack4"},
       false},
      {"rf5 own rack and one other down",
       with(with(five, "1-2", "DN"), "5-1", "DN"),
       self("1-1", "rack1"),
       5,
       true,
       2,
       {"rack1", "rack5"},
       false},
      {"rf1 never safe", healthy(3, 1), self("1-1", "rack1"), 1, false, 1, {}, false},
      {"rf3 two racks: nodes counted, all up", healthy(2, 2), self("1-1", "rack1"), 3, true, 1, {}, true},
      {"rf3 two racks: one other node down",
       with(healthy(2, 2), "1-2", "DN"),
       self("1-1", "rack1"),
       3,
       false,
       2,
       {"rack1"},
       true},
      {"rf3 one rack: nodes counted", healthy(1, 3), self("1-2", "rack1"), 3, true, 1, {}, true},
      {"rf5 three racks: one other node down",
       with(healthy(3, 2), "3-2", "DN"),
       self("1-1", "rack1"),
       5,
       true,
       2,
       {"rack3"},
       true},
      {"rf5 three racks: two other nodes down",
       with(with(healthy(3, 2), "3-2", "DN"), "2-1", "UJ"),
       self("1-1", "rack1"),
       5,
       false,
       3,
       {"rack2", "rack3"},
       true},
      {"rf3 in dc2 with dc1 down",
       with(with(three, "1-1", "DN"), "2-1", "DN"),
       self("x1-1", "rack1", "dc2"),
       3,
       true,
       1,
       {},
       false},
      {"host id matched case-insensitively",
       {{"dc1", "rack1", "UN", "abc"}, {"dc1", "rack2", "UN", "def"}, {"dc1", "rack3", "UN", "0a1"}},
       self("ABC", "rack1"),
       3,
       true,
       1,
       {},
       false},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.name) {
      const auto verdict = cla::evaluate_safety(cluster(c.nodes), c.me, c.rf);
      BOOST_TEST(verdict.safe == c.safe);
      BOOST_TEST(verdict.would_be_out == c.would_be_out);
      BOOST_TEST(verdict.down_racks == c.down_racks, boost::test_tools::per_element());
      BOOST_TEST(verdict.counted_nodes == c.counted_nodes);
      BOOST_TEST(verdict.allowed_out == c.rf - (c.rf / 2 + 1));
      BOOST_TEST(verdict.own_datacenter == c.me.datacenter);
      BOOST_TEST(verdict.own_rack == c.me.rack);
      BOOST_TEST(verdict.reason.starts_with(c.safe ? "safe: " : "unsafe: "), verdict.reason);
    }
  }
}

BOOST_AUTO_TEST_CASE(down_nodes_are_listed_sorted_without_self) {
  const auto verdict =
      cla::evaluate_safety(cluster(with(with(with(healthy(3, 2), "3-2", "DN"), "2-1", "UL"), "1-1", "DN")),
                           self("1-1", "rack1"), 3);
  BOOST_TEST(verdict.down_nodes == (std::vector<std::string>{"addr-2-1", "addr-3-2"}),
             boost::test_tools::per_element());
  BOOST_TEST(verdict.reason.find("rack2, rack3") != std::string::npos, verdict.reason);
}

BOOST_AUTO_TEST_CASE(allowed_out_per_replication_factor) {
  for (auto [rf, allowed] : {std::pair{1, 0}, {2, 0}, {3, 1}, {4, 1}, {5, 2}, {7, 3}}) {
    BOOST_TEST(cla::evaluate_safety(cluster(healthy(9, 1)), self("1-1", "rack1"), rf).allowed_out == allowed);
  }
}

BOOST_AUTO_TEST_CASE(fails_closed) {
  const auto status = cluster(healthy(3, 3));
  const auto no_dc = cla::evaluate_safety(status, self("1-1", "rack1", "dc9"), 3);
  BOOST_TEST(!no_dc.safe);
  BOOST_TEST(no_dc.reason.find("dc9") != std::string::npos, no_dc.reason);
  for (int rf : {0, -1}) {
    const auto bad_rf = cla::evaluate_safety(status, self("1-1", "rack1"), rf);
    BOOST_TEST(!bad_rf.safe);
    BOOST_TEST(bad_rf.reason.find("replication factor") != std::string::npos, bad_rf.reason);
  }
  const auto stranger = cla::evaluate_safety(status, self("9-9", "rack1"), 3);
  BOOST_TEST(!stranger.safe);
  BOOST_TEST(stranger.reason.find("9-9") != std::string::npos, stranger.reason);
  BOOST_TEST(!cla::evaluate_safety(cla::ClusterStatus{}, self("1-1", "rack1"), 3).safe);
  BOOST_TEST(!cla::evaluate_safety(status, self("", "rack1"), 3).safe);
}

BOOST_AUTO_TEST_CASE(reference_cluster) {
  const auto parsed =
      cla::parse_nodetool_status(cla::test::cassandra_data("raw/nodetool_status_4.1_2dc_3rack_3node.out"));
  BOOST_REQUIRE(parsed.ok());
  // eastus2: 10.1.0.11 in rack3 is UL -> a node in rack2 may not leave.
  const auto east =
      cla::evaluate_safety(*parsed, self("3f20134c-fdfb-462f-96fa-d8dbf82d5644", "rack2", "eastus2"), 3);
  BOOST_TEST(!east.safe);
  BOOST_TEST(east.down_racks == std::vector<std::string>{"rack3"}, boost::test_tools::per_element());
  // ... but a node of rack3 itself may (its rack is already out).
  BOOST_TEST(
      cla::evaluate_safety(*parsed, self("3f91ed95-3cc8-4b41-b339-a6840473b824", "rack3", "eastus2"), 3)
          .safe);
  // westus2: 10.2.0.8 in rack2 is DN -> safe for rack2 (10.2.0.7), unsafe for rack1 (10.2.0.6).
  BOOST_TEST(
      cla::evaluate_safety(*parsed, self("2f862cec-6965-4425-b110-d30a9d411e83", "rack2", "westus2"), 3)
          .safe);
  BOOST_TEST(
      !cla::evaluate_safety(*parsed, self("59227301-507a-4f34-b2e2-5394dbda118b", "rack1", "westus2"), 3)
           .safe);
}

BOOST_AUTO_TEST_SUITE_END()
