// The replication verdict, table by table: per consistency level, per strategy (NTS one DC, NTS two DCs,
// SimpleStrategy, EverywhereStrategy), per ring shape (1 and 16 tokens, fewer racks than RF, two nodes per
// rack), unprotectable keyspaces, schema disagreement, a changing ring, SPEC 9's admission and the log
// fields.
#include "cassandra/gate/replication_verdict.hpp"

#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>

#include "replication_fixtures.hpp"

namespace {

using cla::Consistency;
using cla::test::FixtureNode;
using Down = std::map<std::string, std::string>;
using Strings = std::vector<std::string>;
constexpr auto LQ = Consistency::local_quorum, Q = Consistency::quorum, EQ = Consistency::each_quorum,
               LO = Consistency::local_one, ONE = Consistency::one;

// Three racks of one node, one token each: 10.0.0.1-3 in rack1-3; this node is 10.0.0.3.
const auto kThree = cla::test::even_ring(3, 3);
const cla::VerdictNode kSelf3{"10.0.0.3", "dc1"};

cla::ReplicationVerdict safe() {
  cla::ReplicationVerdict v;
  v.safe = true;
  v.reason = cla::VerdictReason::safe;
  return v;
}

cla::ReplicationVerdict short_of(cla::ShortRange range) {
  cla::ReplicationVerdict v;
  v.reason = cla::VerdictReason::replicas_short;
  v.short_range = std::move(range);
  return v;
}

cla::ReplicationVerdict with_unprotectable(cla::ReplicationVerdict v,
                                           std::vector<cla::UnprotectableKeyspace> u) {
  v.unprotectable = std::move(u);
  return v;
}

cla::ReplicationVerdict verdict(const std::vector<FixtureNode>& nodes,
                                const std::vector<std::pair<std::string, std::string>>& keyspaces,
                                const Down& down, const cla::VerdictNode& self, Consistency cl) {
  return cla::evaluate_replication(cla::test::snapshot(nodes, keyspaces), cla::test::status_of(nodes, down),
                                   self, cl);
}

std::string token(const std::vector<FixtureNode>& nodes, std::size_t node, std::size_t index = 0) {
  return std::to_string(nodes[node].tokens[index]);
}

// Nodes k = 1..n on 10.0.0.k in rack k, one token each: 100 k.
std::vector<FixtureNode> hundreds(int n) {
  std::vector<FixtureNode> nodes;
  for (int k = 1; k <= n; ++k)
    nodes.push_back(
        FixtureNode{"10.0.0." + std::to_string(k), "dc1", "rack" + std::to_string(k), {100 * k}, "Normal"});
  return nodes;
}

// Five nodes and 10.0.0.6 joining at 150 (rack6): 6 is pending in (500,100], (100,150] and (400,500]
// (pending_ranges_test). This node, 10.0.0.3, replicates (500,100], (100,150], (150,200] and (200,300].
std::vector<FixtureNode> joining_ring() {
  auto nodes = hundreds(5);
  nodes.push_back(FixtureNode{"10.0.0.6", "dc1", "rack6", {150}, "Joining"});
  return nodes;
}

// The start token of a verdict's short range; "" when it names none.
std::string start_of(const cla::ReplicationVerdict& v) {
  return v.short_range ? v.short_range->start_token : "";
}

cla::ShortRange writes(cla::ShortRange range) {
  range.access = cla::ShortAccess::writes;
  return range;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(replication_verdict_test)

BOOST_AUTO_TEST_CASE(nts_one_dc_per_level) {
  const std::vector<std::pair<std::string, std::string>> ks{{"app", "NetworkTopologyStrategy {dc1=3}"}};
  // The first of the three ranges 10.0.0.3 replicates: (t3, t1] (every range holds all three nodes).
  auto range = [&](int needed, int available, std::vector<std::string> down, std::string dc) {
    return short_of(cla::ShortRange{
        "app", token(kThree, 2), token(kThree, 0), std::move(dc), needed, available, std::move(down), {}});
  };
  struct Row {
    Down down;
    Consistency cl;
    cla::ReplicationVerdict expected;
  };
  const std::vector<Row> table{
      {{}, LQ, safe()},
      {{}, Q, safe()},
      {{}, EQ, safe()},
      {{}, LO, safe()},
      {{}, ONE, safe()},
      {{{"10.0.0.2", "DN"}}, LO, safe()},
      {{{"10.0.0.2", "DN"}}, ONE, safe()},
      {{{"10.0.0.2", "DN"}}, LQ, range(2, 1, {"10.0.0.2"}, "dc1")},
      {{{"10.0.0.2", "DN"}}, Q, range(2, 1, {"10.0.0.2"}, "")},
      {{{"10.0.0.2", "DN"}}, EQ, range(2, 1, {"10.0.0.2"}, "dc1")},
      {{{"10.0.0.1", "DN"}, {"10.0.0.2", "DN"}}, LO, range(1, 0, {"10.0.0.1", "10.0.0.2"}, "dc1")},
      {{{"10.0.0.1", "?N"}, {"10.0.0.2", "DN"}}, ONE, range(1, 0, {"10.0.0.1", "10.0.0.2"}, "")},
      // This node's own row never counts: it may show itself down (gossip off) or anything else.
      {{{"10.0.0.3", "DN"}}, LQ, safe()},
  };
  for (const auto& row : table) {
    BOOST_TEST_CONTEXT(cla::to_string(row.cl) << " down " << row.down.size()) {
      BOOST_TEST(verdict(kThree, ks, row.down, kSelf3, row.cl) == row.expected);
    }
  }
}

BOOST_AUTO_TEST_CASE(nts_two_dcs_per_level) {
  auto nodes = cla::test::even_ring(3, 3, 1, "dc1", 1);
  const auto dc2 = cla::test::even_ring(3, 3, 1, "dc2", 4, 100);
  nodes.insert(nodes.end(), dc2.begin(), dc2.end());
  const std::vector<std::pair<std::string, std::string>> ks{
      {"app", "NetworkTopologyStrategy {dc1=3, dc2=3}"}};
  const cla::VerdictNode self{"10.0.0.3", "dc1"};
  // dc2 loses one node: each DC keeps its quorum, QUORUM keeps 4 of 6 without this node.
  const Down one_in_dc2{{"10.0.0.4", "DN"}};
  for (auto cl : {LQ, Q, EQ, LO, ONE})
    BOOST_TEST(verdict(nodes, ks, one_in_dc2, self, cl).safe, cla::to_string(cl));
  // dc2 loses two: LOCAL_QUORUM (dc1) still safe; EACH_QUORUM too: dc2 is short whatever dc1's node does,
  // and a DC this node is not in is never the reason (SPEC 3.4); QUORUM 3 < 4, which this node's leaving
  // makes short.
  const Down two_in_dc2{{"10.0.0.4", "DN"}, {"10.0.0.5", "DN"}};
  BOOST_TEST(verdict(nodes, ks, two_in_dc2, self, LQ).safe);
  BOOST_TEST(verdict(nodes, ks, two_in_dc2, self, EQ).safe);
  // From dc2, the same outage is dc2's own: EACH_QUORUM short in dc2.
  const auto each = verdict(nodes, ks, {{"10.0.0.4", "DN"}}, {"10.0.0.5", "dc2"}, EQ);
  BOOST_TEST(each.reason == cla::VerdictReason::replicas_short);
  BOOST_TEST(each.short_range->datacenter == "dc2");
  BOOST_TEST((each.short_range->needed == 2 && each.short_range->available == 1));
  BOOST_TEST(each.short_range->down == (std::vector<std::string>{"10.0.0.4"}),
             boost::test_tools::per_element());
  const auto quorum = verdict(nodes, ks, two_in_dc2, self, Q);
  BOOST_TEST((quorum.short_range->needed == 4 && quorum.short_range->available == 3));
  BOOST_TEST(quorum.short_range->datacenter == "");
  // A dc1 node down: LOCAL_QUORUM of dc1 falls short; LOCAL_ONE does not.
  BOOST_TEST(!verdict(nodes, ks, {{"10.0.0.1", "DN"}}, self, LQ).safe);
  BOOST_TEST(verdict(nodes, ks, {{"10.0.0.1", "DN"}}, self, LO).safe);
}

BOOST_AUTO_TEST_CASE(simple_strategy_counts_one_rf) {
  const std::vector<std::pair<std::string, std::string>> ks{{"s3", "SimpleStrategy {replication_factor=3}"}};
  BOOST_TEST(verdict(kThree, ks, {}, kSelf3, LQ) == safe());
  BOOST_TEST(!verdict(kThree, ks, {{"10.0.0.1", "DN"}}, kSelf3, LQ).safe);
  BOOST_TEST(verdict(kThree, ks, {{"10.0.0.1", "DN"}}, kSelf3, LO).safe);
  BOOST_TEST(!verdict(kThree, ks, {{"10.0.0.1", "DN"}}, kSelf3, EQ).safe);  // EACH_QUORUM is QUORUM here
  // Across two DCs, LOCAL_QUORUM is RF/2+1 counted in this node's DC only (Cassandra's rule for a strategy
  // without per-DC factors): a range with one local replica besides this node can never have 2.
  auto nodes = cla::test::even_ring(3, 3, 1, "dc1", 1);
  const auto dc2 = cla::test::even_ring(3, 3, 1, "dc2", 4, 100);
  nodes.insert(nodes.end(), dc2.begin(), dc2.end());
  const auto local = verdict(nodes, ks, {}, kSelf3, LQ);
  BOOST_TEST(local == with_unprotectable(safe(), {{"s3", "SimpleStrategy", 3, LQ}}));
  BOOST_TEST(verdict(nodes, ks, {}, kSelf3, Q) == safe());
}

BOOST_AUTO_TEST_CASE(ring_shapes) {
  const std::vector<std::pair<std::string, std::string>> ks{{"app", "NetworkTopologyStrategy {dc1=3}"}};
  // 16 tokens, 6 nodes, two per rack: a down node of another rack shares some of this node's ranges.
  const auto six = cla::test::even_ring(6, 3, 16);
  const cla::VerdictNode self6{"10.0.0.6", "dc1"};
  BOOST_TEST(verdict(six, ks, {}, self6, LQ).safe);
  BOOST_TEST(!verdict(six, ks, {{"10.0.0.1", "DN"}}, self6, LQ).safe);
  // The other node of this node's own rack is never a replica of this node's ranges (racks first): safe.
  BOOST_TEST(verdict(six, ks, {{"10.0.0.3", "DN"}}, self6, LQ).safe);
  // Fewer racks than RF: 4 nodes in 2 racks, RF 3 takes a rack twice; one node down still leaves 2 of 3.
  const auto two_racks = cla::test::even_ring(4, 2, 16);
  const cla::VerdictNode self4{"10.0.0.4", "dc1"};
  BOOST_TEST(verdict(two_racks, ks, {}, self4, LQ).safe);
  const auto v = verdict(two_racks, ks, {{"10.0.0.1", "DN"}}, self4, LQ);
  BOOST_TEST(!v.safe);
  BOOST_TEST((v.short_range->needed == 2 && v.short_range->available == 1));
  BOOST_TEST(verdict(two_racks, ks, {{"10.0.0.1", "DN"}}, self4, LO).safe);
}

BOOST_AUTO_TEST_CASE(unprotectable_keyspaces_are_left_out_and_listed) {
  using U = cla::UnprotectableKeyspace;
  using F = std::map<std::string, int>;
  const std::vector<std::pair<std::string, std::string>> ks{
      {"system_auth", "SimpleStrategy {replication_factor=1}"},
      {"pair", "NetworkTopologyStrategy {dc1=2}"},
      {"traces", "SimpleStrategy {replication_factor=2}"},
      {"app", "NetworkTopologyStrategy {dc1=3}"},
      {"wide", "NetworkTopologyStrategy {dc1=4}"},  // 4 > 3 nodes: 3 replicas, LOCAL_QUORUM needs 3
      {"system_schema", "LocalStrategy {}"},
      {"system_views", "SimpleStrategy {replication_factor=1}"}};
  BOOST_TEST(verdict(kThree, ks, {}, kSelf3, LQ) ==
             with_unprotectable(safe(), {{"pair", "NetworkTopologyStrategy", F{{"dc1", 2}}, LQ},
                                         {"system_auth", "SimpleStrategy", 1, LQ},
                                         {"traces", "SimpleStrategy", 2, LQ},
                                         {"wide", "NetworkTopologyStrategy", F{{"dc1", 4}}, LQ}}));
  // At LOCAL_ONE only RF 1 is unprotectable; "pair" and "traces" then count, and a down peer makes them
  // short.
  BOOST_TEST(verdict(kThree, ks, {}, kSelf3, LO) ==
             with_unprotectable(safe(), {U{"system_auth", "SimpleStrategy", 1, LO}}));
  const auto lo = verdict(kThree, ks, {{"10.0.0.1", "DN"}}, kSelf3, LO);
  BOOST_TEST(lo.reason == cla::VerdictReason::replicas_short);
  BOOST_TEST(lo.short_range->keyspace == "pair");  // the first by name of the largest shortfall
  // A dc factor the level needs that is too small: {dc1: 3, dc2: 1} at EACH_QUORUM, seen from dc2's node.
  auto nodes = cla::test::even_ring(3, 3, 1, "dc1", 1);
  nodes.push_back(FixtureNode{"10.0.0.9", "dc2", "rack1", {5}});
  const std::vector<std::pair<std::string, std::string>> two{
      {"geo", "NetworkTopologyStrategy {dc1=3, dc2=1}"}};
  BOOST_TEST(
      verdict(nodes, two, {}, {"10.0.0.9", "dc2"}, EQ) ==
      with_unprotectable(safe(), {U{"geo", "NetworkTopologyStrategy", F{{"dc1", 3}, {"dc2", 1}}, EQ}}));
  BOOST_TEST(verdict(nodes, two, {}, {"10.0.0.3", "dc1"}, EQ) == safe());
  BOOST_TEST(cla::find_unprotectable(cla::test::snapshot(nodes, two), {"10.0.0.9", "dc2"}, LO).size() == 1u);
  BOOST_TEST(cla::find_unprotectable(cla::test::snapshot(nodes, two), {"10.0.0.9", "dc2"}, Q).empty());
}

BOOST_AUTO_TEST_CASE(schema_disagreement_and_a_changing_ring_wait) {
  const std::vector<std::pair<std::string, std::string>> ks{{"app", "NetworkTopologyStrategy {dc1=3}"},
                                                            {"one", "SimpleStrategy {replication_factor=1}"}};
  auto s = cla::test::snapshot(kThree, ks);
  const auto status = cla::test::status_of(kThree);
  s.cluster.schema_versions["UNREACHABLE"] = {"10.0.0.9"};  // a node down is not a disagreement
  BOOST_TEST(cla::evaluate_replication(s, status, kSelf3, LQ).safe);
  s.cluster.schema_versions["0aa6a4a0-1111-3333-8888-000000000000"] = {"10.0.0.2"};
  const auto disagreement = cla::evaluate_replication(s, status, kSelf3, LQ);
  BOOST_TEST(disagreement.reason == cla::VerdictReason::schema_disagreement);
  BOOST_TEST(!disagreement.safe);
  BOOST_TEST(disagreement.unprotectable.size() == 1u);  // still listed
  s.cluster.schema_versions.erase("0aa6a4a0-1111-3333-8888-000000000000");
  // describecluster's joining and leaving counts no longer block (the ring's rows place them); moving does.
  s.cluster.counts->joining = 1;
  s.cluster.counts->leaving = 1;
  BOOST_TEST(cla::evaluate_replication(s, status, kSelf3, LQ).safe);
  s.cluster.counts->moving = 1;
  const auto moving = cla::evaluate_replication(s, status, kSelf3, LQ);
  BOOST_TEST(moving.reason == cla::VerdictReason::ring_changing);
  BOOST_TEST(moving.detail == "describecluster: moving 1");
  s.cluster.counts = cla::NodeCounts{};
  // A status whose states differ from the refresh's ring: a node started joining, leaving or moving since;
  // its pending ranges are unknown until the next refresh.
  for (const char* state : {"UL", "UJ", "UM", "DL"}) {
    const auto leaving = cla::test::status_of(kThree, {{"10.0.0.1", state}});
    const auto v = cla::evaluate_replication(s, leaving, kSelf3, LO);
    BOOST_TEST(v.reason == cla::VerdictReason::ring_changing, state);
    BOOST_TEST(v.detail == "10.0.0.1 " + std::string(state) +
                               (state[1] == 'M' ? "" : ", 'N' in the ring of the last refresh"));
  }
  auto extra = status;  // a node the refresh's ring did not hold
  extra.rows.push_back(cla::StatusRow{"dc1", 'U', 'N', "10.0.0.9", "?", "", "rack1"});
  BOOST_TEST(cla::evaluate_replication(s, extra, kSelf3, LQ).detail ==
             "10.0.0.9 UN, not in the ring of the last refresh");
  BOOST_TEST(cla::evaluate_replication(s, status, {"10.9.9.9", "dc1"}, LQ).reason ==
             cla::VerdictReason::node_not_in_ring);
}

BOOST_AUTO_TEST_CASE(strategies_that_cannot_be_placed) {
  const std::vector<std::pair<std::string, std::string>> ks{{"app", "NetworkTopologyStrategy {dc1=3}"},
                                                            {"theirs", "com.example.TheirStrategy {dc1=3}"},
                                                            {"unread", "null"},
                                                            {"all", "EverywhereStrategy {}"}};
  auto v = verdict(kThree, ks, {}, kSelf3, LQ);
  auto expected = safe();
  expected.unjudged = {"theirs (TheirStrategy)", "unread (null)"};
  BOOST_TEST(v == expected);
  BOOST_TEST(v.keyspaces_checked == 2u);  // app and all (EverywhereStrategy: every node a replica, RF 3)
  BOOST_TEST(!verdict(kThree, ks, {{"10.0.0.1", "DN"}}, kSelf3, LQ).safe);
}

BOOST_AUTO_TEST_CASE(admission_counts_recorded_drains_as_unavailable) {
  const std::vector<std::pair<std::string, std::string>> ks{{"app", "NetworkTopologyStrategy {dc1=3}"}};
  const auto s = cla::test::snapshot(kThree, ks);
  const auto status = cla::test::status_of(kThree);
  BOOST_TEST(cla::evaluate_admission(s, status, kSelf3, LQ, {}).safe);
  BOOST_TEST(cla::evaluate_admission(s, status, kSelf3, LQ, {"10.0.0.3"}).safe);  // its own record
  const auto v = cla::evaluate_admission(s, status, kSelf3, LQ, {"10.0.0.2"});
  BOOST_TEST(v == short_of(cla::ShortRange{
                      "app", token(kThree, 2), token(kThree, 0), "dc1", 2, 1, {"10.0.0.2"}, {}}));
  BOOST_TEST(cla::evaluate_admission(s, status, kSelf3, LO, {"10.0.0.2"}).safe);
  auto with_ids = status;
  with_ids.rows[1].host_id = "7338b870-cce5-4b5e-be56-e20c9a61a488";
  BOOST_TEST(cla::addresses_of_host_ids(with_ids, {"7338B870-CCE5-4B5E-BE56-E20C9A61A488", "gone", ""}) ==
                 std::vector<std::string>{"10.0.0.2"},
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(a_ring_that_disagrees_with_describecluster_is_refused) {
  auto d = cla::test::description({{"app", "NetworkTopologyStrategy {dc1=3}"}});
  d.datacenters = {{"dc1", 3, 0}};
  const auto table = cla::test::ring_table(kThree);
  BOOST_TEST(cla::make_replication_snapshot(d, table).ok());
  auto cut = table;  // an output cut short, or a node added between the two calls
  cut.rows.pop_back();
  BOOST_TEST(!cla::make_replication_snapshot(d, cut).ok());
  d.datacenters.push_back({"dc2", 3, 0});
  BOOST_TEST(!cla::make_replication_snapshot(d, table).ok());
  d.datacenters = {{"dc1", 4, 0}};
  BOOST_TEST(!cla::make_replication_snapshot(d, table).ok());
}

BOOST_AUTO_TEST_CASE(log_fields_are_spec_3_4s) {
  const auto unsafe = short_of(cla::ShortRange{"app", "-5", "7", "dc1", 2, 1, {"10.0.0.2"}, {}});
  BOOST_TEST(
      boost::json::serialize(cla::unsafe_log_fields(unsafe)) ==
      R"({"keyspace":"app","start_token":"-5","end_token":"7","needed":2,"available":1,"down":["10.0.0.2"],)"
      R"("pending":[],"for":"reads_and_writes"})");
  const auto writes = short_of(
      cla::ShortRange{"app", "-5", "7", "dc1", 3, 2, {"10.0.0.4"}, {"10.0.0.4"}, cla::ShortAccess::writes});
  BOOST_TEST(
      boost::json::serialize(cla::unsafe_log_fields(writes)) ==
      R"({"keyspace":"app","start_token":"-5","end_token":"7","needed":3,"available":2,"down":["10.0.0.4"],)"
      R"("pending":["10.0.0.4"],"for":"writes"})");
  cla::ReplicationVerdict schema;
  schema.reason = cla::VerdictReason::schema_disagreement;
  BOOST_TEST(boost::json::serialize(cla::unsafe_log_fields(schema)) == R"({"reason":"schema_disagreement"})");
  BOOST_TEST(cla::unsafe_log_fields(safe()).empty());
  BOOST_TEST(
      boost::json::serialize(cla::unprotectable_log_fields({"system_auth", "SimpleStrategy", 1, LQ})) ==
      R"({"keyspace":"system_auth","class":"SimpleStrategy","rf":1,"consistency":"LOCAL_QUORUM"})");
  BOOST_TEST(
      boost::json::serialize(cla::unprotectable_log_fields(
          {"geo", "NetworkTopologyStrategy", std::map<std::string, int>{{"dc1", 3}, {"dc2", 1}}, EQ})) ==
      R"({"keyspace":"geo","class":"NetworkTopologyStrategy","rf":{"dc1":3,"dc2":1},"consistency":"EACH_QUORUM"})");
  for (auto cl : {LQ, Q, EQ, LO, ONE}) BOOST_TEST((cla::parse_consistency(cla::to_string(cl)) == cl));
  BOOST_TEST(!cla::parse_consistency("local_quorum").has_value());
}

BOOST_AUTO_TEST_CASE(a_joining_nodes_pending_ranges_raise_the_writes_count) {
  const std::vector<std::pair<std::string, std::string>> ks{{"app", "NetworkTopologyStrategy {dc1=3}"}};
  const auto nodes = joining_ring();
  const cla::VerdictNode self{"10.0.0.3", "dc1"};
  auto range = [](std::string start, std::string end, int needed, int available, Strings down) {
    return cla::ShortRange{"app", start, end, "dc1", needed, available, std::move(down), {"10.0.0.6"}};
  };
  struct Row {
    std::string name;
    Down down;
    Consistency cl;
    cla::ReplicationVerdict expected;
  };
  const std::vector<Row> table{
      // 6 (UJ) counts for the writes it receives: 2 natural + 1 pending meet 2 + P = 3 in (500,100].
      {"joining up, every natural replica up", {}, LQ, safe()},
      // Without 6 the writes of its ranges have 2 of 3; reads still have 2 of 2.
      {"joining down", {{"10.0.0.6", "DJ"}}, LQ, short_of(writes(range("500", "100", 3, 2, {"10.0.0.6"})))},
      {"a natural replica of a range with 6 pending down",
       {{"10.0.0.1", "DN"}},
       LQ,
       short_of(range("500", "100", 3, 2, {"10.0.0.1"}))},
      // (100,150], split from (100,200] at 6's token, is the first short range with 4 down.
      {"4 down", {{"10.0.0.4", "DN"}}, LQ, short_of(range("100", "150", 3, 2, {"10.0.0.4"}))},
      {"joining down at LOCAL_ONE", {{"10.0.0.6", "DJ"}}, LO, safe()},
      {"joining and 2 down at LOCAL_ONE",
       {{"10.0.0.6", "DJ"}, {"10.0.0.2", "DN"}},
       LO,
       short_of(writes(range("500", "100", 2, 1, {"10.0.0.2", "10.0.0.6"})))},
  };
  for (const auto& row : table) {
    BOOST_TEST_CONTEXT(row.name) {
      BOOST_TEST(verdict(nodes, ks, row.down, self, row.cl) == row.expected);
    }
  }
  // The exact fields name the keyspace, the range and what falls short.
  const auto v = verdict(nodes, ks, {{"10.0.0.6", "DJ"}}, self, LQ);
  BOOST_TEST(boost::json::serialize(cla::unsafe_log_fields(v)) ==
             R"({"keyspace":"app","start_token":"500","end_token":"100","needed":3,"available":2,)"
             R"("down":["10.0.0.6"],"pending":["10.0.0.6"],"for":"writes"})");
  // Other nodes of 6's ranges: 10.0.0.4 replicates (100,150] with 6 pending, 10.0.0.5 (400,500].
  BOOST_TEST(start_of(verdict(nodes, ks, {{"10.0.0.6", "DJ"}}, {"10.0.0.4", "dc1"}, LQ)) == "100");
  BOOST_TEST(start_of(verdict(nodes, ks, {{"10.0.0.6", "DJ"}}, {"10.0.0.5", "dc1"}, LQ)) == "400");
  // SimpleStrategy counts the same way.
  const std::vector<std::pair<std::string, std::string>> simple{
      {"s", "SimpleStrategy {replication_factor=3}"}};
  BOOST_TEST(verdict(nodes, simple, {}, self, LQ).safe);
  const auto simple_down = verdict(nodes, simple, {{"10.0.0.6", "DJ"}}, self, LQ);
  BOOST_REQUIRE(simple_down.short_range);
  BOOST_TEST(simple_down.short_range->access == cla::ShortAccess::writes);
}

BOOST_AUTO_TEST_CASE(a_leaving_node_hands_its_ranges_to_pending_replicas) {
  const std::vector<std::pair<std::string, std::string>> ks{{"app", "NetworkTopologyStrategy {dc1=3}"}};
  // Six nodes, 10.0.0.1 leaving (UL, not available as SPEC 3.4 says): without it (600,100] goes to 2,3,4,
  // (400,500] to 5,6,2, (500,600] to 6,2,3.
  auto nodes = hundreds(6);
  nodes[0].state = "Leaving";
  // 4 is pending in (600,100]: that range needs 2 + 1 writes and keeps 2, 3 (1 is leaving, 4 is this node).
  BOOST_TEST(verdict(nodes, ks, {}, {"10.0.0.4", "dc1"}, LQ) ==
             short_of(cla::ShortRange{
                 "app", "600", "100", "dc1", 3, 2, {"10.0.0.1"}, {"10.0.0.4"}, cla::ShortAccess::writes}));
  BOOST_TEST(verdict(nodes, ks, {}, {"10.0.0.4", "dc1"}, LO).safe);
  // 5 replicates (400,500] with 1: reads keep only 6 there, and writes 6 and the pending 2.
  BOOST_TEST(verdict(nodes, ks, {}, {"10.0.0.5", "dc1"}, LQ) ==
             short_of(cla::ShortRange{"app", "400", "500", "dc1", 3, 2, {"10.0.0.1"}, {"10.0.0.2"}}));
  // At LOCAL_ONE: (400,500] needs 1 + 1 writes of 6 and 2; with 2 down it keeps one (1 is leaving).
  BOOST_TEST(verdict(nodes, ks, {}, {"10.0.0.5", "dc1"}, LO).safe);
  BOOST_TEST(verdict(nodes, ks, {{"10.0.0.2", "DN"}}, {"10.0.0.5", "dc1"}, LO) ==
             short_of(cla::ShortRange{"app",
                                      "400",
                                      "500",
                                      "dc1",
                                      2,
                                      1,
                                      {"10.0.0.1", "10.0.0.2"},
                                      {"10.0.0.2"},
                                      cla::ShortAccess::writes}));
}

BOOST_AUTO_TEST_CASE(a_moving_node_still_waits) {
  const std::vector<std::pair<std::string, std::string>> ks{{"app", "NetworkTopologyStrategy {dc1=3}"}};
  auto nodes = hundreds(5);
  nodes[1].state = "Moving";  // status UM, ring rows Moving: its destination token is not printed
  const auto v = verdict(nodes, ks, {}, {"10.0.0.3", "dc1"}, LO);
  BOOST_TEST(!v.safe);
  BOOST_TEST(v.reason == cla::VerdictReason::ring_changing);
  BOOST_TEST(v.detail == "10.0.0.2 moving in the ring");
  BOOST_TEST(boost::json::serialize(cla::unsafe_log_fields(v)) == R"({"reason":"ring_changing"})");
  // A joining node beside it changes nothing: still the moving node that blocks.
  nodes.push_back(FixtureNode{"10.0.0.6", "dc1", "rack6", {150}, "Joining"});
  BOOST_TEST(verdict(nodes, ks, {}, {"10.0.0.3", "dc1"}, LO).detail == "10.0.0.2 moving in the ring");
}

BOOST_AUTO_TEST_CASE(pending_replicas_counted_per_level_across_two_dcs) {
  // joining_ring() in dc1 and three dc2 nodes (110, 210, 310): every range has all of dc2.
  auto nodes = joining_ring();
  for (int k = 1; k <= 3; ++k)
    nodes.push_back(FixtureNode{
        "10.0.1." + std::to_string(k), "dc2", "rack" + std::to_string(k), {100 * k + 10}, "Normal"});
  const std::vector<std::pair<std::string, std::string>> ks{
      {"geo", "NetworkTopologyStrategy {dc1=3, dc2=3}"}};
  const cla::VerdictNode self{"10.0.0.3", "dc1"}, self2{"10.0.1.3", "dc2"};
  const Down joining_down{{"10.0.0.6", "DJ"}};
  const Down and_dc2{{"10.0.0.6", "DJ"}, {"10.0.1.1", "DN"}};
  // QUORUM: 6/2+1 = 4, + 1 pending over all DCs = 5 of 2 + 3 + 1.
  BOOST_TEST(verdict(nodes, ks, {}, self, Q).safe);
  BOOST_TEST(verdict(nodes, ks, joining_down, self, Q).safe);  // 5 of 5
  const auto q = verdict(nodes, ks, and_dc2, self, Q);
  BOOST_REQUIRE(q.reason == cla::VerdictReason::replicas_short);
  BOOST_TEST((q.short_range->needed == 5 && q.short_range->available == 4));
  BOOST_TEST(q.short_range->datacenter == "");
  BOOST_TEST(q.short_range->pending == Strings{"10.0.0.6"}, boost::test_tools::per_element());
  BOOST_TEST(q.short_range->access == cla::ShortAccess::writes);  // reads: 4 of 4
  // EACH_QUORUM: dc1 needs 2 + 1 pending, dc2 2 + 0.
  const auto each = verdict(nodes, ks, joining_down, self, EQ);
  BOOST_REQUIRE(each.reason == cla::VerdictReason::replicas_short);
  BOOST_TEST(each.short_range->datacenter == "dc1");
  BOOST_TEST((each.short_range->needed == 3 && each.short_range->available == 2));
  BOOST_TEST(verdict(nodes, ks, {{"10.0.1.1", "DN"}}, self, EQ).safe);  // dc2 keeps 2 of its 2
  // LOCAL_QUORUM counts pending replicas of the local DC only: dc1's joining node does not raise dc2's count.
  BOOST_TEST(verdict(nodes, ks, joining_down, self2, LQ).safe);
  BOOST_TEST(!verdict(nodes, ks, joining_down, self, LQ).safe);
  // From dc2, EACH_QUORUM's dc1 count keeps its three natural replicas for 2 + 1.
  BOOST_TEST(verdict(nodes, ks, joining_down, self2, EQ).safe);
  BOOST_TEST(!verdict(nodes, ks, and_dc2, self2, EQ).safe);  // dc1 then 3 of 3, dc2 1 of 2
}

BOOST_AUTO_TEST_SUITE_END()
