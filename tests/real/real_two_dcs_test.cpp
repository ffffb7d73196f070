// Two DCs, one cluster (issue 40; SPEC 3.4: a DC this node is not in is never the reason for an unsafe
// verdict), on the real cluster of two DCs (CLA_REAL_DCS=2: dc1 on nodes 1-3, dc2 on nodes 4-6, every
// keyspace at {dc1: 3, dc2: 3}), coordinated through etcd: both gates, the nodetool gate and etcd's
// admission, judge. dc2's racks go out (binary and gossip disabled: DN in dc1's view); dc1's vm1 then gets a
// Freeze at each consistency level. With one dc2 rack out it is admitted, drained and approved at every
// level. With two out: at LOCAL_QUORUM and at EACH_QUORUM too (dc2 is short of its quorum whatever dc1 does),
// and refused at QUORUM (4 replicas of 6 needed, 3 left once vm1's node leaves).
#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>

#include "etcd_cluster.hpp"
#include "real_agent.hpp"
#include "real_cluster.hpp"

namespace {

using namespace cla::test;
using namespace cla::test::real;
using namespace std::chrono_literals;
namespace json = boost::json;

// The drain starts at once (NotBefore - drain_lead_s is past); the approval starts the Freeze early.
constexpr int kNotice = 60, kLead = 55, kFreeze = 1, kCompleteAfter = 1;

struct TwoDcs : RealCase {
  TwoDcs() {
    touched = {1, 4, 5};
    BOOST_TEST_REQUIRE(datacenters() == 2, "run with CLA_REAL_DCS=2 (CTest's real_two_dcs does)");
  }
  EtcdCluster etcd{one_member()};
  std::unique_ptr<ImdsEmulatorProcess> emulator = start_emulator();

  json::object coordination() const {
    json::array endpoints;
    for (const auto& endpoint : etcd.endpoints()) endpoints.emplace_back(endpoint);
    return {{"etcd_endpoints", std::move(endpoints)}, {"cluster", "two-dcs"}};
  }

  // dc1's vm1 at `level`: its Freeze admitted by etcd, drained, approved and restored.
  void admitted_at(const std::string& level) {
    BOOST_TEST_CONTEXT(level) {
      RealAgent agent(*emulator, 1, {{"drain_lead_s", kLead}}, {{"consistency", level}}, {}, coordination());
      agent.start();
      const std::string id = add_freeze(*emulator, "vm1", kNotice, kFreeze, kCompleteAfter);
      const auto admission = agent.wait_for("drain_admission", secs(kFreezeDrain), id);
      BOOST_TEST(admission.at("result").as_string() == "admitted", json::serialize(admission));
      agent.wait_for("event_approved", secs(kFreezeDrain), id);
      agent.wait_for("restore_completed", secs(kRestore) + std::chrono::seconds(kFreeze + kCompleteAfter));
      BOOST_TEST(agent.log("unsafe_to_drain", id).empty());
      BOOST_TEST(agent.stop() == 0);
    }
  }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(real_two_dcs_test)

BOOST_FIXTURE_TEST_CASE(one_dc2_rack_out_admits_dc1_at_every_level, TwoDcs) {
  take_out(node_address(4), node_address(1));
  for (const char* level : {"LOCAL_QUORUM", "QUORUM", "EACH_QUORUM"}) admitted_at(level);
}

BOOST_FIXTURE_TEST_CASE(two_dc2_racks_out_refuse_dc1_at_quorum_only, TwoDcs) {
  take_out(node_address(4), node_address(1));
  take_out(node_address(5), node_address(1));
  admitted_at("LOCAL_QUORUM");
  admitted_at("EACH_QUORUM");

  RealAgent agent(*emulator, 1, {{"drain_lead_s", kLead}}, {{"consistency", "QUORUM"}}, {}, coordination());
  agent.start();
  const std::string id = add_freeze(*emulator, "vm1", kNotice, kFreeze, kCompleteAfter);
  const auto unsafe = agent.wait_for("unsafe_to_drain", secs(kFreezeDrain), id);
  BOOST_TEST(unsafe.at("needed").to_number<int>() == 4, json::serialize(unsafe));
  BOOST_TEST(unsafe.at("available").to_number<int>() == 3, json::serialize(unsafe));
  emulator->cancel_event(id);  // long before its forced drain (NotBefore - unsafe_drain_lead_s)
  BOOST_TEST(agent.stop() == 0);
  BOOST_TEST(agent.log("drain_started", id).empty());
  BOOST_TEST(agent.log("drain_admission", id).empty());  // the nodetool gate refused first
  for (const auto& approval : emulator->approvals())
    BOOST_TEST(approval.as_object().at("event_id").as_string() != id, "the refused Freeze was approved");
}

BOOST_AUTO_TEST_SUITE_END()
