// The drain record beside a forced or emergency drain (SPEC 9, issue 41): written until etcd takes it, not
// once, and naming the node even when nodetool could not yet (an emergency at start-up with JMX hung): other
// agents count a node out only by its record's rack and host id.
#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>

#include "agent_scenario.hpp"
#include "coordinated_fleet.hpp"
#include "etcd_client_support.hpp"

namespace {

using namespace std::chrono_literals;
using cla::test::CoordinatedFleet;
using cla::test::has_key;

// The longest pause between two writes of a record etcd did not take (Daemon::retry_drain_record).
constexpr auto kRecordRetryMax = 10s;

std::string drain_key(const std::string& vm) {
  std::string key(CoordinatedFleet::kDrains);
  key.append(vm);
  return key;
}

std::string known_key(const std::string& vm) {
  std::string key("/cassandra-lifecycle-agent/c1/known/dc1/");
  key.append(vm);
  return key;
}

boost::json::object record_of(CoordinatedFleet& fleet, const std::string& key) {
  const auto kvs = fleet.etcd().get_prefix(key);
  BOOST_TEST_REQUIRE(kvs.size() == 1u);
  return boost::json::parse(kvs.front().second).as_object();
}

boost::json::object hardware_failure(const std::string& vm, std::int64_t duration) {
  return {{"type", "Freeze"}, {"resources", {vm}}, {"started", true}, {"duration_s", duration}};
}

}  // namespace

BOOST_AUTO_TEST_SUITE(coordination_record_test)

// etcd has lost its quorum when the node's event appears Started: the emergency drain goes on, and its record
// is written once etcd is back, while the node is still out.
BOOST_AUTO_TEST_CASE(an_emergency_drains_record_is_written_once_etcd_is_back) {
  CoordinatedFleet fleet(1, true);
  fleet.start(0);
  // Two of three members gone: no quorum, every request fails; one back restores it.
  fleet.etcd().kill(0);
  fleet.etcd().kill(1);
  const std::string id = fleet.add_event(hardware_failure("vm0", 60));
  fleet.wait_for(0, "drain_started", fleet.within_a_poll(), id);
  fleet.wait_for(0, "drain_record_retried",
                 kRecordRetryMax + fleet.admission_ceiling() + fleet.within_a_poll());
  fleet.etcd().restart(0);
  BOOST_TEST_REQUIRE(cla::test::wait_until([&] { return has_key(fleet.etcd(), drain_key("vm0")); },
                                           kRecordRetryMax + fleet.admission_ceiling() + cla::test::kMargin));
  const auto record = record_of(fleet, drain_key("vm0"));
  BOOST_TEST(record.at("rack").as_string() == "rack1");
  BOOST_TEST(!record.at("host_id").as_string().empty());
  BOOST_TEST(fleet.log(0, "restore_started").empty(), "recorded while the node is still out");
}

// The agent restarts with JMX hung while its node's event is Started: nodetool names nothing, and the
// emergency record takes the node's DC, rack and host id from the known/dc1/vm0 record its first run wrote.
BOOST_AUTO_TEST_CASE(an_emergency_at_start_up_with_jmx_hung_records_the_node_from_known) {
  CoordinatedFleet fleet(1, true);
  fleet.start(0);
  BOOST_TEST_REQUIRE(cla::test::wait_until([&] { return has_key(fleet.etcd(), known_key("vm0")); },
                                           fleet.within_a_poll() + fleet.admission_ceiling()));
  const auto known = record_of(fleet, known_key("vm0"));
  BOOST_TEST(fleet.stop(0) == 0);
  for (const char* read : {"statusgossip", "statusbinary", "info", "status"})
    fleet.add_sim_fault(0, read, {{"latency_ms", 60000}});
  const std::string id = fleet.add_event(hardware_failure("vm0", 60));
  fleet.start(0);
  fleet.wait_for(0, "startup_observation_abandoned", fleet.within_a_poll(), id);
  fleet.wait_for(0, "drain_started", fleet.within_a_poll(), id);
  BOOST_TEST_REQUIRE(cla::test::wait_until([&] { return has_key(fleet.etcd(), drain_key("vm0")); },
                                           fleet.within_a_poll() + fleet.admission_ceiling()));
  const auto record = record_of(fleet, drain_key("vm0"));
  BOOST_TEST(record.at("rack").as_string() == known.at("rack").as_string());
  BOOST_TEST(record.at("datacenter").as_string() == known.at("datacenter").as_string());
  BOOST_TEST(record.at("host_id").as_string() == known.at("host_id").as_string());
  BOOST_TEST(!record.at("host_id").as_string().empty());
}

// Restarted with JMX hung and nothing listed: its member key is keyed by the DC known/dc1/vm0 names. Without
// it other agents would take its drain record (a node catching up, say) for stale once the node is UN.
BOOST_AUTO_TEST_CASE(a_restart_with_jmx_hung_keeps_a_member_key_by_the_known_dc) {
  CoordinatedFleet fleet(1, true);
  fleet.start(0);
  BOOST_TEST_REQUIRE(cla::test::wait_until([&] { return has_key(fleet.etcd(), known_key("vm0")); },
                                           fleet.within_a_poll() + fleet.admission_ceiling()));
  BOOST_TEST(fleet.stop(0) == 0);  // its lease revoked: the member key goes
  std::string member(CoordinatedFleet::kMembers);
  member.append("vm0");
  BOOST_TEST_REQUIRE(!has_key(fleet.etcd(), member));
  for (const char* read : {"statusgossip", "statusbinary", "info", "status"})
    fleet.add_sim_fault(0, read, {{"latency_ms", 60000}});
  fleet.start(0);
  // The lease's grant and the member put, each an etcd request, after the known records' read.
  BOOST_TEST(cla::test::wait_until(
      [&] { return has_key(fleet.etcd(), member); },
      fleet.within_a_poll() + fleet.admission_ceiling() + fleet.etcd_request_ceiling()));
  BOOST_TEST(fleet.log(0, "identity_from_known").size() == 1u);
}

BOOST_AUTO_TEST_SUITE_END()
