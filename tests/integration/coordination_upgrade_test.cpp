// Records keyed by DC and VM (SPEC 9, "Several regions") beside an older agent's flat keys, while a fleet is
// upgraded one agent at a time. The older agents are played by what they leave in etcd (members/<vm>,
// drains/<vm>, known/<vm>): this tree has no older binary to run. What must hold: an older agent's drain
// still counts (no rack admitted beside it, so no drain admitted twice), this VM's own flat records are
// replaced by keyed ones, and a flat record of another region's VM of the same name is neither taken for
// this agent's own nor removed by it.
#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>

#include "agent_scenario.hpp"
#include "coordinated_fleet.hpp"
#include "etcd_client_support.hpp"

namespace {

using cla::test::CoordinatedFleet;
using cla::test::has_key;

constexpr const char* kPrefix = "/cassandra-lifecycle-agent/c1/";

// Built by append: GCC 12 warns (array-bounds, wrongly) on `std::string(...) + "..."` here.
std::string key(const char* kind, const std::string& path) {
  std::string k(kPrefix);
  k.append(kind).append(path);
  return k;
}

boost::json::object drain_record(const std::string& vm, const std::string& dc, const std::string& rack,
                                 const std::string& host_id) {
  return {{"vm", vm},           {"datacenter", dc},  {"rack", rack},
          {"host_id", host_id}, {"events", {"OLD"}}, {"since_ms", 0}};
}

std::string host_id_of(CoordinatedFleet& fleet, int node) {
  const std::string info = fleet.sim_out(node, "info");
  return info.substr(info.find(':') + 2, 36);
}

boost::json::object freeze(const std::string& vm, std::int64_t not_before_in) {
  return {{"type", "Freeze"},
          {"resources", {vm}},
          {"not_before_in_s", not_before_in},
          {"duration_s", 1},
          {"complete_after_s", 1}};
}

// NotBefore leaves room for a refused admission, the older record's removal, and a recheck before the forced
// instant: drain_lead_s (10) + 4 s.
constexpr std::int64_t kNotBeforeIn = 14;

}  // namespace

BOOST_AUTO_TEST_SUITE(coordination_upgrade_test)

// vm1's older agent is drained for an event (members/vm1, drains/vm1, rack2); another region's older agent
// of a VM also named vm0 holds drains/vm0 (dc2). vm0's upgraded agent (dc1, rack1) must be refused while
// vm1's flat record stands, admitted once it goes, and must leave dc2's record alone throughout.
BOOST_AUTO_TEST_CASE(an_older_agents_flat_drain_record_counts_and_another_regions_namesake_is_left_alone) {
  CoordinatedFleet fleet(1, true);
  const std::string h2 = host_id_of(fleet, 1);
  fleet.etcd().put(key("members/", "vm1"), boost::json::serialize(boost::json::object{{"vm", "vm1"},
                                                                                      {"fault_domain", 1},
                                                                                      {"datacenter", "dc1"},
                                                                                      {"rack", "rack2"},
                                                                                      {"host_id", h2},
                                                                                      {"phase", "drained"},
                                                                                      {"events", {"OLD"}},
                                                                                      {"since_ms", 0}}));
  fleet.etcd().put(key("drains/", "vm1"), boost::json::serialize(drain_record("vm1", "dc1", "rack2", h2)));
  const std::string namesake = boost::json::serialize(drain_record("vm0", "dc2", "rack1", "dc2-host"));
  fleet.etcd().put(key("drains/", "vm0"), namesake);
  fleet.start(0);
  const std::string id = fleet.add_event(freeze("vm0", kNotBeforeIn));
  const auto refused = fleet.wait_for(0, "drain_admission", fleet.until_drain_due(id), id);
  BOOST_TEST(refused.at("result").as_string() == "refused", boost::json::serialize(refused));
  BOOST_TEST(fleet.log(0, "drain_started").empty(), "no drain beside the older agent's");

  fleet.etcd().del(key("drains/", "vm1"));  // vm1's older agent restored its node and released its record
  const auto started = fleet.wait_for(0, "drain_started", fleet.until_forced(id), id);
  BOOST_TEST(!started.at("forced_unsafe").as_bool(), boost::json::serialize(started));
  BOOST_TEST(has_key(fleet.etcd(), key("drains/", "dc1/vm0")));
  fleet.wait_for(0, "restore_completed", fleet.until_restored(id));
  BOOST_TEST(cla::test::wait_until([&] { return !has_key(fleet.etcd(), key("drains/", "dc1/vm0")); },
                                   fleet.record_removed_within()));
  const auto left = fleet.etcd().get_prefix(key("drains/", "vm0"));
  BOOST_TEST_REQUIRE(left.size() == 1u, "dc2's vm0 keeps its record");
  BOOST_TEST(left.front().second == namesake);
}

// vm0's own older agent left drains/vm0 and known/vm0 (dc1): the upgraded agent writes known/dc1/vm0 and
// removes known/vm0; its admission replaces drains/vm0 by drains/dc1/vm0 in the same transaction.
BOOST_AUTO_TEST_CASE(this_vms_own_flat_records_are_replaced_by_keyed_ones) {
  CoordinatedFleet fleet(1, true);
  const std::string h1 = host_id_of(fleet, 0);
  fleet.etcd().put(key("drains/", "vm0"), boost::json::serialize(drain_record("vm0", "dc1", "rack1", h1)));
  fleet.etcd().put(key("known/", "vm0"),
                   boost::json::serialize(boost::json::object{{"vm", "vm0"},
                                                              {"fault_domain", 0},
                                                              {"datacenter", "dc1"},
                                                              {"rack", "rack1"},
                                                              {"address", fleet.node(0)},
                                                              {"host_id", h1}}));
  fleet.start(0);
  BOOST_TEST(cla::test::wait_until(
      [&] {
        return has_key(fleet.etcd(), key("known/", "dc1/vm0")) &&
               !has_key(fleet.etcd(), key("known/", "vm0"));
      },
      fleet.within_a_poll() + fleet.admission_ceiling()));
  const std::string id = fleet.add_event(freeze("vm0", kNotBeforeIn));
  const auto started = fleet.wait_for(0, "drain_started", fleet.until_drain_due(id), id);
  BOOST_TEST(!started.at("forced_unsafe").as_bool(), "its own older record never counts against it");
  BOOST_TEST(has_key(fleet.etcd(), key("drains/", "dc1/vm0")));
  BOOST_TEST(!has_key(fleet.etcd(), key("drains/", "vm0")));
}

BOOST_AUTO_TEST_SUITE_END()
