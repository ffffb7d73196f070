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

EtcdClusterOptions one_member() {
  EtcdClusterOptions options;
  options.members = 1;
  return options;
}

cla::MemberRecord vm0() {
  cla::MemberRecord self;
  self.vm = "vm0";
  self.fault_domain = 0;
  self.datacenter = "dc1";
  self.rack = "rack1";
  self.host_id = "11111111-1111-1111-1111-111111111111";
  return self;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(coordinator_release_test)

BOOST_AUTO_TEST_CASE(a_release_retried_after_a_later_admission_keeps_that_admissions_record) {
  EtcdCluster etcd(one_member());
  boost::asio::io_context ioc;
  cla::CoordinationConfig config;
  config.etcd_endpoints = etcd.endpoints();
  config.cluster = "c1";
  const auto options = options_for(etcd.endpoints(), kRequestTimeout);
  cla::Coordinator coordinator(ioc.get_executor(), config, options, 3, vm0());
  const std::string key = "/cassandra-lifecycle-agent/c1/drains/vm0";

  std::optional<cla::AdmissionOutcome> first;
  spawn_into(ioc, coordinator.admit("E1", true, {}, {}), first);
  BOOST_REQUIRE(run_until(
      ioc, [&] { return first.has_value(); }, requests_ceiling(options)));
  BOOST_REQUIRE(first->result == cla::CoordinationResult::allowed);
  BOOST_REQUIRE_EQUAL(etcd.get_prefix(key).size(), 1u);

  // The node is restored: its record goes, but etcd hangs, so the release's first attempt times out.
  etcd.freeze(0);
  bool released = false;
  boost::asio::co_spawn(
      ioc,
      [&]() -> boost::asio::awaitable<void> {
        co_await coordinator.release();
        released = true;
      },
      boost::asio::detached);
  run_until(
      ioc, [] { return false; }, kRequestTimeout * 2);  // the attempt's timeout passes
  etcd.thaw(0);

  // The next event's drain is recorded while the release waits to retry.
  std::optional<cla::AdmissionOutcome> second;
  spawn_into(ioc, coordinator.admit("E2", true, {}, {}), second);
  BOOST_REQUIRE(run_until(
      ioc, [&] { return second.has_value(); }, requests_ceiling(options)));
  BOOST_REQUIRE(second->result == cla::CoordinationResult::allowed);
  BOOST_REQUIRE(!released);

  BOOST_REQUIRE(run_until(
      ioc, [&] { return released; }, kReleaseFirstRetry + requests_ceiling(options, 2)));
  const auto records = etcd.get_prefix(key);
  BOOST_REQUIRE_EQUAL(records.size(), 1u);
  const auto events = boost::json::parse(records.front().second).at("events").as_array();
  BOOST_TEST(std::find(events.begin(), events.end(), boost::json::value("E2")) != events.end(),
             records.front().second);
}

// Without a later admission the release removes the record, also after a failed first attempt.
BOOST_AUTO_TEST_CASE(a_release_retried_after_etcd_hung_removes_the_record) {
  EtcdCluster etcd(one_member());
  boost::asio::io_context ioc;
  cla::CoordinationConfig config;
  config.etcd_endpoints = etcd.endpoints();
  config.cluster = "c1";
  const auto options = options_for(etcd.endpoints(), kRequestTimeout);
  cla::Coordinator coordinator(ioc.get_executor(), config, options, 3, vm0());
  const std::string key = "/cassandra-lifecycle-agent/c1/drains/vm0";

  std::optional<cla::AdmissionOutcome> admitted;
  spawn_into(ioc, coordinator.admit("E1", true, {}, {}), admitted);
  BOOST_REQUIRE(run_until(
      ioc, [&] { return admitted.has_value(); }, requests_ceiling(options)));
  etcd.freeze(0);
  bool released = false;
  boost::asio::co_spawn(
      ioc,
      [&]() -> boost::asio::awaitable<void> {
        co_await coordinator.release();
        released = true;
      },
      boost::asio::detached);
  run_until(
      ioc, [] { return false; }, kRequestTimeout * 2);
  etcd.thaw(0);
  BOOST_REQUIRE(run_until(
      ioc, [&] { return released; }, kReleaseFirstRetry + requests_ceiling(options, 2)));
  BOOST_TEST(etcd.get_prefix(key).empty());
}

BOOST_AUTO_TEST_SUITE_END()
