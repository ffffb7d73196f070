// The race of SPEC 9: two racks' agents with events due at the same instant and slow disablebinary /
// disablegossip. Uncoordinated, both pass the nodetool gate before either node is down, and both drain (two
// racks out with RF 3); coordinated through etcd, exactly one drains, the other waits and drains once the
// first rack is back.
#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>

#include "agent_scenario.hpp"
#include "coordinated_fleet.hpp"

namespace {

using namespace std::chrono_literals;
using cla::test::CoordinatedFleet;
using cla::test::log_time;

// Both events: NotBefore in 12 s, so both agents drain at NotBefore - drain_lead_s (10 s) = 2 s from now, and
// the forced drain (NotBefore - 1 s) is 9 s after that: room for the first rack to drain, be released by
// the emulator (1 s Freeze + 1 s completion after the approval) and come back.
constexpr std::int64_t kNotBeforeIn = 12;
constexpr auto kSlowStep = 1500ms;  // each of disablebinary / disablegossip: the gate checks meet in this gap

std::vector<std::string> race(CoordinatedFleet& fleet) {
  for (int vm = 0; vm < 2; ++vm)
    for (const char* sub : {"disablebinary", "disablegossip"})
      fleet.add_sim_fault(vm, sub, {{"latency_ms", kSlowStep.count()}});
  fleet.start_all();
  std::vector<std::string> ids;
  for (int vm = 0; vm < 2; ++vm)
    ids.push_back(fleet.add_event({{"type", "Freeze"},
                                   {"resources", {"vm" + std::to_string(vm)}},
                                   {"not_before_in_s", kNotBeforeIn},
                                   {"duration_s", 1},
                                   {"complete_after_s", 1}}));
  return ids;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(coordination_race_test)

BOOST_AUTO_TEST_CASE(uncoordinated_both_racks_drain_at_once) {
  CoordinatedFleet fleet(2, false);
  const auto ids = race(fleet);
  const auto first = fleet.wait_for(0, "drain_started", fleet.until_drain_due(ids[0]), ids[0]);
  const auto second = fleet.wait_for(1, "drain_started", fleet.until_drain_due(ids[1]), ids[1]);
  const auto restored0 = fleet.wait_for(0, "restore_completed", fleet.until_restored(ids[0]));
  const auto restored1 = fleet.wait_for(1, "restore_completed", fleet.until_restored(ids[1]));
  // Each drain began before the other node was back: two racks out at once.
  BOOST_TEST((log_time(second) < log_time(restored0)));
  BOOST_TEST((log_time(first) < log_time(restored1)));
  BOOST_TEST(fleet.log(0, "drain_forced_unsafe").empty());
  BOOST_TEST(fleet.log(1, "drain_forced_unsafe").empty());
}

BOOST_AUTO_TEST_CASE(coordinated_exactly_one_drains_and_the_other_waits_for_its_rack) {
  CoordinatedFleet fleet(2, true);
  const auto ids = race(fleet);
  // Whoever etcd admitted first drains; the other logs drain_not_admitted. Both are due at the same instant.
  std::optional<int> waiter;
  BOOST_REQUIRE(cla::test::wait_until(
      [&] {
        for (int vm = 0; vm < 2; ++vm)
          if (!fleet.log(vm, "drain_not_admitted").empty()) waiter = vm;
        return waiter.has_value();
      },
      std::max(fleet.until_drain_due(ids[0]), fleet.until_drain_due(ids[1]))));
  const int winner = 1 - *waiter;
  // Refused by the replication verdict (SPEC 9), the winner's recorded drain counted unavailable while every
  // status still showed its node UN: a range both replicate would keep one replica, LOCAL_QUORUM needs two.
  const auto refusals = fleet.log(*waiter, "drain_admission");
  BOOST_REQUIRE(!refusals.empty());
  BOOST_TEST(refusals.front().at("result") == "refused");
  const std::string detail(refusals.front().at("detail").as_string());
  BOOST_TEST(detail.find("would keep 1 replica(s)") != std::string::npos, detail);
  BOOST_TEST(detail.find("LOCAL_QUORUM needs 2") != std::string::npos, detail);
  const auto won = fleet.wait_for(winner, "drain_started", fleet.within_a_poll(), ids[winner]);
  const auto back = fleet.wait_for(winner, "restore_completed", fleet.until_restored(ids[winner]));
  // At the latest the waiter drains at its forced instant (asserted below not to be what happened).
  const auto late = fleet.wait_for(*waiter, "drain_started", fleet.until_forced(ids[*waiter]), ids[*waiter]);
  BOOST_TEST((log_time(won) < log_time(back)));
  BOOST_TEST((log_time(back) <= log_time(late)), "the second rack drained before the first was back");
  BOOST_TEST(!late.at("forced_unsafe").as_bool());
  // Its drain's two slow steps may end after its event is gone.
  fleet.wait_for(*waiter, "restore_completed", fleet.until_restored(ids[*waiter]) + 2 * kSlowStep);
  BOOST_TEST(fleet.node_restored(0));
  BOOST_TEST(fleet.node_restored(1));
  // Both records were removed after the restores.
  BOOST_TEST(cla::test::wait_until([&] { return fleet.etcd().get_prefix(CoordinatedFleet::kDrains).empty(); },
                                   fleet.record_removed_within()));
  BOOST_TEST(fleet.stop(0) == 0);
  BOOST_TEST(fleet.stop(1) == 0);
  BOOST_TEST(fleet.etcd().get_prefix(CoordinatedFleet::kMembers).empty(), "SIGTERM revokes the member lease");
}

// At LOCAL_ONE every range keeps a replica with two racks out of three once system_traces (SimpleStrategy 2
// by default: a range that rack1 and rack2 hold alone) has a replica per rack: the verdict admits both
// drains, where the rack count of RF 3 would have admitted one.
BOOST_AUTO_TEST_CASE(coordinated_at_local_one_the_verdict_admits_both_racks) {
  CoordinatedFleet fleet(2, true);
  fleet.configure({}, {}, {{"consistency", "LOCAL_ONE"}});
  fleet.alter_sim_keyspace("system_traces", "NetworkTopologyStrategy", {{"dc1", 3}});
  const auto ids = race(fleet);
  const auto first = fleet.wait_for(0, "drain_started", fleet.until_drain_due(ids[0]), ids[0]);
  const auto second = fleet.wait_for(1, "drain_started", fleet.until_drain_due(ids[1]), ids[1]);
  for (int vm = 0; vm < 2; ++vm) {
    BOOST_TEST(fleet.log(vm, "drain_not_admitted").empty());
    const auto admissions = fleet.log(vm, "drain_admission");
    BOOST_REQUIRE(!admissions.empty());
    BOOST_TEST(admissions.front().at("result") == "admitted");
    BOOST_TEST(admissions.front().at("detail").as_string().starts_with("every range keeps LOCAL_ONE"));
  }
  const auto restored0 = fleet.wait_for(0, "restore_completed", fleet.until_restored(ids[0]) + 2 * kSlowStep);
  const auto restored1 = fleet.wait_for(1, "restore_completed", fleet.until_restored(ids[1]) + 2 * kSlowStep);
  BOOST_TEST((log_time(second) < log_time(restored0)), "both racks out at once");
  BOOST_TEST((log_time(first) < log_time(restored1)));
  BOOST_TEST(fleet.log(0, "drain_forced_unsafe").empty());
  BOOST_TEST(fleet.log(1, "drain_forced_unsafe").empty());
}

BOOST_AUTO_TEST_SUITE_END()
