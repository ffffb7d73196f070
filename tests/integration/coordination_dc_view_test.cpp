// The fleet view's read (issue 40), on a real etcd: an agent of dc1 reads its DC's member and known records
// only, in one transaction whose counts prove that no older agent's flat key (members/<vm>, its DC in its
// value only) is left out. At 450 agents in 3 DCs the whole prefix (~400 KB), read before every gate check by
// a fault domain's 150 agents at once, was most of what etcd served in a wave. Read from etcd's own request
// counters: the DC's read is a transaction and no range; a flat key, or a DC the node's status did not name,
// sends it back to the whole prefix (one range), and the flat key's record is then part of the view.
#include <boost/asio.hpp>
#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>
#include <regex>

#include "agent/coordination/coordinator.hpp"
#include "etcd_client_support.hpp"
#include "imds_emulator_process.hpp"

using namespace cla::test;
using namespace std::chrono_literals;

namespace {

constexpr auto kRequestTimeout = 2s;

cla::MemberRecord member(const std::string& dc, const std::string& vm, const std::string& approved) {
  cla::MemberRecord m;
  m.vm = vm;
  m.datacenter = dc;
  m.rack = "rack1";
  m.host_id = dc + "-" + vm;
  if (!approved.empty()) m.approved = {approved};
  return m;
}

cla::KnownRecord known(const std::string& dc, const std::string& vm) {
  cla::KnownRecord k;
  k.vm = vm;
  k.datacenter = dc;
  k.rack = "rack2";
  k.host_id = dc + "-" + vm;
  return k;
}

struct TwoDcs {
  EtcdCluster etcd{one_member()};
  boost::asio::io_context ioc;
  cla::EtcdClientOptions options = options_for(etcd.endpoints(), kRequestTimeout);
  const cla::CoordinationKeys keys = cla::coordination_keys("c1");
  cla::Coordinator coordinator{ioc.get_executor(),
                               [&] {
                                 cla::CoordinationConfig c;
                                 c.etcd_endpoints = etcd.endpoints();
                                 c.cluster = "c1";
                                 return c;
                               }(),
                               options, 3, member("dc1", "vm0", "")};

  TwoDcs() {
    // vm1 and vm5 in both regions: names repeat across regions, and only dc1's may be read.
    for (const std::string dc : {"dc1", "dc2"}) {
      etcd.put(keys.member(dc, "vm1"), boost::json::serialize(cla::to_json(member(dc, "vm1", "E-" + dc))));
      etcd.put(keys.known(dc, "vm5"), boost::json::serialize(cla::to_json(known(dc, "vm5"))));
    }
    etcd.put(keys.drain("dc1", "vm2"), "{}");  // no part of the view
  }

  cla::CoordinationSnapshot read_view(bool with_known = true) {
    std::optional<cla::Result<cla::CoordinationSnapshot, cla::EtcdFailure>> snap;
    spawn_into(ioc, coordinator.read_dc_view(with_known), snap);
    BOOST_REQUIRE(run_until(
        ioc, [&] { return snap.has_value(); }, requests_ceiling(options, 2)));
    BOOST_REQUIRE_MESSAGE(snap->ok(), why(*snap));
    return std::move(snap->value());
  }

  // etcd's count of the requests of one gRPC method it answered (its /metrics, as Prometheus scrapes it).
  long handled(const std::string& method) {
    const auto reply = http_call(etcd.client_port(0), boost::beast::http::verb::get, "/metrics");
    BOOST_REQUIRE_EQUAL(reply.status, 200u);
    const std::regex line("grpc_server_handled_total\\{grpc_code=\"OK\",grpc_method=\"" + method +
                          "\"[^}]*\\} ([0-9.e+]+)");
    std::smatch m;
    return std::regex_search(reply.body, m, line) ? std::lround(std::stod(m[1])) : 0;
  }
  // What one read of the view cost etcd: (ranges, transactions).
  std::pair<long, long> requests_of(const std::function<void()>& read) {
    const long ranges = handled("Range"), txns = handled("Txn");
    read();
    return {handled("Range") - ranges, handled("Txn") - txns};
  }
};

std::vector<std::string> names(const std::vector<cla::MemberRecord>& members) {
  std::vector<std::string> out;
  for (const auto& m : members) out.push_back(m.datacenter + "/" + m.vm + " " + m.host_id);
  return out;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(coordination_dc_view_test)

BOOST_FIXTURE_TEST_CASE(the_view_reads_its_dc_only_when_the_counts_prove_it_whole, TwoDcs) {
  coordinator.set_datacenters({"dc1", "dc2"});
  cla::CoordinationSnapshot view;
  BOOST_TEST((requests_of([&] { view = read_view(); }) == std::pair<long, long>{0, 1}));
  BOOST_TEST(names(view.members) == std::vector<std::string>{"dc1/vm1 dc1-vm1"});
  BOOST_REQUIRE_EQUAL(view.members.size(), 1u);
  BOOST_TEST(view.members[0].approved == std::vector<std::string>{"E-dc1"});
  BOOST_REQUIRE_EQUAL(view.known.size(), 1u);
  BOOST_TEST(view.known[0].datacenter == "dc1");
  BOOST_TEST(view.drains.empty());
  // Without the known records (every listed VM's node mapped already): the member keys alone.
  BOOST_TEST((requests_of([&] { view = read_view(false); }) == std::pair<long, long>{0, 1}));
  BOOST_TEST(names(view.members) == std::vector<std::string>{"dc1/vm1 dc1-vm1"});
  BOOST_TEST(view.known.empty());
}

BOOST_FIXTURE_TEST_CASE(an_older_agents_flat_member_key_sends_the_view_to_the_whole_prefix, TwoDcs) {
  coordinator.set_datacenters({"dc1", "dc2"});
  etcd.put(keys.member("", "vm7"), boost::json::serialize(cla::to_json(member("dc1", "vm7", "E-older"))));
  cla::CoordinationSnapshot view;
  BOOST_TEST((requests_of([&] { view = read_view(); }).first == 1));
  BOOST_TEST(names(view.members) == (std::vector<std::string>{"dc1/vm1 dc1-vm1", "dc1/vm7 dc1-vm7"}));
  // Once the older agent's key is gone, the DC's read is whole again.
  etcd.del(keys.member("", "vm7"));
  BOOST_TEST((requests_of([&] { view = read_view(); }) == std::pair<long, long>{0, 1}));
  BOOST_TEST(names(view.members) == std::vector<std::string>{"dc1/vm1 dc1-vm1"});
}

BOOST_FIXTURE_TEST_CASE(a_dc_the_status_did_not_name_sends_the_view_to_the_whole_prefix, TwoDcs) {
  coordinator.set_datacenters({"dc1"});  // dc2's keys are not under a DC this agent knows
  cla::CoordinationSnapshot view;
  BOOST_TEST((requests_of([&] { view = read_view(); }).first == 1));
  BOOST_TEST(names(view.members) == std::vector<std::string>{"dc1/vm1 dc1-vm1"});
  BOOST_REQUIRE_EQUAL(view.known.size(), 1u);
  BOOST_TEST(view.known[0].datacenter == "dc1");
}

BOOST_AUTO_TEST_SUITE_END()
