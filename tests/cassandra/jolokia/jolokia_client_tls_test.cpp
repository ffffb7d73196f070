// The Jolokia client over https, configured by cassandra.jolokia.tls: against a local TLS listener whose
// certificate chains to the configured ca_file it gets an answer; with another CA it fails as tls.
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read_until.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>
#include <optional>
#include <string>

#include "agent/config/config.hpp"
#include "agent/config/config_cassandra.hpp"
#include "cassandra/jolokia/jolokia_client.hpp"
#include "tests/support/tls_certificates.hpp"

namespace asio = boost::asio;
using namespace std::chrono_literals;

namespace {

using Running = cla::Result<cla::RunningState, cla::JolokiaFailure>;

// The server's side: one TLS connection, answered 401 (the client's request reached it, over TLS).
asio::awaitable<void> answer_once(asio::ip::tcp::acceptor& acceptor, asio::ssl::context& context) {
  try {
    asio::ssl::stream<asio::ip::tcp::socket> stream(co_await acceptor.async_accept(asio::use_awaitable),
                                                    context);
    co_await stream.async_handshake(asio::ssl::stream_base::server, asio::use_awaitable);
    std::string request;
    co_await asio::async_read_until(stream, asio::dynamic_buffer(request), "\r\n\r\n", asio::use_awaitable);
    const std::string answer = "HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
    co_await asio::async_write(stream, asio::buffer(answer), asio::use_awaitable);
  } catch (const boost::system::system_error&) {
    // The client refused the handshake (the CA case): nothing to answer.
  }
}

asio::awaitable<void> ask(cla::JolokiaClient& client, std::optional<Running>& out) {
  out.emplace(co_await client.running(5s));
}

// cassandra.jolokia for https://127.0.0.1:PORT/jolokia with `ca_file`, through parse_config and
// jolokia_options as the agent builds its client; the call's outcome against the local listener.
Running call_with_ca(const cla::test::TlsCertificates& certs, const std::string& ca_file) {
  asio::io_context io;
  asio::ssl::context server_context(asio::ssl::context::tls_server);
  server_context.use_certificate_chain_file(certs.file("server.pem"));
  server_context.use_private_key_file(certs.file("server.key"), asio::ssl::context::pem);
  asio::ip::tcp::acceptor acceptor(io, {asio::ip::make_address("127.0.0.1"), 0});
  asio::co_spawn(io, answer_once(acceptor, server_context), asio::detached);

  const std::string url =
      "https://127.0.0.1:" + std::to_string(acceptor.local_endpoint().port()) + "/jolokia";
  boost::json::object jolokia{{"url", url}, {"tls", {{"ca_file", ca_file}}}};
  const auto text = boost::json::serialize(
      boost::json::object{{"cassandra", {{"backend", "jolokia"}, {"jolokia", jolokia}}}});
  auto config = cla::parse_config(text, "t.json");
  BOOST_TEST_REQUIRE(config.ok(), (config ? "" : config.error().message));
  auto options = cla::jolokia_options(config->cassandra.jolokia);
  BOOST_TEST_REQUIRE(options.ok(), (options ? "" : options.error().message));

  cla::JolokiaClient client(io.get_executor(), std::move(options.value()));
  std::optional<Running> outcome;
  asio::co_spawn(io, ask(client, outcome), asio::detached);
  io.run();
  BOOST_TEST_REQUIRE(outcome.has_value());
  return std::move(*outcome);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(jolokia_client_tls_test)

BOOST_AUTO_TEST_CASE(the_configured_ca_verifies_the_server_and_the_request_goes_over_tls) {
  cla::test::TlsCertificates certs;
  const auto outcome = call_with_ca(certs, certs.file("ca.pem"));
  BOOST_TEST_REQUIRE(!outcome.ok());
  BOOST_TEST(outcome.error().kind == cla::JolokiaFailure::Kind::http_status, cla::describe(outcome.error()));
  BOOST_TEST(outcome.error().http_status == 401);
}

BOOST_AUTO_TEST_CASE(a_server_not_signed_by_the_configured_ca_is_refused_as_tls) {
  cla::test::TlsCertificates certs;
  const auto outcome = call_with_ca(certs, certs.file("other-ca.pem"));
  BOOST_TEST_REQUIRE(!outcome.ok());
  BOOST_TEST(outcome.error().kind == cla::JolokiaFailure::Kind::tls, cla::describe(outcome.error()));
  BOOST_TEST(outcome.error().detail.find("unknown_ca") != std::string::npos, outcome.error().detail);
}

BOOST_AUTO_TEST_SUITE_END()
