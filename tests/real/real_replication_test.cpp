// The replication-exact gate on real Cassandra (SPEC 3.4, issue 22): the placement computed from the live
// ring equals `nodetool describering` for every keyspace; the keyspaces that cannot be protected are reported
// once per refresh (system_auth at SimpleStrategy 1; NTS {dc1: 2} at LOCAL_QUORUM, not at LOCAL_ONE); with
// rack2's node down, rack3's agent drains at LOCAL_ONE and waits at LOCAL_QUORUM, naming a keyspace and a
// range.
#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>
#include <map>
#include <set>

#include "agent_scenario.hpp"
#include "cassandra/gate/replication_verdict.hpp"
#include "cassandra/nodetool_output/describecluster_parser.hpp"
#include "cassandra/nodetool_output/describering_parser.hpp"
#include "cassandra/nodetool_output/ring_parser.hpp"
#include "real_agent.hpp"
#include "real_cluster.hpp"

namespace {

using namespace std::chrono_literals;
using namespace cla::test::real;
namespace json = boost::json;

template <class T>
T required(const cla::Result<T>& parsed, const std::string& what) {
  BOOST_REQUIRE_MESSAGE(parsed.ok(), what << ": " << (parsed.ok() ? "" : parsed.error().message));
  return parsed.value();
}

void cql(const std::string& statement) {
  require_ok(cluster({"cql", node_address(1), statement}, 120s));
}

// Agent start-up (statusgossip, statusbinary) and the start refresh (describecluster, ring, status, info):
// six nodetool JVMs of 2-16 s each on this loaded machine.
constexpr auto kRefreshLimit = 240s;

// The keyspace_unprotectable lines of one refresh (the agent's first), by keyspace.
std::map<std::string, json::object> unprotectable_at_start(const RealAgent& agent) {
  const auto refreshed = agent.wait_for("schema_refreshed", kRefreshLimit);
  std::map<std::string, json::object> by_keyspace;
  for (const auto& line : agent.log("keyspace_unprotectable")) {
    const std::string keyspace(line.at("keyspace").as_string());
    BOOST_TEST(by_keyspace.count(keyspace) == 0u, keyspace << " reported twice in one refresh");
    by_keyspace[keyspace] = line;
  }
  BOOST_TEST(refreshed.at("unprotectable").to_number<std::size_t>() == by_keyspace.size());
  return by_keyspace;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(real_replication_test)

BOOST_FIXTURE_TEST_CASE(placement_from_the_live_ring_equals_describering_for_every_keyspace, RealCase) {
  touched = {};
  const std::string node = node_address(1);
  const auto described = nodetool(node, "describecluster");
  const auto ring = nodetool(node, "ring");
  require_ok(described);
  require_ok(ring);
  const auto snapshot =
      required(cla::make_replication_snapshot(
                   required(cla::parse_nodetool_describecluster(described.out), "describecluster"),
                   required(cla::parse_nodetool_ring(ring.out), "ring")),
               "snapshot");
  std::size_t keyspaces = 0;
  for (const auto& ks : *snapshot.cluster.keyspaces) {
    const cla::Placement* placement = snapshot.placements.find(ks.replication);
    if (!placement) continue;  // LocalStrategy: Cassandra has no ring for it either
    BOOST_TEST_CONTEXT("keyspace " << ks.name << " " << ks.replication) {
      const auto out = cluster({"nodetool", node, "describering", ks.name});
      require_ok(out);
      const auto ranges = required(cla::parse_nodetool_describering(out.out), "describering").ranges;
      BOOST_REQUIRE(ranges.size() == snapshot.ring.tokens.size());
      std::map<std::string, std::size_t> index_of_end;
      for (std::size_t i = 0; i < snapshot.ring.tokens.size(); ++i) index_of_end[snapshot.ring.tokens[i]] = i;
      for (const auto& range : ranges) {
        BOOST_REQUIRE(index_of_end.count(range.end_token) == 1u);
        const std::size_t i = index_of_end.at(range.end_token);
        std::vector<std::string> computed;
        for (auto e : placement->replicas[i]) computed.push_back(snapshot.ring.endpoints[e].address);
        BOOST_TEST(computed == range.endpoints, boost::test_tools::per_element());
      }
      ++keyspaces;
    }
  }
  BOOST_TEST_MESSAGE("placement equals describering for " << keyspaces << " keyspaces");
  BOOST_TEST(keyspaces >= 4u, "system_traces, system_distributed, system_auth, lifecycle at least");
}

BOOST_FIXTURE_TEST_CASE(unprotectable_keyspaces_are_reported_once_per_refresh, RealCase) {
  touched = {};
  cql("CREATE KEYSPACE IF NOT EXISTS nts_dc1_2 WITH replication = "
      "{'class': 'NetworkTopologyStrategy', 'dc1': 2}");
  auto emulator = start_emulator();
  {
    RealAgent agent(*emulator, 3, {});
    agent.start();
    const auto found = unprotectable_at_start(agent);
    BOOST_REQUIRE(found.count("system_auth") == 1u);
    const auto& auth = found.at("system_auth");
    BOOST_TEST(auth.at("level") == "warning");
    BOOST_TEST(auth.at("class") == "SimpleStrategy");
    BOOST_TEST(auth.at("rf") == 1);
    BOOST_TEST(auth.at("consistency") == "LOCAL_QUORUM");
    BOOST_REQUIRE(found.count("nts_dc1_2") == 1u);
    BOOST_TEST(found.at("nts_dc1_2").at("rf") == (json::object{{"dc1", 2}}));
    BOOST_TEST(found.count("lifecycle") == 0u);
    BOOST_TEST(agent.stop() == 0);
  }
  {
    RealAgent agent(*emulator, 3, {}, {{"consistency", "LOCAL_ONE"}});
    agent.start();
    const auto found = unprotectable_at_start(agent);
    BOOST_TEST(found.count("system_auth") == 1u, "RF 1 cannot keep even one replica without its node");
    BOOST_TEST(found.count("nts_dc1_2") == 0u, "two replicas keep LOCAL_ONE without this node");
    BOOST_TEST(agent.stop() == 0);
  }
  cql("DROP KEYSPACE nts_dc1_2");
}

// As docs/gate.md advises: system_traces (SimpleStrategy 2) and system_distributed move to NTS {dc1: 3} first,
// else a range of system_traces that rack2 and rack3 hold alone keeps no replica and LOCAL_ONE is unsafe too.
BOOST_FIXTURE_TEST_CASE(rack2_down_rack3_drains_at_local_one_and_waits_at_local_quorum, RealCase) {
  touched = {2, 3};
  for (const char* keyspace : {"system_traces", "system_distributed"})
    cql(std::string("ALTER KEYSPACE ") + keyspace +
        " WITH replication = {'class': 'NetworkTopologyStrategy', 'dc1': 3}");
  const std::string rack2 = node_address(2), rack3 = node_address(3);
  take_out(rack2, rack3);

  auto emulator = start_emulator();
  // Due at once; the forced drain only at NotBefore - 5 s.
  constexpr int notice_s = 600, lead_s = 595, duration_s = 5, complete_after_s = 3;
  const json::object policy{{"drain_lead_s", lead_s}, {"unsafe_drain_lead_s", 5}};
  {
    RealAgent agent(*emulator, 3, policy, {{"consistency", "LOCAL_ONE"}});
    agent.start();
    const std::string id = add_freeze(*emulator, "vm3", notice_s, duration_s, complete_after_s);
    agent.wait_for("drain_completed", kRefreshLimit + 300s, id);
    agent.wait_for("event_approved", 60s, id);
    BOOST_TEST(agent.log("unsafe_to_drain").empty());
    BOOST_TEST(agent.log("drain_forced_unsafe").empty());
    agent.wait_for("restore_completed", std::chrono::seconds(duration_s + complete_after_s) + 240s);
    agent.report_timings("LOCAL_ONE with rack2 down");
    BOOST_TEST(agent.stop() == 0);
  }
  RealAgent agent(*emulator, 3, policy);
  agent.start();
  const std::string id = add_freeze(*emulator, "vm3", notice_s, duration_s, complete_after_s);
  const auto unsafe = agent.wait_for("unsafe_to_drain", kRefreshLimit, id);
  BOOST_TEST_MESSAGE("unsafe_to_drain: " << json::serialize(unsafe));
  BOOST_TEST(!unsafe.at("keyspace").as_string().empty());
  BOOST_TEST(!unsafe.at("start_token").as_string().empty());
  BOOST_TEST(!unsafe.at("end_token").as_string().empty());
  BOOST_TEST(unsafe.at("needed") == 2);
  BOOST_TEST(unsafe.at("available") == 1);
  BOOST_TEST(unsafe.at("down") == (json::array{json::string(rack2)}));
  BOOST_TEST(!agent.find("drain_started", id));
  BOOST_TEST(emulator->approvals().size() == 1u, "only the LOCAL_ONE drain's approval");
  emulator->cancel_event(id);
  BOOST_TEST(agent.stop() == 0);
}

BOOST_AUTO_TEST_SUITE_END()
