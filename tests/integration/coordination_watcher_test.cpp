// The watcher (SPEC 9) on the 3-member loopback etcd, three VMs in three fault domains (vm i: rack i+1),
// lease TTL 5 s. An agentless VM (vm2, its agent stopped after its known record was written) listed in a
// Scheduled Freeze: from NotBefore - drain_lead_s the leader's agentless record holds rack3 out, so vm0's
// drain due meanwhile is refused (drain_not_admitted) until its forced instant; the record goes once the
// event is gone and the node is UN. The control runs the same set-up uncoordinated: vm0 drains on time, two
// racks out. Checked without the feature: with the watcher's spawn removed from Daemon::poll_loop, the
// coordinated case fails (no agentless record by NotBefore - drain_lead_s); with the record but the old stale
// rule, it fails too (vm0's admission deletes the record as stale, since vm2's node shows UN, and is
// admitted: no drain_not_admitted). Failover: the leader killed, the secondary leads within lease_ttl_s + one
// poll (+ its etcd read and transaction, + kMargin), and a new secondary is chosen; leader and secondary both
// killed, the third leads.
#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>

#include "agent_scenario.hpp"
#include "coordinated_fleet.hpp"

namespace {

using namespace std::chrono_literals;
using cla::test::CoordinatedFleet;
using cla::test::kMargin;
using cla::test::log_time;

constexpr const char* kWatcher = "/cassandra-lifecycle-agent/c1/watcher/";
constexpr std::int64_t kAgentlessNotBeforeIn = 12;  // vm2's Freeze: recorded from 2 s, Started at 12 s
constexpr std::int64_t kAgentlessFor = 8;           // and gone about 8 s + 1 s later
constexpr std::int64_t kDueNotBeforeIn = 14;        // vm0's Freeze: due at 4 s, forced at 13 s

// The VM index holding the watcher's role `role` ("leader" or "secondary"), or -1.
int holder(CoordinatedFleet& fleet, const std::string& role) {
  for (const auto& [key, value] : fleet.etcd().get_prefix(kWatcher))
    if (key.ends_with("/" + role)) {
      const std::string vm(boost::json::parse(value).at("vm").as_string());
      return std::stoi(vm.substr(2));
    }
  return -1;
}

// Both roles held (the agents' first polls: one takes the leader's key, then another the secondary's).
std::pair<int, int> roles_settled(CoordinatedFleet& fleet) {
  BOOST_REQUIRE(
      cla::test::wait_until([&] { return holder(fleet, "leader") >= 0 && holder(fleet, "secondary") >= 0; },
                            2 * fleet.within_a_poll() + 2 * fleet.admission_ceiling()));
  return {holder(fleet, "leader"), holder(fleet, "secondary")};
}

bool logged_role(const CoordinatedFleet& fleet, int vm, const std::string& role) {
  for (const auto& line : fleet.log(vm, "watcher_role"))
    if (line.at("role") == role.c_str()) return true;
  return false;
}

// The agent logs its role once its transaction's answer is back, which can be after the test reads the key
// the transaction wrote: the answer's way back is within one etcd request's ceiling.
bool logged_role_within(const CoordinatedFleet& fleet, int vm, const std::string& role) {
  return cla::test::wait_until([&] { return logged_role(fleet, vm, role); }, fleet.etcd_request_ceiling());
}

// The leader's key gone with its lease (at most lease_ttl_s after the kill), then at the next poll one etcd
// read and one transaction: the role's key taken.
std::chrono::milliseconds takeover_within(const CoordinatedFleet& fleet) {
  return fleet.lease_ttl() + CoordinatedFleet::kPollInterval + fleet.admission_ceiling() + kMargin;
}

std::optional<boost::json::object> agentless_record(CoordinatedFleet& fleet, const std::string& vm) {
  for (const auto& [key, value] : fleet.etcd().get_prefix(CoordinatedFleet::kDrains))
    if (key.ends_with("/" + vm)) {
      auto record = boost::json::parse(value).as_object();
      if (record.contains("agentless")) return record;
    }
  return std::nullopt;
}

// vm2's agent stopped once known/vm2 names its node, then vm2's and vm0's Freezes posted: their ids.
std::pair<std::string, std::string> agentless_neighbour(CoordinatedFleet& fleet, bool coordinated) {
  fleet.start_all();
  if (coordinated)
    BOOST_REQUIRE(cla::test::wait_until(
        [&] {
          for (const auto& [key, value] : fleet.etcd().get_prefix("/cassandra-lifecycle-agent/c1/known/"))
            if (key.ends_with("/vm2") && value.find("\"host_id\":\"\"") == std::string::npos) return true;
          return false;
        },
        fleet.within_a_poll() + fleet.admission_ceiling()));
  BOOST_REQUIRE(fleet.stop(2) == 0);
  const std::string agentless = fleet.add_event({{"type", "Freeze"},
                                                 {"resources", {"vm2"}},
                                                 {"not_before_in_s", kAgentlessNotBeforeIn},
                                                 {"duration_s", kAgentlessFor},
                                                 {"complete_after_s", 1}});
  const std::string due = fleet.add_event({{"type", "Freeze"},
                                           {"resources", {"vm0"}},
                                           {"not_before_in_s", kDueNotBeforeIn},
                                           {"duration_s", 1},
                                           {"complete_after_s", 1}});
  return {agentless, due};
}

}  // namespace

BOOST_AUTO_TEST_SUITE(coordination_watcher_test)

BOOST_AUTO_TEST_CASE(control_uncoordinated_the_other_rack_drains_during_the_agentless_vms_window) {
  CoordinatedFleet fleet(3, false);
  const auto [agentless, due] = agentless_neighbour(fleet, false);
  const auto drained = fleet.wait_for(0, "drain_started", fleet.until_drain_due(due), due);
  BOOST_TEST(
      !drained.at("forced_unsafe").as_bool());  // on time, while vm2's maintenance is due: two racks out
  BOOST_TEST((log_time(drained) < fleet.not_before(agentless)));
}

BOOST_AUTO_TEST_CASE(the_leader_holds_an_agentless_vms_rack_out_of_admission_until_its_node_is_back) {
  CoordinatedFleet fleet(3, true);
  const auto [agentless, due] = agentless_neighbour(fleet, true);
  // From NotBefore - drain_lead_s (at a poll; the leader's read and write), the record listing the event.
  std::optional<boost::json::object> record;
  BOOST_REQUIRE(cla::test::wait_until([&] { return (record = agentless_record(fleet, "vm2")).has_value(); },
                                      fleet.until_drain_due(agentless)));
  BOOST_TEST(record->at("agentless").as_bool());
  BOOST_TEST(record->at("rack") == "rack3");
  BOOST_TEST(record->at("events") == boost::json::array{agentless.c_str()});
  // vm0's drain, due meanwhile, is refused: rack3 is out.
  const auto refused = fleet.wait_for(0, "drain_not_admitted", fleet.until_drain_due(due), due);
  BOOST_TEST(refused.at("out_racks") == boost::json::array{"rack3"}, boost::json::serialize(refused));
  BOOST_TEST(agentless_record(fleet, "vm2").has_value());  // not deleted as stale by vm0's admission
  // agentless_impact logged once for the event, by the leader, error level, never before NotBefore -
  // drain_lead_s (NotBefore as served).
  std::size_t impacts = 0;
  for (int vm : {0, 1})
    for (const auto& line : fleet.log(vm, "agentless_impact", agentless)) {
      ++impacts;
      BOOST_TEST(line.at("level") == "error");
      BOOST_TEST(line.at("vm") == "vm2");
      BOOST_TEST((log_time(line) >= cla::test::not_before_of(line) - fleet.drain_lead()));
    }
  BOOST_TEST(impacts == 1u);
  // vm0 goes at its forced instant (never approved), as with any refusal.
  const auto drained = fleet.wait_for(0, "drain_started", fleet.until_forced(due), due);
  BOOST_TEST(drained.at("forced_unsafe").as_bool());
  // The record goes once the event is gone and a status taken after shows vm2's node UN (the next poll's).
  BOOST_TEST(cla::test::wait_until([&] { return !agentless_record(fleet, "vm2"); },
                                   fleet.until_restored(agentless) + fleet.admission_ceiling()));
  const auto view = fleet.fleet_json(0);
  BOOST_TEST(!view.at("watcher").at("dc1").at("leader").is_null());
}

BOOST_AUTO_TEST_CASE(the_leader_killed_the_secondary_leads_within_a_lease_and_a_poll) {
  CoordinatedFleet fleet(3, true);
  fleet.start_all();
  const auto [leader, secondary] = roles_settled(fleet);
  BOOST_TEST(leader != secondary);
  const int third = 3 - leader - secondary;
  fleet.kill(leader);
  BOOST_TEST(
      cla::test::wait_until([&] { return holder(fleet, "leader") == secondary; }, takeover_within(fleet)));
  BOOST_TEST(logged_role_within(fleet, secondary, "leader"));
  // A new secondary: the third agent, in another fault domain than the new leader's, at its next step.
  BOOST_TEST(
      cla::test::wait_until([&] { return holder(fleet, "secondary") == third; },
                            fleet.idle_watch_interval() + fleet.within_a_poll() + fleet.admission_ceiling()));
  const auto view = fleet.fleet_json(third);
  BOOST_TEST(view.at("watcher").at("dc1").at("leader").at("vm") ==
             ("vm" + std::to_string(secondary)).c_str());
  BOOST_TEST(view.at("watcher").at("dc1").at("secondary").at("vm") == ("vm" + std::to_string(third)).c_str());
}

BOOST_AUTO_TEST_CASE(leader_and_secondary_killed_the_third_agent_leads) {
  CoordinatedFleet fleet(3, true);
  fleet.start_all();
  const auto [leader, secondary] = roles_settled(fleet);
  const int third = 3 - leader - secondary;
  fleet.kill(leader);
  fleet.kill(secondary);
  // Without a role, the third agent looks every idle_watch_interval: at its first step after both keys left.
  BOOST_TEST(cla::test::wait_until([&] { return holder(fleet, "leader") == third; },
                                   takeover_within(fleet) + fleet.idle_watch_interval()));
  BOOST_TEST(logged_role_within(fleet, third, "leader"));
}

BOOST_AUTO_TEST_SUITE_END()
