// The removal of this node's drain record (SPEC 9, issue 41): retried while etcd does not answer, it must
// never delete the record of a drain admitted after the release was asked. One etcd member, frozen so that
// the release's first attempt fails; the admission comes while the release waits to retry.
#include <boost/asio.hpp>
#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>

#include "agent/coordination/coordinator.hpp"
#include "etcd_client_support.hpp"

using namespace cla::test;
using namespace std::chrono_literals;

namespace {

constexpr auto kRequestTimeout = 300ms;
// The release's first retry comes 1 s after its first attempt failed (Coordinator::release's backoff); the
// admission must land before it for an unguarded release to delete its record.
constexpr auto kReleaseFirstRetry = 1s;
static_assert(kRequestTimeout * 2 < kReleaseFirstRetry, "the admission must come before the retry");

cla::MemberRecord vm0() {
  cla::MemberRecord self;
  self.vm = "vm0";
  self.fault_domain = 0;
  self.datacenter = "dc1";
  self.rack = "rack1";
  self.host_id = "11111111-1111-1111-1111-111111111111";
  return self;
}

// vm0's Coordinator on a one-member etcd, its drain recorded for E1, then etcd frozen while its release's
// first attempt times out, and thawed: the release waits kReleaseFirstRetry to try again.
struct ReleaseAfterHang {
  EtcdCluster etcd{one_member()};
  boost::asio::io_context ioc;
  cla::EtcdClientOptions options = options_for(etcd.endpoints(), kRequestTimeout);
  cla::Coordinator coordinator{ioc.get_executor(), config(), options, 3, vm0()};
  const std::string key = "/cassandra-lifecycle-agent/c1/drains/dc1/vm0";
  bool released = false;

  ReleaseAfterHang() {
    BOOST_REQUIRE(admit("E1"));
    BOOST_REQUIRE_EQUAL(etcd.get_prefix(key).size(), 1u);
    etcd.freeze(0);
    boost::asio::co_spawn(
        ioc,
        [this]() -> boost::asio::awaitable<void> {
          co_await coordinator.release();
          released = true;
        },
        boost::asio::detached);
    run_until(
        ioc, [] { return false; }, kRequestTimeout * 2);  // the attempt's timeout passes
    etcd.thaw(0);
  }
  cla::CoordinationConfig config() const {
    cla::CoordinationConfig c;
    c.etcd_endpoints = etcd.endpoints();
    c.cluster = "c1";
    return c;
  }
  // An unconditional record for `event_id`; whether etcd took it.
  bool admit(const std::string& event_id) {
    std::optional<cla::AdmissionOutcome> outcome;
    spawn_into(ioc, coordinator.admit(event_id, true, {}, {}), outcome);
    return run_until(
               ioc, [&] { return outcome.has_value(); }, requests_ceiling(options)) &&
           outcome->result == cla::CoordinationResult::allowed;
  }
  bool release_ends() {
    return run_until(
        ioc, [&] { return released; }, kReleaseFirstRetry + requests_ceiling(options, 2));
  }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(coordinator_release_test)

// The next event's drain is recorded while the release waits to retry: the retry must leave its record.
BOOST_FIXTURE_TEST_CASE(a_release_retried_after_a_later_admission_keeps_that_admissions_record,
                        ReleaseAfterHang) {
  BOOST_REQUIRE(admit("E2"));
  BOOST_REQUIRE(!released);
  BOOST_REQUIRE(release_ends());
  const auto records = etcd.get_prefix(key);
  BOOST_REQUIRE_EQUAL(records.size(), 1u);
  const auto events = boost::json::parse(records.front().second).at("events").as_array();
  BOOST_TEST(std::find(events.begin(), events.end(), boost::json::value("E2")) != events.end(),
             records.front().second);
}

// Without a later admission the release removes the record, also after a failed first attempt.
BOOST_FIXTURE_TEST_CASE(a_release_retried_after_etcd_hung_removes_the_record, ReleaseAfterHang) {
  BOOST_REQUIRE(release_ends());
  BOOST_TEST(etcd.get_prefix(key).empty());
}

BOOST_AUTO_TEST_SUITE_END()
