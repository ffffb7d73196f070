// The placement proven on real Cassandra 5.0.9: for every captured cluster shape
// (tests/data/cassandra/real-5.0/ placement/<shape>/, scripts/cluster/capture-cassandra-corpus.sh
// --placement) and every keyspace describecluster lists, the replicas computed from `ring` equal
// `describering`'s, range by range and in Cassandra's order. Only this real corpus proves placement:
// nodetool-sim's describering prints the agent's own placement back. The joining shape (a 4th node
// bootstrapping, `--joining`) also holds the pending ranges to the describering of the ring it joined.
#include <algorithm>
#include <boost/test/unit_test.hpp>
#include <filesystem>
#include <map>
#include <set>
#include <string>

#include "../cassandra_test_data.hpp"
#include "cassandra/gate/pending_ranges.hpp"
#include "cassandra/gate/replica_placement.hpp"
#include "cassandra/gate/replication_verdict.hpp"
#include "cassandra/nodetool_output/describecluster_parser.hpp"
#include "cassandra/nodetool_output/describering_parser.hpp"
#include "cassandra/nodetool_output/ring_parser.hpp"
#include "cassandra/nodetool_output/status_parser.hpp"

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

bool has_file(const std::string& shape, const std::string& file) {
  return fs::exists(placement_dir() / shape / file);
}

cla::ReplicationSnapshot snapshot_of(const std::string& shape, const std::string& suffix = "") {
  auto cluster =
      required(cla::parse_nodetool_describecluster(read(shape, "describecluster" + suffix + ".stdout")),
               shape + " describecluster");
  const auto& ring =
      required(cla::parse_nodetool_ring(read(shape, "ring" + suffix + ".stdout")), shape + " ring");
  return required(cla::make_replication_snapshot(cluster, ring), shape + " snapshot");
}

// The captures of a shape compared with describering: "" (every shape) and "_joined" (the joining shape once
// its node joined: describering_joined_KS).
std::vector<std::string> views_of(const std::string& shape) {
  std::vector<std::string> views{""};
  if (has_file(shape, "describecluster_joined.stdout")) views.push_back("_joined");
  return views;
}

std::string describering_file(const std::string& view, const std::string& keyspace) {
  return "describering" + view + "_" + keyspace;
}

// The index of the range of `ring` that holds `token`: the first token at or after it, else 0 (wraps).
std::size_t range_holding(const cla::TokenRing& ring, const std::string& token) {
  for (std::size_t i = 0; i < ring.tokens.size(); ++i)
    if (cla::compare_tokens(token, ring.tokens[i]) <= 0) return i;
  return 0;
}

const std::string kJoiningShape = "3n_16t_joining";
const std::string kJoiningNode = "127.0.0.4";

}  // namespace

BOOST_AUTO_TEST_SUITE(placement_corpus_test)

BOOST_AUTO_TEST_CASE(the_corpus_holds_every_shape) {
  const std::vector<std::string> expected{"2dc_6n_16t", "3n_16t",          "3n_16t_joining", "3n_1t",
                                          "6n_16t",     "6n_16t_racks321", "6n_1t"};
  BOOST_TEST(shapes() == expected, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(placement_equals_describering_for_every_keyspace) {
  std::size_t compared_ranges = 0, compared_keyspaces = 0;
  std::vector<std::pair<std::string, std::string>> captures;  // shape, view
  for (const auto& shape : shapes())
    for (const auto& view : views_of(shape)) captures.emplace_back(shape, view);
  for (const auto& [shape, view] : captures) {
    // (a joining shape's natural ring leaves the joining node's tokens out, as describering does)
    const auto snapshot = snapshot_of(shape, view);
    const auto& ring = snapshot.ring;
    for (const auto& ks : *snapshot.cluster.keyspaces) {
      BOOST_TEST_CONTEXT(shape << view << " keyspace " << ks.name << " " << ks.replication) {
        const std::string rc = read(shape, describering_file(view, ks.name) + ".rc");
        if (ks.replication.kind == cla::StrategyKind::local) {
          // Cassandra refuses: "There is no ring for the keyspace" (exit 2); nothing to place.
          BOOST_TEST(rc == "2\n");
          BOOST_TEST(snapshot.placements.find(ks.replication) == nullptr);
          continue;
        }
        BOOST_REQUIRE(rc == "0\n");
        const auto& described = required(
            cla::parse_nodetool_describering(read(shape, describering_file(view, ks.name) + ".stdout")),
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
      if (files.count("describecluster_joined.stdout")) {
        names.insert(names.end(), {"describecluster_joined", "ring_joined", "status_joined"});
        const auto joined = snapshot_of(shape, "_joined");
        for (const auto& ks : *joined.cluster.keyspaces)
          names.push_back(describering_file("_joined", ks.name));
      }
      for (const auto& name : names)
        for (const char* suffix : {".stdout", ".stderr", ".rc"}) expected.insert(name + suffix);
      BOOST_TEST(files == expected, boost::test_tools::per_element());
      for (const char* name : {"status", "status_node_down", "status_joined"})
        if (files.count(std::string(name) + ".stdout"))
          required(cla::parse_nodetool_status(read(shape, std::string(name) + ".stdout")), name);
    }
  }
}

// A 4th node bootstrapping into the 3-node cluster (16 tokens), streaming capped so that it stayed UJ: the
// ring lists its tokens as Joining, describering (compared above) places on the other tokens only, and the
// pending ranges put it exactly where describering_joined, captured once it had joined, places it.
BOOST_AUTO_TEST_CASE(a_joining_node_is_pending_where_it_then_replicates) {
  const auto table = required(cla::parse_nodetool_ring(read(kJoiningShape, "ring.stdout")), "ring");
  std::set<std::string> joining_tokens;
  for (const auto& row : table.rows)
    if (row.state == "Joining") {
      BOOST_TEST(row.address == kJoiningNode);
      joining_tokens.insert(row.token);
    } else {
      BOOST_TEST(row.state == "Normal");
    }
  BOOST_TEST(joining_tokens.size() == 16u);

  // The status parser reads the UJ row.
  const auto status = required(cla::parse_nodetool_status(read(kJoiningShape, "status.stdout")), "status");
  BOOST_REQUIRE(status.rows.size() == 4u);
  for (const auto& row : status.rows) {
    BOOST_TEST_CONTEXT(row.address) {
      BOOST_TEST(row.status == 'U');
      BOOST_TEST(row.state == (row.address == kJoiningNode ? 'J' : 'N'));
    }
  }

  const auto snapshot = snapshot_of(kJoiningShape);
  BOOST_TEST(!snapshot.ring.find(kJoiningNode).has_value());  // natural placement: without its tokens
  BOOST_TEST(snapshot.ring.tokens.size() == 48u);
  const auto& changes = snapshot.changes;
  BOOST_TEST(changes.joining == std::vector<std::string>{kJoiningNode}, boost::test_tools::per_element());
  BOOST_TEST((changes.leaving.empty() && changes.moving.empty()));
  const auto joining_index = changes.find(kJoiningNode);
  BOOST_REQUIRE(joining_index.has_value());

  // The split ranges' ends: every natural token and every joining one, each once, ascending.
  std::vector<std::string> bounds = snapshot.ring.tokens;
  bounds.insert(bounds.end(), joining_tokens.begin(), joining_tokens.end());
  std::sort(bounds.begin(), bounds.end(),
            [](const std::string& a, const std::string& b) { return cla::compare_tokens(a, b) < 0; });
  BOOST_REQUIRE(bounds.size() == 64u);  // no joining token equals a natural one

  // Once joined, the ring is those tokens (bootstrap kept the tokens it announced).
  BOOST_REQUIRE(has_file(kJoiningShape, "describecluster_joined.stdout"));
  const auto joined = snapshot_of(kJoiningShape, "_joined");
  BOOST_TEST(joined.ring.tokens == bounds, boost::test_tools::per_element());
  BOOST_TEST(!joined.changes.changing());

  std::size_t keyspaces = 0, pending_ranges = 0;
  for (const auto& ks : *snapshot.cluster.keyspaces) {
    const cla::Placement* natural = snapshot.placements.find(ks.replication);
    if (natural == nullptr) continue;
    BOOST_TEST_CONTEXT("keyspace " << ks.name << " " << ks.replication) {
      const auto ranges = cla::place_write_ranges(changes, snapshot.ring, *natural, ks.replication);
      BOOST_TEST(snapshot.write_ranges.at(ks.replication.placement_key()) == ranges);
      const auto described = required(
          cla::parse_nodetool_describering(read(kJoiningShape, "describering_" + ks.name + ".stdout")),
          "describering");
      const auto described_joined =
          required(cla::parse_nodetool_describering(
                       read(kJoiningShape, describering_file("_joined", ks.name) + ".stdout")),
                   "describering_joined");
      std::map<std::string, std::vector<std::string>> natural_by_end, joined_by_end;
      for (const auto& r : described.ranges) natural_by_end[r.end_token] = r.endpoints;
      for (const auto& r : described_joined.ranges) joined_by_end[r.end_token] = r.endpoints;
      BOOST_REQUIRE(joined_by_end.size() == bounds.size());
      const cla::Placement future = cla::place_replicas(changes.with_joining.at(0), ks.replication);
      const auto in_future = changes.with_joining.at(0).find(kJoiningNode);
      BOOST_REQUIRE(in_future.has_value());

      // The split ranges cover the ring: each starts where the one before ends, at every bound in turn.
      BOOST_REQUIRE(ranges.size() == bounds.size());
      std::size_t pending_here = 0;
      for (std::size_t i = 0; i < ranges.size(); ++i) {
        const auto& range = ranges[i];
        BOOST_TEST_CONTEXT("(" << range.start << ", " << range.end << "]") {
          BOOST_TEST(range.end == bounds[i]);
          BOOST_TEST(range.start == ranges[i == 0 ? ranges.size() - 1 : i - 1].end);
          // Natural replicas: describering's of the natural range holding this piece.
          std::vector<std::string> natural_addresses;
          for (auto e : range.natural) natural_addresses.push_back(changes.endpoints[e].address);
          BOOST_TEST(natural_addresses ==
                         natural_by_end.at(snapshot.ring.tokens[range_holding(snapshot.ring, range.end)]),
                     boost::test_tools::per_element());
          // Every pending replica is the joining node, ...
          for (auto e : range.pending) BOOST_TEST(e == *joining_index);
          const bool pending = !range.pending.empty();
          // ... pending exactly where the real cluster placed it once it had joined,
          const auto& after = joined_by_end.at(range.end);
          BOOST_TEST(pending == (std::find(after.begin(), after.end(), kJoiningNode) != after.end()));
          // ... and where our placement on the ring with its tokens puts it.
          const auto& replicas = future.replicas[range_holding(changes.with_joining[0], range.end)];
          BOOST_TEST(pending == (std::find(replicas.begin(), replicas.end(), *in_future) != replicas.end()));
          pending_here += pending ? 1 : 0;
        }
      }
      BOOST_TEST(pending_here >= joining_tokens.size());  // at least the ranges it will be primary for
      pending_ranges += pending_here;
      ++keyspaces;
    }
  }
  BOOST_TEST_MESSAGE("joining node pending as describering_joined places it: "
                     << keyspaces << " keyspaces, " << pending_ranges << " pending ranges");
  BOOST_TEST(keyspaces >= 7u);
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
