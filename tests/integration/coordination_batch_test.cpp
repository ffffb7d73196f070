// Admission that scales (issue 40): on a real etcd, the admitting transaction of a node whose rack holds one
// replica per range guards the other racks only. Three agents read the records; rack1's vm0 then records its
// drain. Its rack sibling vm3, batched, still commits on what it read (a wave's rack is admitted together);
// rack2's vm1 must read and decide again; unbatched, vm3 must too, as every agent did before. The reads are
// the admission's own (drains, racks, member keys' names): rack2 is guarded although no record or key names
// it yet, because the guard carries the racks of the node's status.
#include <boost/asio.hpp>
#include <boost/test/unit_test.hpp>
#include <set>
#include <utility>

#include "agent/coordination/coordinator.hpp"
#include "etcd_client_support.hpp"

using namespace cla::test;
using namespace std::chrono_literals;

namespace {

constexpr auto kRequestTimeout = 2s;

cla::MemberRecord node(const std::string& vm, const std::string& rack, const std::string& host_id) {
  cla::MemberRecord self;
  self.vm = vm;
  self.datacenter = "dc1";
  self.rack = rack;
  self.host_id = host_id;
  return self;
}

struct ThreeAgents {
  EtcdCluster etcd{one_member()};
  boost::asio::io_context ioc;
  cla::EtcdClientOptions options = options_for(etcd.endpoints(), kRequestTimeout);
  cla::EtcdClient client{ioc.get_executor(), options};
  const cla::CoordinationKeys keys = cla::coordination_keys("c1");
  const cla::MemberRecord vm0 = node("vm0", "rack1", "h0"), vm3 = node("vm3", "rack1", "h3"),
                          vm1 = node("vm1", "rack2", "h1");

  // The racks of the agents' nodetool status: what the daemon's guard carries (no drain named any of them
  // yet, so no racks/<dc>/<rack> key exists).
  const std::set<std::pair<std::string, std::string>> status_racks{{"dc1", "rack1"}, {"dc1", "rack2"}};
  const cla::AdmissionGuard batched{true, false, status_racks}, unbatched{false, false, status_racks};

  cla::CoordinationSnapshot read(cla::AdmissionRead how = {}) {
    std::optional<cla::Result<cla::CoordinationSnapshot, cla::EtcdFailure>> snap;
    spawn_into(ioc, cla::read_admission_snapshot(client, keys, how), snap);
    BOOST_REQUIRE(run_until(
        ioc, [&] { return snap.has_value(); }, requests_ceiling(options)));
    BOOST_REQUIRE_MESSAGE(snap->ok(), why(*snap));
    return std::move(snap->value());
  }
  // vm0's drain recorded as its admission records it (its rack's key bumped beside it).
  void record_vm0() {
    cla::Coordinator coordinator(
        ioc.get_executor(),
        [&] {
          cla::CoordinationConfig c;
          c.etcd_endpoints = etcd.endpoints();
          c.cluster = "c1";
          return c;
        }(),
        options, 3, vm0);
    std::optional<cla::AdmissionOutcome> outcome;
    spawn_into(ioc, coordinator.admit("E0", false, {}, {}, {}, batched), outcome);
    BOOST_REQUIRE(run_until(
        ioc, [&] { return outcome.has_value(); }, requests_ceiling(options, 2)));
    BOOST_REQUIRE_MESSAGE(outcome->result == cla::CoordinationResult::allowed, outcome->detail);
  }
  // Whether `self`'s transaction, guarded as `guard` says over `snap`, commits.
  bool commits(const cla::MemberRecord& self, const cla::CoordinationSnapshot& snap,
               cla::AdmissionGuard guard, const std::vector<cla::DrainRecord>& removing = {}) {
    std::vector<cla::EtcdOp> put;
    put.emplace_back(cla::EtcdPut(keys.drain("dc1", self.vm), "{}"));
    std::optional<cla::Result<cla::EtcdTxnResult, cla::EtcdFailure>> txn;
    spawn_into(
        ioc, client.txn(cla::admission_compares(keys, snap, self, guard, removing), std::move(put), {}), txn);
    BOOST_REQUIRE(run_until(
        ioc, [&] { return txn.has_value(); }, requests_ceiling(options)));
    BOOST_REQUIRE_MESSAGE(txn->ok(), why(*txn));
    return txn->value().succeeded;
  }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(coordination_batch_test)

BOOST_FIXTURE_TEST_CASE(a_racks_sibling_commits_on_a_stale_read_and_another_rack_does_not, ThreeAgents) {
  const auto before = read();
  record_vm0();
  BOOST_TEST(!commits(vm1, before, batched), "rack2 must see rack1's new drain before it decides");
  BOOST_TEST(!commits(vm3, before, unbatched), "unbatched, any drain recorded since the read holds it");
  BOOST_TEST(commits(vm3, before, batched), "rack1's sibling is not held by rack1's own drain");
}

// An older agent bumps no rack key: while any member key is flat, every admission guards every record. The
// first read of an admission only counts the member keys (per DC and in all): the counts find the flat one.
BOOST_FIXTURE_TEST_CASE(an_older_agents_member_key_turns_batching_off, ThreeAgents) {
  etcd.put(keys.member("dc1", "vm3"), boost::json::serialize(cla::to_json(vm3)));
  const cla::AdmissionRead counted{false, {"dc1"}};
  BOOST_TEST(!read(counted).older_agents);
  etcd.put(keys.members() + "vm5", boost::json::serialize(cla::to_json(node("vm5", "rack1", "h5"))));
  const auto by_names = read();
  BOOST_TEST(by_names.older_agents);
  BOOST_TEST(by_names.members.size() == 2u);
  const auto before = read(counted);
  BOOST_TEST(before.older_agents);
  BOOST_TEST(!before.members_read);
  BOOST_TEST(before.members.empty());
  record_vm0();
  BOOST_TEST(!commits(vm3, before, batched));
}

// The first read of an admission is a member's own, possibly behind (issue 40), and a stale record (its agent
// gone, its node UN) is deleted by the admitting transaction: only as it was read. Its agent, back since the
// read, may have recorded its drain again.
BOOST_FIXTURE_TEST_CASE(a_stale_record_written_again_since_the_read_is_not_deleted, ThreeAgents) {
  cla::DrainRecord record;
  record.vm = vm1.vm;
  record.datacenter = vm1.datacenter;
  record.rack = vm1.rack;
  record.host_id = vm1.host_id;
  record.events = {"E1"};
  const std::string key = keys.drain("dc1", vm1.vm);
  etcd.put(key, boost::json::serialize(cla::to_json(record)));
  const auto as_read = [&](const cla::CoordinationSnapshot& snap) {
    for (const auto& r : snap.drains)
      if (r.key == key) return std::vector<cla::DrainRecord>{r};
    BOOST_FAIL("the record was not read");
    return std::vector<cla::DrainRecord>{};
  };
  const auto before = read();
  etcd.put(key, boost::json::serialize(cla::to_json(record)));  // its agent recorded its drain again
  BOOST_TEST(!commits(vm0, before, batched, as_read(before)), "the record changed since the read");
  const auto now = read();
  BOOST_TEST(commits(vm0, now, batched, as_read(now)), "as read now, it may go");
}

BOOST_AUTO_TEST_SUITE_END()
