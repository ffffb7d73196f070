// "localhost" is connected to as 127.0.0.1, never looked up: the loopback rules (plain http to Jolokia,
// etcd's password over http, IMDS) accept it as loopback, so a hosts file or resolver must not send it
// elsewhere.
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read_until.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <boost/test/unit_test.hpp>
#include <filesystem>
#include <iterator>

#include "imds/endpoint.hpp"
#include "imds/transport/http_connection.hpp"

namespace asio = boost::asio;
using namespace std::chrono_literals;

namespace {

// This process's threads: Asio's resolver starts one of its own at an io_context's first lookup.
std::size_t thread_count() {
  const std::filesystem::directory_iterator tasks("/proc/self/task");
  return static_cast<std::size_t>(std::distance(tasks, std::filesystem::directory_iterator()));
}

// Answers one request with 200 on a connection accepted by `acceptor`; the peer's address in `peer`.
asio::awaitable<void> answer_once(asio::ip::tcp::acceptor& acceptor, asio::ip::address& peer) {
  auto socket = co_await acceptor.async_accept(asio::use_awaitable);
  peer = socket.remote_endpoint().address();
  std::string request;
  co_await asio::async_read_until(socket, asio::dynamic_buffer(request), "\r\n\r\n", asio::use_awaitable);
  const std::string answer = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok";
  co_await asio::async_write(socket, asio::buffer(answer), asio::use_awaitable);
}

asio::awaitable<void> exchange(
    cla::HttpConnection& connection,
    std::optional<cla::Result<cla::HttpAnswer, cla::HttpTransportFailure>>& answer) {
  answer.emplace(co_await connection.exchange("GET / HTTP/1.1\r\nHost: localhost\r\n\r\n", 5s));
}

}  // namespace

BOOST_AUTO_TEST_SUITE(http_localhost_test)

BOOST_AUTO_TEST_CASE(localhost_is_127_0_0_1_and_names_are_left_to_the_resolver) {
  BOOST_TEST((cla::address_without_lookup("localhost") == asio::ip::make_address("127.0.0.1")));
  BOOST_TEST((cla::address_without_lookup("::1") == asio::ip::make_address("::1")));
  BOOST_TEST((cla::address_without_lookup("10.0.0.5") == asio::ip::make_address("10.0.0.5")));
  BOOST_TEST(!cla::address_without_lookup("etcd-1.example").has_value());
  BOOST_TEST(!cla::address_without_lookup("localhost.example").has_value());
}

// What the loopback rules accept is what address_without_lookup connects to.
BOOST_AUTO_TEST_CASE(the_loopback_rule_accepts_exactly_what_is_connected_to_as_loopback) {
  BOOST_TEST(cla::is_loopback_host("localhost"));
  BOOST_TEST(cla::is_loopback_host("127.0.0.2"));
  BOOST_TEST(cla::is_loopback_host("::1"));
  BOOST_TEST(!cla::is_loopback_host("10.0.0.5"));
  BOOST_TEST(!cla::is_loopback_host("localhost.example"));  // a name: where it goes is the resolver's say
}

// The connection every client uses (Jolokia's, etcd's, IMDS's), to http://localhost:PORT with a listener on
// 127.0.0.1 only: answered from 127.0.0.1, and no lookup started (no resolver thread).
BOOST_AUTO_TEST_CASE(a_connection_to_localhost_reaches_127_0_0_1_without_a_lookup) {
  asio::io_context io;
  asio::ip::tcp::acceptor acceptor(io, {asio::ip::make_address("127.0.0.1"), 0});
  asio::ip::address peer;
  asio::co_spawn(io, answer_once(acceptor, peer), asio::detached);
  cla::HttpConnection connection(io.get_executor(), "localhost", acceptor.local_endpoint().port(), 1024);
  std::optional<cla::Result<cla::HttpAnswer, cla::HttpTransportFailure>> answer;
  const std::size_t threads_before = thread_count();
  asio::co_spawn(io, exchange(connection, answer), asio::detached);
  io.run();
  BOOST_REQUIRE(answer.has_value());
  BOOST_TEST_REQUIRE(answer->ok(), (answer->ok() ? "" : answer->error().detail));
  BOOST_TEST((*answer)->status == 200);
  BOOST_TEST(peer == asio::ip::make_address("127.0.0.1"));
  BOOST_TEST(thread_count() == threads_before, "a resolver thread started: localhost was looked up");
}

BOOST_AUTO_TEST_SUITE_END()
