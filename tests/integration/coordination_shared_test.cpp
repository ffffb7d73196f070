// A shared event in coordinated mode (SPEC 9), the emulator playing Azure's documented reading
// (--shared-approval any: the first approval starts the event for every listed VM): the three VMs of one
// fault domain drain, one agent approves once every one of them is drained, and the event ends before its
// NotBefore.
#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>

#include "agent_scenario.hpp"
#include "coordinated_fleet.hpp"
#include "state/coordination_decisions.hpp"

namespace {

using namespace std::chrono_literals;
using cla::test::CoordinatedFleet;
using cla::test::log_time;

constexpr std::int64_t kNotBeforeIn = 20;  // the drains start 10 s before (drain_lead_s)
constexpr auto kSlowGossip = 2000ms;       // vm2 drains last: the others must wait for it

}  // namespace

BOOST_AUTO_TEST_SUITE(coordination_shared_test)

BOOST_AUTO_TEST_CASE(fault_domain_event_is_approved_once_by_the_first_listed_vm_after_all_three_drained) {
  CoordinatedFleet fleet(3, true, 3, {"--shared-approval", "any"});
  fleet.add_sim_fault(2, "disablegossip", {{"latency_ms", kSlowGossip.count()}});
  fleet.start_all();
  const std::string id = fleet.add_event({{"type", "Freeze"},
                                          {"resources", {"vm0", "vm1", "vm2"}},
                                          {"not_before_in_s", kNotBeforeIn},
                                          {"duration_s", 2},
                                          {"complete_after_s", 1}});
  std::vector<cla::WallTime> drained, restored;
  for (int vm = 0; vm < 3; ++vm) {
    fleet.wait_for(vm, "drain_started", fleet.until_drain_due(id), id);
    const auto slow = vm == 2 ? kSlowGossip : 0ms;
    drained.push_back(log_time(fleet.wait_for(vm, "drain_completed", fleet.within_a_poll() + slow, id)));
  }
  for (int vm = 0; vm < 3; ++vm)
    restored.push_back(log_time(fleet.wait_for(vm, "restore_completed", fleet.until_restored(id))));

  const auto approvals = fleet.emulator().approvals();
  BOOST_TEST_REQUIRE(approvals.size() == 1u, boost::json::serialize(approvals));
  BOOST_TEST(approvals[0].at("vm").as_string() == "vm0");  // the first listed VM with a member key
  const auto approved_at = cla::test::emulator_time(approvals[0]);
  for (const auto t : drained) BOOST_TEST((t <= approved_at), "a listed VM started before it was drained");
  // The approval came before NotBefore, so the event started then and every node was back before the event
  // would have ended unapproved (started at NotBefore): the approval saved the wait.
  BOOST_TEST((approved_at < fleet.not_before(id)));
  for (const auto t : restored)
    BOOST_TEST((t < fleet.gone_by(id)), "a node was back only when the event would have ended unapproved");
  BOOST_TEST(!fleet.log(0, "shared_approval_waiting", id).empty());  // vm0 waited for vm2
  for (int vm = 0; vm < 3; ++vm) BOOST_TEST(fleet.node_restored(vm));
}

BOOST_AUTO_TEST_CASE(a_listed_vm_without_member_key_holds_the_approval_until_not_before) {
  CoordinatedFleet fleet(3, true, 3, {"--shared-approval", "any"});
  fleet.start(0);
  fleet.start(1);  // vm2 runs no agent
  const std::string id = fleet.add_event({{"type", "Freeze"},
                                          {"resources", {"vm0", "vm1", "vm2"}},
                                          {"not_before_in_s", 12},
                                          {"duration_s", 1},
                                          {"complete_after_s", 1}});
  fleet.wait_for(0, "drain_started", fleet.until_drain_due(id), id);
  fleet.wait_for(0, "drain_completed", fleet.within_a_poll(), id);
  // Its shared-approval check reads etcd.
  const auto waiting =
      fleet.wait_for(0, "shared_approval_waiting", fleet.within_a_poll() + fleet.etcd_request_ceiling(), id);
  BOOST_TEST(waiting.at("without_member_key").as_array() == boost::json::array{"vm2"});
  fleet.wait_for(0, "restore_completed", fleet.until_restored(id));
  BOOST_TEST(fleet.emulator().approvals().empty());
}

// An older agent's flat member key (members/vm1, its DC in its value) still counts during an upgrade: with
// approve_shared_events (VMs without a member key are not waited for), vm0 must wait for vm1, listed and not
// drained, and not read it as a VM without a member key. vm0's read of its DC's members (members/dc1/) finds
// the flat key among every member key's name and reads the whole prefix instead.
BOOST_AUTO_TEST_CASE(an_older_agents_flat_member_key_holds_the_approval) {
  CoordinatedFleet fleet(2, true, 3, {"--shared-approval", "any"});
  fleet.configure({{"approve_shared_events", true}});
  cla::MemberRecord older;
  older.vm = "vm1";
  older.fault_domain = 1;
  older.datacenter = "dc1";
  older.rack = "rack2";
  older.host_id = "00000000-0000-4000-8000-00000000001d";
  fleet.etcd().put("/cassandra-lifecycle-agent/c1/members/vm1", boost::json::serialize(cla::to_json(older)));
  fleet.start(0);  // vm1's agent is the older one: only its key plays it
  const std::string id = fleet.add_event({{"type", "Freeze"},
                                          {"resources", {"vm0", "vm1"}},
                                          {"not_before_in_s", 12},
                                          {"duration_s", 1},
                                          {"complete_after_s", 1}});
  fleet.wait_for(0, "drain_completed", fleet.until_drain_due(id) + fleet.within_a_poll(), id);
  const auto waiting =
      fleet.wait_for(0, "shared_approval_waiting", fleet.within_a_poll() + fleet.etcd_request_ceiling(), id);
  BOOST_TEST(waiting.at("waiting_for").as_array() == boost::json::array{"vm1"});
  BOOST_TEST(waiting.at("without_member_key").as_array().empty());
  fleet.wait_for(0, "restore_completed", fleet.until_restored(id));
  BOOST_TEST(fleet.emulator().approvals().empty());
}

BOOST_AUTO_TEST_SUITE_END()
