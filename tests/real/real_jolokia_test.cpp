// Both backends see the same cluster, live (issue 34): JolokiaClient against a node's Jolokia agent beside
// nodetool and its parsers, healthy, with a node down and after a schema change; the steps over Jolokia as
// nodetool sees them; the client's failures against the real agent: a wrong password, a node down, a frozen
// node's timeout, a cancel.
#include <boost/asio.hpp>
#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>
#include <functional>

#include "agent_scenario.hpp"
#include "cassandra/jolokia/jolokia_client.hpp"
#include "cassandra/nodetool_output/running_parser.hpp"
#include "cassandra_support.hpp"
#include "client_call.hpp"
#include "real_cluster.hpp"
#include "state/text.hpp"
#include "tests/cassandra/jolokia/jolokia_normalize.hpp"

namespace {

using namespace std::chrono_literals;
using namespace cla::test::real;
namespace asio = boost::asio;
using cla::JolokiaFailure;

constexpr auto kCallLimit = 60s;  // a read's timeout: SchemaVersions waits for every live node's answer

long long ms(std::chrono::steady_clock::duration d) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(d).count();
}

// A client of node K's Jolokia agent on its own io_context, as the cluster script's status names it.
struct JolokiaNode {
  explicit JolokiaNode(int k, std::optional<std::string> password_file = std::nullopt)
      : client(ioc.get_executor(), options(k, std::move(password_file))) {}

  static cla::JolokiaClientOptions options(int k, std::optional<std::string> password_file) {
    const auto line = status_line(k);
    auto options = cla::jolokia_client_options(
        std::string(line.at("jolokia_url").as_string()), std::string(line.at("jolokia_user").as_string()),
        password_file.value_or(std::string(line.at("jolokia_password_file").as_string())));
    BOOST_TEST_REQUIRE(options.ok(), (options ? "" : options.error().message));
    return std::move(options.value());
  }

  template <class T>
  cla::Result<T, JolokiaFailure> call(asio::awaitable<cla::Result<T, JolokiaFailure>> op) {
    return cla::test::await(ioc, std::move(op), kCallLimit + 10s);
  }
  template <class T>
  T ok(asio::awaitable<cla::Result<T, JolokiaFailure>> op) {
    auto result = call(std::move(op));
    BOOST_TEST_REQUIRE(result.ok(), (result ? "" : cla::describe(result.error())));
    return std::move(result.value());
  }

  asio::io_context ioc;
  cla::JolokiaClient client;
};

template <class T>
T parsed(const std::string& address, const std::string& subcommand,
         cla::Result<T> (*parse)(std::string_view)) {
  const auto out = nodetool(address, subcommand);
  require_ok(out);
  auto result = parse(out.out);
  BOOST_TEST_REQUIRE(result.ok(), subcommand << ": " << (result ? "" : result.error().message));
  return std::move(result.value());
}

// Jolokia, nodetool, Jolokia again: when both Jolokia reads agree, nodetool saw that cluster too, and must
// give the same (a load gossiped between the calls makes them differ: then again, a few times).
template <class T>
void both_see(const std::string& what, const std::function<T()>& jolokia,
              const std::function<T()>& nodetool) {
  for (int attempt = 1; attempt <= 5; ++attempt) {
    const T before = jolokia(), seen = nodetool(), after = jolokia();
    if (before == after) {
      BOOST_TEST(before == seen, what);
      return;
    }
    BOOST_TEST_MESSAGE(what << ": the cluster changed during attempt " << attempt << "; again");
  }
  BOOST_FAIL(what << ": the cluster kept changing during 5 attempts");
}

// status, ring, describecluster, info and the running states of node K, both ways.
void both_backends_agree(int k) {
  JolokiaNode node(k);
  const std::string address = node_address(k);
  both_see<cla::ClusterStatus>(
      "status", [&] { return cla::test::in_row_order(node.ok(node.client.status(kCallLimit))); },
      [&] { return cla::test::without_ownership(parsed(address, "status", &cla::parse_nodetool_status)); });
  both_see<cla::RingTable>(
      "ring", [&] { return node.ok(node.client.ring(kCallLimit)); },
      [&] { return cla::test::without_ownership(parsed(address, "ring", &cla::parse_nodetool_ring)); });
  both_see<cla::ClusterDescription>(
      "describecluster", [&] { return node.ok(node.client.describe_cluster(kCallLimit)); },
      [&] {
        return cla::test::without_ownership(
            parsed(address, "describecluster", &cla::parse_nodetool_describecluster));
      });
  both_see<cla::NodeInfo>(
      "info", [&] { return node.ok(node.client.info(kCallLimit)); },
      [&] { return parsed(address, "info", &cla::parse_nodetool_info); });
  const auto running = node.ok(node.client.running(kCallLimit));
  BOOST_TEST(running.gossip == parsed(address, "statusgossip", &cla::parse_running));
  BOOST_TEST(running.native_transport == parsed(address, "statusbinary", &cla::parse_running));
}

struct DropKeyspace {
  std::string name;
  ~DropKeyspace() { cluster({"cql", node_address(1), "DROP KEYSPACE IF EXISTS " + name}); }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(real_jolokia_test)

BOOST_FIXTURE_TEST_CASE(both_backends_see_the_healthy_cluster, RealCase) {
  touched = {};
  for (int k = 1; k <= nodes(); ++k) both_backends_agree(k);
}

BOOST_FIXTURE_TEST_CASE(both_backends_see_a_schema_change, RealCase) {
  touched = {};
  const DropKeyspace drop{"real_jolokia"};
  require_ok(cluster({"cql", node_address(1),
                      "CREATE KEYSPACE real_jolokia WITH replication = "
                      "{'class': 'SimpleStrategy', 'replication_factor': 2}"}));
  both_backends_agree(1);
  JolokiaNode node(2);
  const auto described = node.ok(node.client.describe_cluster(kCallLimit));
  const auto ks = std::find_if(described.keyspaces->begin(), described.keyspaces->end(),
                               [](const auto& k) { return k.name == "real_jolokia"; });
  BOOST_TEST_REQUIRE((ks != described.keyspaces->end()), "node 2 lists the new keyspace");
  BOOST_TEST(ks->replication.placement_key() == "SimpleStrategy{2}");
}

BOOST_FIXTURE_TEST_CASE(both_backends_see_a_node_down, RealCase) {
  touched = {2};
  require_ok(cluster({"kill", node_address(2)}));
  BOOST_TEST_REQUIRE(
      cla::test::wait_until([] { return seen_as(node_address(1), node_address(2)) == "DN"; }, 120s));
  both_backends_agree(1);
  JolokiaNode node(1);
  const auto described = node.ok(node.client.describe_cluster(kCallLimit));
  BOOST_TEST(described.schema_versions.count(std::string(cla::kUnreachableSchemaVersion)) == 1u);
  // The down node's own agent is gone with it: no connection.
  JolokiaNode dead(2);
  const auto refused = dead.call(dead.client.status(5s));
  BOOST_TEST_REQUIRE(!refused.ok());
  BOOST_TEST(refused.error().kind == JolokiaFailure::Kind::connect, cla::describe(refused.error()));
}

BOOST_FIXTURE_TEST_CASE(steps_over_jolokia_as_nodetool_sees_them, RealCase) {
  touched = {3};
  const std::string address = node_address(3);
  JolokiaNode node(3);
  const auto step = [&](cla::JolokiaStep s) {
    const auto done = node.call(node.client.step(s, kCallLimit));
    BOOST_TEST_REQUIRE(done.ok(), cla::to_string(s) << ": " << (done ? "" : cla::describe(done.error())));
  };
  const auto running = [&] { return node.ok(node.client.running(kCallLimit)); };

  step(cla::JolokiaStep::stop_native_transport);
  BOOST_TEST(!running().native_transport);
  BOOST_TEST(!parsed(address, "statusbinary", &cla::parse_running));
  step(cla::JolokiaStep::stop_gossiping);
  BOOST_TEST(!running().gossip);
  BOOST_TEST(!parsed(address, "statusgossip", &cla::parse_running));
  BOOST_TEST(cla::test::wait_until([&] { return seen_as(node_address(1), address) == "DN"; }, 120s));

  step(cla::JolokiaStep::start_gossiping);
  step(cla::JolokiaStep::start_native_transport);
  const auto back = running();
  BOOST_TEST((back.gossip && back.native_transport && back.operation_mode == "NORMAL"), back);
  BOOST_TEST(serving(address));
}

BOOST_FIXTURE_TEST_CASE(failures_a_wrong_password_a_frozen_node_a_cancel, RealCase) {
  touched = {3};
  cla::test::TempDir dir;
  const std::string wrong = dir.file("wrong.password");
  cla::test::write_text(wrong, "not-the-password\n");
  std::filesystem::permissions(wrong,
                               std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
  JolokiaNode stranger(1, wrong);
  const auto refused = stranger.call(stranger.client.info(kCallLimit));
  BOOST_TEST_REQUIRE(!refused.ok());
  BOOST_TEST(refused.error().kind == JolokiaFailure::Kind::http_status, cla::describe(refused.error()));
  BOOST_TEST(refused.error().http_status == 401);

  JolokiaNode node(3);
  node.ok(node.client.info(kCallLimit));  // a kept-alive connection, then the node stops answering
  require_ok(cluster({"freeze", node_address(3), "8"}));
  auto started = std::chrono::steady_clock::now();
  const auto late = node.call(node.client.status(1s));
  const auto waited = std::chrono::steady_clock::now() - started;
  BOOST_TEST_REQUIRE(!late.ok());
  BOOST_TEST(late.error().kind == JolokiaFailure::Kind::timeout, cla::describe(late.error()));
  BOOST_TEST((waited >= 1s && waited < 3s), "the 1 s timeout took " << ms(waited) << " ms");

  // A call that would wait 30 s ends at once when cancelled (the freeze lasts another ~7 s).
  std::optional<cla::Result<cla::ClusterStatus, JolokiaFailure>> cancelled;
  asio::co_spawn(
      node.ioc, [&]() -> asio::awaitable<void> { cancelled.emplace(co_await node.client.status(30s)); },
      asio::detached);
  asio::steady_timer cancel_at(node.ioc, 300ms);
  cancel_at.async_wait([&](const boost::system::error_code&) { node.client.cancel(); });
  started = std::chrono::steady_clock::now();
  node.ioc.restart();
  while (!cancelled && node.ioc.run_one_for(5s) > 0) {
  }
  const auto took = std::chrono::steady_clock::now() - started;
  BOOST_TEST_REQUIRE(cancelled.has_value());
  BOOST_TEST_REQUIRE(!cancelled->ok());
  BOOST_TEST(cancelled->error().kind == JolokiaFailure::Kind::cancelled, cla::describe(cancelled->error()));
  BOOST_TEST(took < 1s, "cancelled after " << ms(took) << " ms");
}

BOOST_AUTO_TEST_SUITE_END()
