// End to end: a 4th node joining the simulated cluster (status UJ, ring rows Joining) no longer blocks every
// drain (SPEC 3.4): its pending ranges raise the writes' count, so the drain is approved while the joining
// node and the natural replicas are up, and refused (unsafe_to_drain naming keyspace and range) when the
// joining node or another replica is down.
#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>
#include <string>

#include "agent_scenario.hpp"
#include "cassandra_support.hpp"

namespace {

using namespace cla::test;
namespace json = boost::json;

constexpr const char* kJoining = "127.0.1.4";

// Adds 127.0.1.4 to rack2 of the scenario's cluster file, joining (before the agent starts).
void add_joining_node(const AgentScenario& s) {
  json::value cluster = json::parse(read_text(s.cluster_file()));
  for (auto& dc : cluster.at("datacenters").as_array())
    for (auto& rack : dc.at("racks").as_array())
      if (rack.at("name").as_string() == "rack2")
        rack.at("nodes").as_array().push_back(json::object{{"address", kJoining}, {"ring_state", "J"}});
  write_text(s.cluster_file(), json::serialize(cluster));
}

json::object freeze() {
  return {{"type", "Freeze"}, {"resources", {"vm0"}}, {"not_before_in_s", 5}, {"duration_s", 30}};
}

// The joining node added and `stopped` down, the agent's event refused: its unsafe_to_drain line, which names
// a keyspace the joining node takes ranges of and a range.
json::object unsafe_with_node_down(AgentScenario& s, const std::string& stopped) {
  add_joining_node(s);
  BOOST_REQUIRE(s.sim("stop", stopped).ok());
  s.start_agent();
  const std::string id = s.emulator().add_event(freeze());
  const auto unsafe = s.wait_for("unsafe_to_drain", s.until_drain_due(id), id);
  const std::string keyspace(unsafe.at("keyspace").as_string());
  BOOST_TEST((keyspace == "lifecycle" || keyspace == "system_distributed"), keyspace);
  BOOST_TEST(!unsafe.at("start_token").as_string().empty());
  BOOST_TEST(!unsafe.at("end_token").as_string().empty());
  return unsafe;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(agent_pending_test)

BOOST_AUTO_TEST_CASE(the_sim_prints_a_joining_node_as_cassandra_does) {
  AgentScenario s;
  add_joining_node(s);
  const auto status = s.sim("status");
  BOOST_REQUIRE(status.ok());
  BOOST_TEST(status.out.find("UJ  127.0.1.4") != std::string::npos, status.out);
  const auto ring = s.sim("ring");
  BOOST_REQUIRE(ring.ok());
  std::size_t joining_rows = 0;
  for (std::size_t at = ring.out.find(kJoining); at != std::string::npos;
       at = ring.out.find(kJoining, at + 1)) {
    const auto line = ring.out.substr(at, ring.out.find('\n', at) - at);
    BOOST_TEST(line.find(" Joining ") != std::string::npos, line);
    ++joining_rows;
  }
  BOOST_TEST(joining_rows == 16u);  // its 16 tokens
  const auto described = s.sim("describecluster");
  BOOST_REQUIRE(described.ok());
  BOOST_TEST(described.out.find("Joining: 1") != std::string::npos, described.out);
}

BOOST_AUTO_TEST_CASE(a_joining_node_up_lets_the_drain_through) {
  AgentScenario s;
  add_joining_node(s);
  s.start_agent();
  s.wait_for("schema_refreshed", kMargin);
  const std::string id = s.emulator().add_event(freeze());
  s.approved_and_started(id);
  BOOST_TEST(s.log("unsafe_to_drain").empty());
  BOOST_TEST(s.log("drain_forced_unsafe").empty());
}

// The joining node down: every natural replica is up, so reads hold, but writes of its pending ranges need
// 2 + 1 of the two other natural replicas: for writes.
BOOST_AUTO_TEST_CASE(the_joining_node_down_refuses_the_drain_for_writes) {
  AgentScenario s;
  const auto unsafe = unsafe_with_node_down(s, kJoining);
  BOOST_TEST(unsafe.at("needed") == 3);
  BOOST_TEST(unsafe.at("available") == 2);
  BOOST_TEST(unsafe.at("down") == json::array{kJoining});
  BOOST_TEST(unsafe.at("pending") == json::array{kJoining});
  BOOST_TEST(unsafe.at("for") == "writes");
  BOOST_TEST(s.emulator().approvals().empty());
}

// Another natural replica down (rack3's) in a range with the joining node pending: 1 natural + 1 pending of
// 2 + 1.
BOOST_AUTO_TEST_CASE(another_replica_down_refuses_the_drain) {
  AgentScenario s;
  const auto unsafe = unsafe_with_node_down(s, "127.0.1.3");
  BOOST_TEST(unsafe.at("down") == json::array{"127.0.1.3"});
  BOOST_TEST(unsafe.at("for") == "reads_and_writes");
  BOOST_TEST(unsafe.at("needed").as_int64() - unsafe.at("available").as_int64() == 1);
  BOOST_TEST(s.emulator().approvals().empty());
}

// The join finishes after the agent's refresh: the next check sees 127.0.1.4 UN where the refresh saw it
// joining, reads the schema again at once and judges on it (issue 40: every check said ring_changing until
// schema_refresh_s passed, and the drain was forced, never approved).
BOOST_AUTO_TEST_CASE(a_join_finished_since_the_refresh_is_read_at_the_check_not_in_five_minutes) {
  AgentScenario s;
  add_joining_node(s);
  s.start_agent();
  s.wait_for("schema_refreshed", kMargin);
  BOOST_REQUIRE(s.sim("joined", kJoining).ok());
  const std::string id = s.emulator().add_event(freeze());
  const auto refreshed = s.wait_for("schema_refresh_for_ring_change", s.until_drain_due(id));
  BOOST_TEST(refreshed.at("ring_change").as_string().find(kJoining) != std::string::npos);
  s.approved_and_started(id);
  BOOST_TEST(s.log("unsafe_to_drain").empty());
  BOOST_TEST(s.log("schema_refreshed").size() == 2u, "the start's refresh and the ring change's");
}

BOOST_AUTO_TEST_SUITE_END()
