// EtcdClient's fail-over and auth against real 3-member etcd clusters on loopback: a member killed, a member
// frozen (SIGSTOP), every member down, cancel(), password auth with token renewal.
#include <boost/asio.hpp>
#include <boost/test/unit_test.hpp>
#include <optional>

#include "agent/coordination/etcd/etcd_client.hpp"
#include "etcd_client_support.hpp"
#include "etcd_cluster.hpp"

namespace {

using namespace cla::test::etcd_client_tests;

}  // namespace

BOOST_AUTO_TEST_SUITE(etcd_client_failover_test)

BOOST_AUTO_TEST_CASE(a_killed_member_is_failed_over_and_every_member_down_is_reported) {
  EtcdCluster etcd;
  asio::io_context ioc;
  const std::size_t first = etcd.follower();
  const auto endpoints = endpoints_from(etcd, first);
  const auto options = options_for(endpoints);
  cla::EtcdClient client(ioc.get_executor(), options);
  BOOST_TEST_REQUIRE(await(ioc, client.put({"/cla-test/f", "1", 0})).ok());
  BOOST_TEST(client.current_endpoint() == etcd.endpoint(first));

  etcd.kill(first);
  const auto failed_over = await(ioc, client.put({"/cla-test/f", "2", 0}));
  BOOST_TEST_REQUIRE(failed_over.ok(), why(failed_over));
  BOOST_TEST(client.current_endpoint() != etcd.endpoint(first));
  const std::string good = client.current_endpoint();
  BOOST_TEST(await(ioc, client.range("/cla-test/f"))->kvs.at(0).value == "2");
  BOOST_TEST(client.current_endpoint() == good);  // the next call starts from the member that answered

  // The killed member restarted on its data catches up and answers again.
  etcd.restart(first);
  const auto rejoined_options = options_for({etcd.endpoint(first)});
  cla::EtcdClient rejoined(ioc.get_executor(), rejoined_options);
  const auto caught_up = await(ioc, rejoined.range("/cla-test/f"), requests_ceiling(rejoined_options));
  BOOST_TEST_REQUIRE(caught_up.ok(), why(caught_up));
  BOOST_TEST(caught_up->kvs.at(0).value == "2");

  // Two members killed: the last one has no quorum and cannot answer; then nothing runs at all.
  for (std::size_t i = 0; i < etcd.size(); ++i)
    if (i != first) etcd.kill(i);
  const auto no_quorum = await(ioc, client.put({"/cla-test/f", "3", 0}), requests_ceiling(options));
  BOOST_TEST_REQUIRE(!no_quorum.ok());
  BOOST_TEST(no_quorum.error().fail_over(), cla::describe(no_quorum.error()));
  for (std::size_t i = 0; i < etcd.size(); ++i) etcd.kill(i);
  const auto down = await(ioc, client.range("/cla-test/f"));
  BOOST_TEST_REQUIRE(!down.ok());
  BOOST_TEST((down.error().kind == Kind::connect));
  for (const auto& url : endpoints) BOOST_TEST(down.error().detail.find(url) != std::string::npos, url);
}

BOOST_AUTO_TEST_CASE(a_frozen_member_times_out_and_the_next_one_answers) {
  EtcdCluster etcd;
  asio::io_context ioc;
  constexpr auto timeout = 500ms;
  const std::size_t frozen = etcd.follower();
  cla::EtcdClient client(ioc.get_executor(), options_for(endpoints_from(etcd, frozen), timeout));
  etcd.freeze(frozen);

  auto start = std::chrono::steady_clock::now();
  const auto put = await(ioc, client.put({"/cla-test/t", "1", 0}));
  BOOST_TEST_REQUIRE(put.ok(), why(put));
  BOOST_TEST((std::chrono::steady_clock::now() - start >= timeout));  // waited for the frozen one first
  BOOST_TEST(client.current_endpoint() != etcd.endpoint(frozen));

  const auto alone_options = options_for({etcd.endpoint(frozen)}, timeout);
  cla::EtcdClient alone(ioc.get_executor(), alone_options);
  start = std::chrono::steady_clock::now();
  const auto stuck = await(ioc, alone.range("/cla-test/t"));
  BOOST_TEST_REQUIRE(!stuck.ok());
  BOOST_TEST((stuck.error().kind == Kind::timeout), cla::describe(stuck.error()));
  BOOST_TEST(stuck.error().endpoint == etcd.endpoint(frozen));
  BOOST_TEST((std::chrono::steady_clock::now() - start >= timeout));

  // cancel() ends a call stuck on it at once, and the one queued behind it.
  cla::EtcdClient patient(ioc.get_executor(), options_for({etcd.endpoint(frozen)}, 60s));
  std::optional<cla::Result<cla::EtcdRange, cla::EtcdFailure>> in_flight, queued;
  spawn_into(ioc, patient.range("/cla-test/t"), in_flight);
  spawn_into(ioc, patient.range("/cla-test/t"), queued);
  constexpr auto cancel_after = 200ms;
  asio::steady_timer later(ioc, cancel_after);
  later.async_wait([&](auto) { patient.cancel(); });
  BOOST_TEST_REQUIRE(run_until(
      ioc, [&] { return in_flight && queued; }, cancel_after + kMargin));
  BOOST_TEST((!in_flight->ok() && in_flight->error().kind == Kind::cancelled));
  BOOST_TEST((!queued->ok() && queued->error().kind == Kind::cancelled));

  etcd.thaw(frozen);
  BOOST_TEST(
      await(ioc, alone.range("/cla-test/t"), requests_ceiling(alone_options)).ok());  // thawed: answers
}

BOOST_AUTO_TEST_CASE(password_auth_sends_the_token_and_renews_it_once_when_refused) {
  EtcdCluster etcd;
  etcd.enable_auth("agent", "s3cret", "/cla-test/");
  asio::io_context ioc;
  auto with = [&](std::string user, std::string password) {
    auto options = options_for(etcd.endpoints());
    options.username = std::move(user);
    options.password = std::move(password);
    return options;
  };

  cla::EtcdClient anonymous(ioc.get_executor(), options_for(etcd.endpoints()));
  const auto refused = await(ioc, anonymous.range("/cla-test/a"));
  BOOST_TEST_REQUIRE(!refused.ok());
  BOOST_TEST((refused.error().kind == Kind::auth));
  BOOST_TEST(refused.error().detail == "etcdserver: user name is empty");

  cla::EtcdClient wrong(ioc.get_executor(), with("agent", "nope"));
  const auto bad_password = await(ioc, wrong.range("/cla-test/a"));
  BOOST_TEST_REQUIRE(!bad_password.ok());
  BOOST_TEST((bad_password.error().kind == Kind::auth));
  BOOST_TEST(bad_password.error().detail ==
             "authenticating as agent: etcdserver: authentication failed, invalid user ID or password");

  cla::EtcdClient client(ioc.get_executor(), with("agent", "s3cret"));
  BOOST_TEST_REQUIRE(await(ioc, client.put({"/cla-test/a", "1", 0})).ok());
  BOOST_TEST(await(ioc, client.range("/cla-test/a"))->kvs.size() == 1u);
  const auto outside = await(ioc, client.range("/elsewhere"));
  BOOST_TEST_REQUIRE(!outside.ok());
  BOOST_TEST(outside.error().detail == "etcdserver: permission denied");
  const auto lease = await(ioc, client.lease_grant(5s));
  BOOST_TEST_REQUIRE(lease.ok(), why(lease));
  BOOST_TEST(await(ioc, client.put({"/cla-test/leased", "1", lease.value()})).ok());

  // etcd drops the user's tokens when the password is set (even to the same one), as when a token
  // expires or its member restarts: the client fetches a new one and the call goes through.
  etcd.change_password("agent", "s3cret");
  const auto renewed = await(ioc, client.put({"/cla-test/a", "2", 0}));
  BOOST_TEST_REQUIRE(renewed.ok(), why(renewed));

  // A new password the agent does not know: one new authentication, refused, reported; no loop.
  etcd.change_password("agent", "rotated");
  const auto rotated = await(ioc, client.put({"/cla-test/a", "3", 0}));
  BOOST_TEST_REQUIRE(!rotated.ok());
  BOOST_TEST((rotated.error().kind == Kind::auth));
  BOOST_TEST(!rotated.error().fail_over());
  BOOST_TEST(rotated.error().detail.find("authentication failed") != std::string::npos,
             rotated.error().detail);
}

BOOST_AUTO_TEST_SUITE_END()
