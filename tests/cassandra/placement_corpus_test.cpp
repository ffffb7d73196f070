// The placement proven on real Cassandra 5.0.9: for every captured cluster shape
// (tests/data/cassandra/real-5.0/ placement/<shape>/, scripts/cluster/capture-cassandra-corpus.sh
// --placement) and every keyspace describecluster lists, the replicas computed from `ring` equal
// `describering`'s, range by range and in Cassandra's order.
#include <boost/test/unit_test.hpp>
#include <filesystem>
#include <map>
#include <set>
#include <string>

#include "cassandra/describecluster_parser.hpp"
#include "cassandra/describering_parser.hpp"
#include "cassandra/replica_placement.hpp"
#include "cassandra/replication_verdict.hpp"
#include "cassandra/ring_parser.hpp"
#include "cassandra/status_parser.hpp"
#include "cassandra_test_data.hpp"

namespace {

namespace fs = std::filesystem;

fs::path placement_dir() {
  std::string dir = CLA_TEST_DATA_DIR;  // appended piecewise: GCC 12 misreports `a + "..." + b`
  dir.append("/cassandra/real-5.0/placement");
  return dir;
}

std::vector<std::string> shapes() {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(placement_dir()))
    if (entry.is_directory()) names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

std::string read(const std::string& shape, const std::string& file) {
  return cla::test::cassandra_data("real-5.0/placement/" + shape + "/" + file);
}

template <class T>
T required(const cla::Result<T>& parsed, const std::string& what) {
  BOOST_REQUIRE_MESSAGE(parsed.ok(), what << ": " << (parsed.ok() ? "" : parsed.error().message));
  return parsed.value();
}

cla::ReplicationSnapshot snapshot_of(const std::string& shape, const std::string& suffix = "") {
  auto cluster =
      required(cla::parse_nodetool_describecluster(read(shape, "describecluster" + suffix + ".stdout")),
               shape + " describecluster");
  const auto& ring =
      required(cla::parse_nodetool_ring(read(shape, "ring" + suffix + ".stdout")), shape + " ring");
  return required(cla::make_replication_snapshot(cluster, ring), shape + " snapshot");
}

}  // namespace

BOOST_AUTO_TEST_SUITE(placement_corpus_test)

BOOST_AUTO_TEST_CASE(the_corpus_holds_every_shape) {
  const std::vector<std::string> expected{"2dc_6n_16t", "3n_16t", "3n_1t", "6n_16t", "6n_1t"};
  BOOST_TEST(shapes() == expected, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(placement_equals_describering_for_every_keyspace) {
  std::size_t compared_ranges = 0, compared_keyspaces = 0;
  for (const auto& shape : shapes()) {
    const auto snapshot = snapshot_of(shape);
    const auto& ring = snapshot.ring;
    for (const auto& ks : *snapshot.cluster.keyspaces) {
      BOOST_TEST_CONTEXT(shape << " keyspace " << ks.name << " " << ks.replication) {
        const std::string rc = read(shape, "describering_" + ks.name + ".rc");
        if (ks.replication.kind == cla::StrategyKind::local) {
          // Cassandra refuses: "There is no ring for the keyspace" (exit 2); nothing to place.
          BOOST_TEST(rc == "2\n");
          BOOST_TEST(snapshot.placements.find(ks.replication) == nullptr);
          continue;
        }
        BOOST_REQUIRE(rc == "0\n");
        const auto& described =
            required(cla::parse_nodetool_describering(read(shape, "describering_" + ks.name + ".stdout")),
                     "describering");
        BOOST_TEST(described.schema_version == snapshot.cluster.reachable_schema_versions().at(0));
        const cla::Placement* placement = snapshot.placements.find(ks.replication);
        BOOST_REQUIRE(placement != nullptr);
        BOOST_REQUIRE(described.ranges.size() == ring.tokens.size());
        std::map<std::string, std::size_t> index_of_end;
        for (std::size_t i = 0; i < ring.tokens.size(); ++i) index_of_end[ring.tokens[i]] = i;
        for (const auto& range : described.ranges) {
          BOOST_TEST_CONTEXT("range " << range) {
            BOOST_REQUIRE(index_of_end.count(range.end_token) == 1u);
            const std::size_t i = index_of_end.at(range.end_token);
            BOOST_TEST(ring.range_start(i) == range.start_token);
            std::vector<std::string> computed;
            for (auto e : placement->replicas[i]) computed.push_back(ring.endpoints[e].address);
            BOOST_TEST(computed == range.endpoints, boost::test_tools::per_element());
            BOOST_TEST(range.rpc_endpoints == range.endpoints, boost::test_tools::per_element());
            BOOST_REQUIRE(range.endpoint_details.size() == range.endpoints.size());
            for (std::size_t k = 0; k < range.endpoints.size(); ++k) {
              const auto endpoint = ring.find(range.endpoints[k]);
              BOOST_REQUIRE(endpoint.has_value());
              BOOST_TEST(range.endpoint_details[k].host == range.endpoints[k]);
              BOOST_TEST(range.endpoint_details[k].datacenter == ring.endpoints[*endpoint].datacenter);
              BOOST_TEST(range.endpoint_details[k].rack == ring.endpoints[*endpoint].rack);
            }
            ++compared_ranges;
          }
        }
        ++compared_keyspaces;
      }
    }
  }
  BOOST_TEST_MESSAGE("placement equals describering: " << compared_keyspaces << " keyspaces, "
                                                       << compared_ranges << " ranges");
  BOOST_TEST(compared_keyspaces >= 30u);
}

BOOST_AUTO_TEST_CASE(every_capture_of_a_shape_is_read) {
  for (const auto& shape : shapes()) {
    BOOST_TEST_CONTEXT(shape) {
      std::set<std::string> files;
      for (const auto& entry : fs::directory_iterator(placement_dir() / shape))
        files.insert(entry.path().filename().string());
      const auto snapshot = snapshot_of(shape);
      std::set<std::string> expected;
      std::vector<std::string> names{"describecluster", "ring", "status"};
      if (files.count("describecluster_node_down.stdout"))
        names.insert(names.end(), {"describecluster_node_down", "ring_node_down", "status_node_down"});
      for (const auto& ks : *snapshot.cluster.keyspaces) names.push_back("describering_" + ks.name);
      for (const auto& name : names)
        for (const char* suffix : {".stdout", ".stderr", ".rc"}) expected.insert(name + suffix);
      BOOST_TEST(files == expected, boost::test_tools::per_element());
      for (const char* name : {"status", "status_node_down"})
        if (files.count(std::string(name) + ".stdout"))
          required(cla::parse_nodetool_status(read(shape, std::string(name) + ".stdout")), name);
    }
  }
}

// The verdict on the real 3-node cluster (16 tokens) for node 127.0.0.3, all up and with 127.0.0.2 killed.
BOOST_AUTO_TEST_CASE(verdicts_on_the_real_cluster) {
  const auto snapshot = snapshot_of("3n_16t");
  const auto all_up = required(cla::parse_nodetool_status(read("3n_16t", "status.stdout")), "status");
  const auto node2_down =
      required(cla::parse_nodetool_status(read("3n_16t", "status_node_down.stdout")), "status");
  const cla::VerdictNode self{"127.0.0.3", "dc1"};
  auto names = [](const std::vector<cla::UnprotectableKeyspace>& u) {
    std::string out;
    for (const auto& k : u) out += (out.empty() ? "" : " ") + k.keyspace;
    return out;
  };
  const auto safe = cla::evaluate_replication(snapshot, all_up, self, cla::Consistency::local_quorum);
  BOOST_TEST(safe.safe, safe);
  // RF 1 and RF 2 at a quorum, and {dc1: 4} on 3 nodes (3 replicas: LOCAL_QUORUM needs all 3).
  BOOST_TEST(names(safe.unprotectable) == "nts_dc1_2 nts_dc1_4 simple_1 simple_2 system_auth system_traces");
  BOOST_TEST(safe.keyspaces_checked == 2u);  // lifecycle, system_distributed
  const auto lq = cla::evaluate_replication(snapshot, node2_down, self, cla::Consistency::local_quorum);
  BOOST_REQUIRE(lq.short_range.has_value());
  BOOST_TEST(lq.short_range->keyspace == "lifecycle");
  BOOST_TEST((lq.short_range->needed == 2 && lq.short_range->available == 1));
  BOOST_TEST(lq.short_range->down == std::vector<std::string>{"127.0.0.2"}, boost::test_tools::per_element());
  // At LOCAL_ONE only RF 1 is unprotectable; the RF 2 keyspaces then have ranges whose other replica is down.
  const auto lo = cla::evaluate_replication(snapshot, node2_down, self, cla::Consistency::local_one);
  BOOST_TEST(names(lo.unprotectable) == "simple_1 system_auth");
  BOOST_REQUIRE(lo.short_range.has_value());
  BOOST_TEST(lo.short_range->keyspace == "nts_dc1_2");
  BOOST_TEST((lo.short_range->needed == 1 && lo.short_range->available == 0));
  // The describecluster of that moment files 127.0.0.2 under UNREACHABLE: no schema disagreement.
  const auto down_snapshot = snapshot_of("3n_16t", "_node_down");
  BOOST_TEST(cla::evaluate_replication(down_snapshot, node2_down, self, cla::Consistency::one).reason !=
             cla::VerdictReason::schema_disagreement);
}

BOOST_AUTO_TEST_SUITE_END()
