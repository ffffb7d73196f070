// A shared event in coordinated mode (SPEC 9), the emulator playing Azure's documented reading
// (--shared-approval any: the first approval starts the event for every listed VM): the three VMs of one
// fault domain drain, one agent approves once every one of them is drained, and the event ends before its
// NotBefore.
#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>

#include "agent_scenario.hpp"
#include "coordinated_fleet.hpp"

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
  const auto created = cla::WallClock::now();
  const std::string id = fleet.emulator().add_event({{"type", "Freeze"},
                                                     {"resources", {"vm0", "vm1", "vm2"}},
                                                     {"not_before_in_s", kNotBeforeIn},
                                                     {"duration_s", 2},
                                                     {"complete_after_s", 1}});
  const auto limit = std::chrono::seconds(kNotBeforeIn);
  std::vector<cla::WallTime> drained;
  for (int vm = 0; vm < 3; ++vm)
    drained.push_back(log_time(fleet.wait_for(vm, "drain_completed", limit, id)));
  for (int vm = 0; vm < 3; ++vm) fleet.wait_for(vm, "restore_completed", limit);
  const auto gone = cla::WallClock::now();

  const auto approvals = fleet.emulator().approvals();
  BOOST_TEST_REQUIRE(approvals.size() == 1u, boost::json::serialize(approvals));
  BOOST_TEST(approvals[0].at("vm").as_string() == "vm0");  // the first listed VM with a member key
  const auto approved_at = cla::test::emulator_time(approvals[0]);
  for (const auto t : drained) BOOST_TEST((t <= approved_at), "a listed VM started before it was drained");
  // The wave step ended (every node back) before NotBefore: the approval saved the wait.
  BOOST_TEST((gone < created + std::chrono::seconds(kNotBeforeIn)));
  BOOST_TEST(!fleet.log(0, "shared_approval_waiting", id).empty());  // vm0 waited for vm2
  for (int vm = 0; vm < 3; ++vm) BOOST_TEST(fleet.node_restored(vm));
}

BOOST_AUTO_TEST_CASE(a_listed_vm_without_member_key_holds_the_approval_until_not_before) {
  CoordinatedFleet fleet(3, true, 3, {"--shared-approval", "any"});
  fleet.start(0);
  fleet.start(1);  // vm2 runs no agent
  const std::string id = fleet.emulator().add_event({{"type", "Freeze"},
                                                     {"resources", {"vm0", "vm1", "vm2"}},
                                                     {"not_before_in_s", 12},
                                                     {"duration_s", 1},
                                                     {"complete_after_s", 1}});
  const auto waiting = fleet.wait_for(0, "shared_approval_waiting", 12s, id);
  BOOST_TEST(waiting.at("without_member_key").as_array() == boost::json::array{"vm2"});
  fleet.wait_for(0, "restore_completed", 20s);
  BOOST_TEST(fleet.emulator().approvals().empty());
}

BOOST_AUTO_TEST_SUITE_END()
