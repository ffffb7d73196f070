// nodetool describecluster: Cassandra 5.0.9's output (all up, a node down), padding and order, older layouts,
// keyspaces nodetool could not read, and what is refused.
#include "cassandra/nodetool_output/describecluster_parser.hpp"

#include <boost/test/unit_test.hpp>

#include "../cassandra_test_data.hpp"

namespace {

cla::ClusterDescription parsed(const std::string& text) {
  auto d = cla::parse_nodetool_describecluster(text);
  BOOST_REQUIRE_MESSAGE(d.ok(), (d.ok() ? "" : d.error().message));
  return d.value();
}

const char* const kHead =
    "Cluster Information:\n\tName: c\n\tSnitch: s\n\tDynamicEndPointSnitch: disabled\n\tPartitioner: p\n"
    "\tSchema versions:\n\t\tv1: [10.0.0.1]\n\n";

}  // namespace

BOOST_AUTO_TEST_SUITE(describecluster_parser_test)

BOOST_AUTO_TEST_CASE(cassandra_5_0_all_up) {
  const auto d = parsed(cla::test::cassandra_data("real-5.0/placement/3n_16t/describecluster.stdout"));
  BOOST_TEST(d.name == "cla-real");
  BOOST_TEST(d.snitch == "org.apache.cassandra.locator.GossipingPropertyFileSnitch");
  BOOST_TEST(d.partitioner == "org.apache.cassandra.dht.Murmur3Partitioner");
  BOOST_TEST(d.dynamic_snitch.value_or(false));
  BOOST_TEST(d.schema_versions.size() == 1u);
  BOOST_TEST(
      d.schema_versions.begin()->second == (std::vector<std::string>{"127.0.0.1", "127.0.0.2", "127.0.0.3"}),
      boost::test_tools::per_element());
  BOOST_TEST((d.counts == cla::NodeCounts{3, 0, 0, 0, 0}));
  BOOST_TEST(d.datacenters == (std::vector<cla::DatacenterCount>{{"dc1", 3, 0}}),
             boost::test_tools::per_element());
  BOOST_TEST(d.database_versions.at("5.0.9").size() == 3u);
  BOOST_REQUIRE(d.keyspaces.has_value());
  BOOST_TEST(d.keyspaces->size() == 10u);
  BOOST_TEST(d.keyspaces->front().name == "system_traces");
  BOOST_TEST(d.keyspaces->front().replication.replication_factor.all == 2);
  BOOST_TEST(d.keyspaces->at(3).name == "lifecycle");
  BOOST_TEST(d.keyspaces->at(3).replication.dc_factors.at("dc1").all == 3);
  BOOST_TEST((d.keyspaces->back().replication.kind == cla::StrategyKind::local));
  BOOST_TEST(d.notes.size() == 1u);  // 5.0 ends with the ownership note
  BOOST_TEST(d.reachable_schema_versions().size() == 1u);
}

BOOST_AUTO_TEST_CASE(a_node_down_is_unreachable_not_a_schema_version) {
  const auto d =
      parsed(cla::test::cassandra_data("real-5.0/placement/3n_16t/describecluster_node_down.stdout"));
  BOOST_TEST(d.schema_versions.size() == 2u);
  BOOST_TEST(d.schema_versions.at("UNREACHABLE") == std::vector<std::string>{"127.0.0.2"},
             boost::test_tools::per_element());
  BOOST_TEST(d.reachable_schema_versions().size() == 1u);
  BOOST_TEST((d.counts == cla::NodeCounts{2, 0, 0, 0, 1}));
  BOOST_TEST(d.datacenters == (std::vector<cla::DatacenterCount>{{"dc1", 3, 1}}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(padding_order_and_two_versions) {
  const auto d = parsed(
      "Keyspaces:\n   b -> Replication class: SimpleStrategy {replication_factor=1}\r\n"
      "Cluster Information:\n  Name:  my cluster \n Schema versions:\n  v2: [10.0.0.2, 10.0.0.3]\n  v1: "
      "[10.0.0.1]\n"
      "Stats for all nodes:\n  Joining: 1\n  Live:3\n  Leaving: 0\n  Moving: 2\n  Unreachable: 0\n  Paused: "
      "4\n"
      "Data Centers: \n  dc 1 #Nodes: 2 #Down: 0\n  dc2 #Nodes: 1 #Down: 1\n"
      "Keyspaces:\n a -> Replication class: NetworkTopologyStrategy {dc 1=2, dc2=1}\n");
  BOOST_TEST(d.name == "my cluster");
  BOOST_TEST(d.reachable_schema_versions() == (std::vector<std::string>{"v1", "v2"}),
             boost::test_tools::per_element());
  BOOST_TEST((d.counts == cla::NodeCounts{3, 1, 2, 0, 0}));
  BOOST_TEST(d.datacenters.at(0).name == "dc 1");
  BOOST_REQUIRE(d.keyspaces->size() == 2u);
  BOOST_TEST(d.keyspaces->at(1).replication.dc_factors.at("dc 1").all == 2);
}

BOOST_AUTO_TEST_CASE(before_4_0_there_are_no_keyspaces_nor_counts) {
  const auto d = parsed(
      "Cluster Information:\n\tName: old\n\tSnitch: org.apache.cassandra.locator.DynamicEndpointSnitch\n"
      "\tPartitioner: org.apache.cassandra.dht.Murmur3Partitioner\n\tSchema versions:\n"
      "\t\t86afa796-d883-3932-aa73-6b017cef0d19: [10.0.0.1, 10.0.0.2]\n\n");
  BOOST_TEST(!d.keyspaces.has_value());
  BOOST_TEST(!d.counts.has_value());
  BOOST_TEST(!d.dynamic_snitch.has_value());
}

BOOST_AUTO_TEST_CASE(a_keyspace_nodetool_could_not_read) {
  std::string text = kHead;  // appended piecewise: GCC 12 misreports `a + "..."` (-Warray-bounds)
  text.append("Keyspaces:\nsomething went wrong for keyspace: odd\n\todd -> Replication class: null\n");
  const auto d = parsed(text);
  BOOST_TEST((d.keyspaces->at(0).replication.kind == cla::StrategyKind::other));
  BOOST_TEST(d.notes.at(0) == "something went wrong for keyspace: odd");
}

BOOST_AUTO_TEST_CASE(refused) {
  for (const char* text :
       {"\tName: c\n",                        // no Cluster Information
        "Cluster Information:\n\tName: c\n",  // no schema version
        "Cluster Information:\n\tDynamicEndPointSnitch: maybe\n\tSchema versions:\n\t\tv: [a]\n"})
    BOOST_TEST(!cla::parse_nodetool_describecluster(text).ok(), text);
  for (const char* tail :
       {"Keyspaces:\n\tks -> SimpleStrategy\n",  // no "Replication class:"
        "Keyspaces:\n\t -> Replication class: LocalStrategy {}\n",
        "Keyspaces:\n\tks -> Replication class: LocalStrategy {}\n\tks -> Replication class: X {}\n",
        "Keyspaces:\n\tmy ks -> Replication class: LocalStrategy {}\n",  // not a Cassandra name
        // Found by fuzzing: a name holding the separator, with a tab after its colon, read as
        // "ks -> Replication class:"; printed back, its colon had the separator's blank and read otherwise.
        "Keyspaces:\n\tks -> Replication class:\t -> Replication class: SimpleStrategy "
        "{replication_factor=2}\n",
        "Stats for all nodes:\n\tLive: many\n", "Stats for all nodes:\n\tLive: -1\n",
        "Stats for all nodes:\n\tnothing\n", "Data Centers:\n\tdc1 3 nodes\n",
        "\t\tv1: [10.0.0.2]\n"}) {  // a version twice
    std::string text = kHead;       // appended piecewise: GCC 12 misreports `a + "..."` (-Warray-bounds)
    text.append(tail);
    BOOST_TEST(!cla::parse_nodetool_describecluster(text).ok(), text);
  }
}

BOOST_AUTO_TEST_SUITE_END()
