// EtcdClient against real 3-member etcd clusters on loopback: kv, transactions with a range compare, leases
// and the lease keeper.
#include "agent/coordination/etcd/etcd_client.hpp"

#include <boost/asio.hpp>
#include <boost/test/unit_test.hpp>

#include "agent/coordination/etcd/etcd_lease_keeper.hpp"
#include "etcd_client_support.hpp"
#include "etcd_cluster.hpp"

namespace {

using namespace cla::test::etcd_client_tests;
using Target = cla::EtcdCompare::Target;
using Op = cla::EtcdCompare::Op;

}  // namespace

BOOST_AUTO_TEST_SUITE(etcd_client_test)

BOOST_AUTO_TEST_CASE(put_range_and_delete_round_trip_binary_keys_and_values) {
  EtcdCluster etcd;
  asio::io_context ioc;
  // A DNS name (resolved at each connect) works as an endpoint as well as an IP literal.
  auto options = options_for({"http://localhost:" + std::to_string(etcd.client_port(0))});
  options.username = "agent";  // auth is off in this cluster: the client goes on without a token
  options.password = "unused";
  cla::EtcdClient client(ioc.get_executor(), options);
  const std::string p = "/cla-test/kv/";
  std::string bytes;
  for (int b = 0; b < 256; ++b) bytes += static_cast<char>(b);

  const auto first = await(ioc, client.put({p + "a", R"({"vm":"vm0"})", 0}));
  BOOST_TEST_REQUIRE(first.ok(), why(first));
  const auto second = await(ioc, client.put({p + std::string("\xff\x00", 2), bytes, 0}));
  BOOST_TEST_REQUIRE(second.ok(), why(second));
  BOOST_TEST(second.value() == first.value() + 1);

  const auto all = await(ioc, client.range(p, cla::prefix_range_end(p)));
  BOOST_TEST_REQUIRE(all.ok(), why(all));
  BOOST_TEST(all->revision == second.value());
  BOOST_TEST_REQUIRE(all->kvs.size() == 2u);
  BOOST_TEST(all->kvs[0].key == p + "a");
  BOOST_TEST(all->kvs[0].mod_revision == first.value());
  BOOST_TEST(all->kvs[1].key == p + std::string("\xff\x00", 2));
  BOOST_TEST(all->kvs[1].value == bytes);
  BOOST_TEST(await(ioc, client.range(p + "a"))->kvs.size() == 1u);
  const auto none = await(ioc, client.range(p + "missing"));
  BOOST_TEST(none->kvs.empty());
  BOOST_TEST(none->revision == second.value());

  // An answer above the body limit is refused (not failed over: every member would send the same); the next
  // call opens a new connection.
  auto capped_options = options_for(etcd.endpoints());
  capped_options.body_limit = 256;  // the 256-byte value alone is 344 bytes of base64
  cla::EtcdClient capped(ioc.get_executor(), capped_options);
  const auto too_big = await(ioc, capped.range(p, cla::prefix_range_end(p)));
  BOOST_TEST_REQUIRE(!too_big.ok());
  BOOST_TEST((too_big.error().kind == Kind::body_too_large), cla::describe(too_big.error()));
  BOOST_TEST(await(ioc, capped.range(p + "a")).ok());

  const auto deleted = await(ioc, client.delete_range({p, cla::prefix_range_end(p)}));
  BOOST_TEST_REQUIRE(deleted.ok(), why(deleted));
  BOOST_TEST(deleted.value() == 2);
  BOOST_TEST(etcd.get_prefix(p).empty());
  BOOST_TEST(await(ioc, client.delete_range({p + "a", ""})).value() == 0);
}

BOOST_AUTO_TEST_CASE(a_transaction_guarded_by_a_range_compare_admits_one_writer_per_revision) {
  EtcdCluster etcd;
  asio::io_context ioc;
  cla::EtcdClient client(ioc.get_executor(), options_for(etcd.endpoints()));
  const std::string drains = "/cla-test/c1/drains/";
  const std::string end = cla::prefix_range_end(drains);
  etcd.put("/cla-test/c1/members/vm0", "outside the compared range");

  // The empty range: no key to compare, so "every key's MOD < rev+1" holds.
  const auto empty = await(ioc, client.range(drains, end));
  BOOST_TEST_REQUIRE(empty.ok(), why(empty));
  const cla::EtcdCompare unchanged{Target::mod, Op::less, drains, end, empty->revision + 1, ""};
  const auto admitted = await(
      ioc, client.txn({unchanged}, {cla::EtcdPut{drains + "vm0", "rack1", 0}}, {cla::EtcdGet{drains, end}}));
  BOOST_TEST_REQUIRE(admitted.ok(), why(admitted));
  BOOST_TEST(admitted->succeeded);
  BOOST_TEST(admitted->ranges.empty());

  // A second writer that read the same (now old) revision: its compare fails; it gets the range instead.
  const auto raced = await(
      ioc, client.txn({unchanged}, {cla::EtcdPut{drains + "vm1", "rack2", 0}}, {cla::EtcdGet{drains, end}}));
  BOOST_TEST_REQUIRE(raced.ok(), why(raced));
  BOOST_TEST(!raced->succeeded);
  BOOST_TEST_REQUIRE(raced->ranges.size() == 1u);
  BOOST_TEST_REQUIRE(raced->ranges[0].kvs.size() == 1u);
  BOOST_TEST(raced->ranges[0].kvs[0].key == drains + "vm0");
  BOOST_TEST(!has_key(etcd, drains + "vm1"));

  // Reading again and deciding again: a fresh revision, and a stale record deleted guarded by its own
  // mod_revision, in the same transaction.
  const auto fresh = raced->ranges[0];
  const auto& record = fresh.kvs[0];
  const auto retried =
      await(ioc, client.txn({{Target::mod, Op::less, drains, end, fresh.revision + 1, ""},
                             {Target::mod, Op::equal, record.key, "", record.mod_revision, ""}},
                            {cla::EtcdDelete{record.key, ""}, cla::EtcdPut{drains + "vm1", "rack2", 0}}, {}));
  BOOST_TEST_REQUIRE(retried.ok(), why(retried));
  BOOST_TEST(retried->succeeded);
  const auto now = etcd.get_prefix(drains);
  BOOST_TEST_REQUIRE(now.size() == 1u);
  BOOST_TEST(now[0].first == drains + "vm1");
}

BOOST_AUTO_TEST_CASE(a_leased_key_goes_when_its_lease_runs_out_and_not_before) {
  EtcdCluster etcd;
  asio::io_context ioc;
  cla::EtcdClient client(ioc.get_executor(), options_for(etcd.endpoints()));
  const std::string key = "/cla-test/members/vm0";
  constexpr auto ttl = 2s;
  const auto lease = await(ioc, client.lease_grant(ttl));
  BOOST_TEST_REQUIRE(lease.ok(), why(lease));
  BOOST_TEST_REQUIRE(await(ioc, client.put({key, "serving", lease.value()})).ok());
  BOOST_TEST(await(ioc, client.range(key))->kvs.at(0).lease == lease.value());
  // The last keepalive: etcd refreshes the lease after `sent`, so it cannot expire before sent + TTL.
  const auto sent = std::chrono::steady_clock::now();
  const auto kept = await(ioc, client.lease_keepalive(lease.value()));
  BOOST_TEST_REQUIRE(kept.ok(), why(kept));
  BOOST_TEST((kept.value() == ttl));

  // No more keepalives: the key disappears once the TTL has run out, not before.
  BOOST_TEST_REQUIRE(run_until(
      ioc, [&] { return !has_key(etcd, key); }, ttl + kExpiryMargin));
  BOOST_TEST((std::chrono::steady_clock::now() - sent >= ttl));
  const auto dead = await(ioc, client.lease_keepalive(lease.value()));
  BOOST_TEST_REQUIRE(dead.ok(), why(dead));
  BOOST_TEST((dead.value() == 0s));
  const auto revoked = await(ioc, client.lease_revoke(lease.value()));
  BOOST_TEST_REQUIRE(!revoked.ok());
  BOOST_TEST((revoked.error().kind == Kind::lease_not_found));
}

BOOST_AUTO_TEST_CASE(the_lease_keeper_holds_its_lease_and_grants_a_new_one_after_a_loss) {
  EtcdCluster etcd;
  asio::io_context ioc;
  const auto options = options_for(etcd.endpoints());
  cla::EtcdClient client(ioc.get_executor(), options);
  const std::string key = "/cla-test/members/vm1";
  constexpr auto ttl = 3s;  // keepalives every second: a loaded machine has two more chances each time
  std::vector<std::int64_t> granted, lost;
  int puts_done = 0;
  cla::EtcdLeaseHandlers handlers;
  handlers.granted = [&](std::int64_t lease) {
    granted.push_back(lease);
    asio::co_spawn(
        ioc,
        [&client, &puts_done, key, lease]() -> asio::awaitable<void> {
          if ((co_await client.put({key, "serving", lease})).ok()) ++puts_done;
        },
        asio::detached);
  };
  handlers.lost = [&](std::int64_t lease) { lost.push_back(lease); };
  cla::EtcdLeaseKeeper keeper(ioc.get_executor(), client, ttl, handlers);
  bool finished = false;
  asio::co_spawn(ioc, keeper.run(), [&](std::exception_ptr) { finished = true; });

  BOOST_TEST_REQUIRE(run_until(
      ioc, [&] { return puts_done == 1; }, requests_ceiling(options, 2)));  // the grant, the put
  // Two TTLs later the first lease still holds the key: the keepalives at TTL/3 kept it.
  ioc.restart();
  ioc.run_for(2 * ttl);
  BOOST_TEST(granted.size() == 1u);
  BOOST_TEST(lost.empty());
  BOOST_TEST(has_key(etcd, key));
  BOOST_TEST(keeper.lease() == granted.at(0));

  // The lease revoked behind the keeper's back (as when it expired during an outage): the next keepalive
  // finds it gone, the owner hears of it, and a new lease brings the key back.
  etcd.revoke_lease(granted.at(0));
  // The next keepalive (every TTL/3) finds it gone; then a grant and the put.
  BOOST_TEST_REQUIRE(run_until(
      ioc, [&] { return puts_done == 2; }, ttl / 3 + requests_ceiling(options, 3)));
  BOOST_TEST((lost == std::vector<std::int64_t>{granted.at(0)}));
  BOOST_TEST_REQUIRE(granted.size() == 2u);
  BOOST_TEST(granted.at(1) != granted.at(0));
  BOOST_TEST(keeper.lease() == granted.at(1));
  BOOST_TEST(has_key(etcd, key));

  keeper.stop();
  BOOST_TEST_REQUIRE(run_until(
      ioc, [&] { return finished; }, requests_ceiling(options)));  // a keepalive in flight
  BOOST_TEST(run_until(
      ioc, [&] { return !has_key(etcd, key); }, ttl + kExpiryMargin));
}

BOOST_AUTO_TEST_SUITE_END()
