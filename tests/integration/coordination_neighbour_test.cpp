// A neighbour whose maintenance began (SPEC 3.4, 9): vm1's Freeze was first seen Started, its VM (and agent)
// paused while its node still shows UN in gossip, as a frozen node does for 10-20 s. Coordinated, vm0's gate
// counts vm1's node unavailable (known/vm1 maps it) and refuses vm0's drain until the forced instant;
// uncoordinated, the same set-up drains vm0 on time: two racks out at once. And when vm1's node was replaced
// (a new host id) while its agent was gone, vm0 maps vm1 anew from its known record at the check that finds
// the old id in no status row, instead of letting the drain through on the old mapping.
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

constexpr const char* kKnown = "/cassandra-lifecycle-agent/c1/known/dc1/";
constexpr const char* kKnownVm1 = "/cassandra-lifecycle-agent/c1/known/dc1/vm1";

// known/dc1/vm1's value, once vm1's agent wrote it with a host id.
std::string known_vm1(CoordinatedFleet& fleet) {
  for (const auto& [key, value] : fleet.etcd().get_prefix(kKnown))
    if (key.ends_with("/vm1") && value.find("\"host_id\":\"\"") == std::string::npos) return value;
  return "";
}

// vm1 frozen with a Started Freeze, then vm0's Freeze posted: their ids.
std::pair<std::string, std::string> frozen_neighbour(CoordinatedFleet& fleet, bool coordinated) {
  fleet.start_all();
  if (coordinated)  // vm1's agent has said which node is vm1's (known/vm1, no lease: it outlives the pause)
    BOOST_REQUIRE(cla::test::wait_until([&] { return !known_vm1(fleet).empty(); },
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

// vm0's Freeze `due` refused at its first check with vm1's node among the nodes down, for one of vm1's
// Started events `started`, then forced at its instant, never approved.
void refused_then_forced(CoordinatedFleet& fleet, const std::string& due,
                         const std::vector<std::string>& started) {
  const auto refused =
      fleet.wait_for(0, "unsafe_to_drain", fleet.until_drain_due(due) + fleet.admission_ceiling(), due);
  bool named = false;
  for (const auto& d : refused.at("down").as_array())
    for (const auto& id : started)
      named =
          named || std::string(d.as_string()).find("(vm1: event " + id + " Started)") != std::string::npos;
  BOOST_TEST(named, boost::json::serialize(refused));
  // Not before its forced instant (NotBefore as served, in whole seconds), and then forced, never approved.
  const auto forced = fleet.wait_for(0, "drain_forced_unsafe", fleet.until_forced(due), due);
  BOOST_TEST((log_time(forced) >= cla::test::not_before_of(forced) - fleet.unsafe_drain_lead()));
  const auto drained = fleet.wait_for(0, "drain_started", fleet.within_a_poll(), due);
  BOOST_TEST(drained.at("forced_unsafe").as_bool());
  BOOST_TEST(fleet.log(0, "event_approved", due).empty());
}

BOOST_AUTO_TEST_CASE(coordinated_the_gate_counts_the_frozen_neighbour_and_its_replaced_node) {
  CoordinatedFleet fleet(2, true);
  const auto [frozen, due] = frozen_neighbour(fleet, true);
  refused_then_forced(fleet, due, {frozen});  // so vm0 has vm1 mapped to its node
  // `fleet` lists vm1 as known without an agent once its paused agent's lease has run out.
  BOOST_TEST(cla::test::wait_until(
      [&] {
        const auto view = fleet.fleet_json(0);
        for (const auto& k : view.at("known").as_array())
          if (k.at("vm") == "vm1") return !k.at("agent").as_bool();
        return false;
      },
      fleet.lease_ttl() + kMargin));

  // vm1's node replaced while its agent is gone: a new host id, which known/dc1/vm1 names (as the new node's
  // agent wrote it before it went away too). vm0's next check finds vm1's old host id in no status row and
  // reads the records again at once; on the old mapping vm1 would count for nothing and vm0 would drain.
  fleet.kill(1);
  fleet.wait_for(0, "restore_completed", fleet.until_restored(due));
  std::string known = known_vm1(fleet);
  const std::string old_id(boost::json::parse(known).at("host_id").as_string());
  const std::string new_id = "6f1c1e0a-0d1e-4a2b-9c3d-0000000000b1";
  BOOST_REQUIRE_NE(old_id, new_id);
  // vm0's agent alone runs now, and it only reads the cluster file.
  fleet.set_sim_node(1, "host_id", boost::json::string(new_id));
  known.replace(known.find(old_id), old_id.size(), new_id);
  fleet.etcd().put(kKnownVm1, known);
  const std::string again = fleet.add_event(
      {{"type", "Freeze"}, {"resources", {"vm1"}}, {"started", true}, {"duration_s", kFrozenFor}});
  refused_then_forced(fleet,
                      fleet.add_event({{"type", "Freeze"},
                                       {"resources", {"vm0"}},
                                       {"not_before_in_s", kNotBeforeIn},
                                       {"duration_s", 1},
                                       {"complete_after_s", 1}}),
                      {frozen, again});
}

BOOST_AUTO_TEST_SUITE_END()
