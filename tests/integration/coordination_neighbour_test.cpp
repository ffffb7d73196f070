// A neighbour whose maintenance began (SPEC 3.4, 9): vm1's Freeze was first seen Started, its VM (and agent)
// paused while its node still shows UN in gossip, as a frozen node does for 10-20 s. Coordinated, vm0's gate
// counts vm1's node unavailable (known/vm1 maps it) and refuses vm0's drain until the forced instant;
// uncoordinated, the same set-up drains vm0 on time: two racks out at once.
#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>

#include "agent_scenario.hpp"
#include "coordinated_fleet.hpp"

namespace {

using namespace std::chrono_literals;
using cla::test::CoordinatedFleet;
using cla::test::kMargin;
using cla::test::log_time;

constexpr std::int64_t kNotBeforeIn = 12;  // vm0's Freeze: due at 2 s (drain_lead_s 10), forced at 11 s
constexpr std::int64_t kFrozenFor = 30;    // vm1's Freeze outlasts vm0's whole notice

// vm1 frozen with a Started Freeze, then vm0's Freeze posted: their ids.
std::pair<std::string, std::string> frozen_neighbour(CoordinatedFleet& fleet, bool coordinated) {
  fleet.start_all();
  if (coordinated)  // vm1's agent has said which node is vm1's (known/vm1, no lease: it outlives the pause)
    BOOST_REQUIRE(cla::test::wait_until(
        [&] {
          for (const auto& [key, value] : fleet.etcd().get_prefix("/cassandra-lifecycle-agent/c1/known/"))
            if (key.ends_with("/vm1") && value.find("\"host_id\":\"\"") == std::string::npos) return true;
          return false;
        },
        fleet.within_a_poll() + fleet.admission_ceiling()));
  fleet.freeze(1);
  const std::string frozen = fleet.add_event(
      {{"type", "Freeze"}, {"resources", {"vm1"}}, {"started", true}, {"duration_s", kFrozenFor}});
  const std::string due = fleet.add_event({{"type", "Freeze"},
                                           {"resources", {"vm0"}},
                                           {"not_before_in_s", kNotBeforeIn},
                                           {"duration_s", 1},
                                           {"complete_after_s", 1}});
  return {frozen, due};
}

}  // namespace

BOOST_AUTO_TEST_SUITE(coordination_neighbour_test)

BOOST_AUTO_TEST_CASE(uncoordinated_the_other_rack_drains_while_the_frozen_node_looks_up) {
  CoordinatedFleet fleet(2, false);
  const auto [frozen, due] = frozen_neighbour(fleet, false);
  const auto drained = fleet.wait_for(0, "drain_started", fleet.until_drain_due(due), due);
  // On time, not forced: the gate saw every replica UN while vm1 was frozen.
  BOOST_TEST(!drained.at("forced_unsafe").as_bool());
  BOOST_TEST((log_time(drained) < fleet.not_before(due) - fleet.unsafe_drain_lead()));
  BOOST_TEST(fleet.log(0, "unsafe_to_drain", due).empty());
  fleet.thaw(1);
}

BOOST_AUTO_TEST_CASE(coordinated_the_gate_counts_the_frozen_neighbour_and_refuses) {
  CoordinatedFleet fleet(2, true);
  const auto [frozen, due] = frozen_neighbour(fleet, true);
  const auto refused =
      fleet.wait_for(0, "unsafe_to_drain", fleet.until_drain_due(due) + fleet.admission_ceiling(), due);
  const auto& down = refused.at("down").as_array();
  bool named = false;
  for (const auto& d : down)
    named =
        named || std::string(d.as_string()).find("(vm1: event " + frozen + " Started)") != std::string::npos;
  BOOST_TEST(named, boost::json::serialize(refused));
  // Not before its forced instant (NotBefore as served, in whole seconds), and then forced, never approved.
  const auto forced = fleet.wait_for(0, "drain_forced_unsafe", fleet.until_forced(due), due);
  BOOST_TEST((log_time(forced) >= cla::test::not_before_of(forced) - fleet.unsafe_drain_lead()));
  const auto drained = fleet.wait_for(0, "drain_started", fleet.within_a_poll(), due);
  BOOST_TEST(drained.at("forced_unsafe").as_bool());
  BOOST_TEST(fleet.log(0, "event_approved", due).empty());
  // `fleet` lists vm1 as known without an agent once its paused agent's lease has run out.
  BOOST_TEST(cla::test::wait_until(
      [&] {
        const auto view = fleet.fleet_json(0);
        for (const auto& k : view.at("known").as_array())
          if (k.at("vm") == "vm1") return !k.at("agent").as_bool();
        return false;
      },
      fleet.lease_ttl() + kMargin));
  fleet.thaw(1);
}

BOOST_AUTO_TEST_SUITE_END()
