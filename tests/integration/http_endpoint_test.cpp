// The HTTP endpoint on 127.0.0.1:0 in-process: every path over keep-alive, refused oversized requests,
// the connection cap, the idle timeout, and a stop that closes everything and leaves no work behind.
#include "agent/http/http_endpoint.hpp"

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/test/unit_test.hpp>
#include <future>
#include <thread>

#include "agent_scenario.hpp"

namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using asio::ip::tcp;
using boost::system::error_code;
using namespace std::chrono_literals;
using cla::test::kMargin;

// The endpoint served by its own io_context on a thread; the destructor checks that stop() ends run().
struct Server {
  const cla::HttpEndpointOptions options;
  asio::io_context ioc;
  std::shared_ptr<cla::HttpEndpoint> endpoint;
  std::promise<void> ran;
  std::future<void> done = ran.get_future();
  std::thread thread;

  explicit Server(cla::HttpHandler handler, cla::HttpEndpointOptions options_in = {}) : options(options_in) {
    auto opened = cla::HttpEndpoint::open(ioc.get_executor(), "127.0.0.1:0", std::move(handler), options);
    BOOST_REQUIRE_MESSAGE(opened.ok(), (opened.ok() ? "" : opened.error().message));
    endpoint = *opened;
    BOOST_REQUIRE(endpoint->port() != 0);
    endpoint->start();
    thread = std::thread([this] {
      ioc.run();
      ran.set_value();
    });
  }
  // Every exchange is bounded by the endpoint's timeout: beyond it (plus kMargin) a client gives up.
  std::chrono::milliseconds ceiling() const { return options.timeout + kMargin; }
  bool stop_and_wait() {
    endpoint->stop();
    return done.wait_for(ceiling()) == std::future_status::ready;
  }
  ~Server() {
    if (!stop_and_wait()) {
      BOOST_ERROR("the endpoint left work on its io_context after stop()");
      ioc.stop();
    }
    thread.join();
  }
};

struct Reply {
  error_code ec;
  http::response<http::string_body> res;
};

// A Beast client whose every operation is bounded by `limit` (a server's ceiling()).
struct Client {
  explicit Client(std::chrono::milliseconds limit_in) : limit(limit_in) {}
  const std::chrono::milliseconds limit;
  asio::io_context ioc;
  beast::tcp_stream stream{ioc};
  beast::flat_buffer buffer;

  error_code connect(std::uint16_t port) {
    error_code result;
    stream.expires_after(limit);
    stream.async_connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), port),
                         [&](error_code ec) { result = ec; });
    run();
    return result;
  }
  Reply send(http::request<http::string_body> req) {
    Reply reply;
    req.prepare_payload();
    stream.expires_after(limit);
    http::async_write(stream, req, [&](error_code ec, std::size_t) {
      if (ec)
        reply.ec = ec;
      else
        http::async_read(stream, buffer, reply.res, [&](error_code ec2, std::size_t) { reply.ec = ec2; });
    });
    run();
    return reply;
  }
  Reply get(const std::string& target, http::verb verb = http::verb::get) {
    http::request<http::string_body> req{verb, target, 11};
    req.set(http::field::host, "127.0.0.1");
    return send(std::move(req));
  }
  // Waits for the server to close the connection; the error says how (eof, reset, timeout).
  error_code wait_closed() {
    error_code result;
    char byte;
    stream.expires_after(limit);
    stream.async_read_some(asio::buffer(&byte, 1), [&](error_code ec, std::size_t) { result = ec; });
    run();
    return result;
  }
  void run() {
    ioc.restart();
    ioc.run();
  }
};

cla::HttpHandler agent_handler() {
  cla::EndpointSources sources;
  sources.last_poll_success = [] { return std::optional(cla::WallClock::now()); };
  sources.metrics_text = [] { return std::string("cla_node_drained 0\n"); };
  sources.state_json = [] { return std::string(R"({"out_of_service":false})"); };
  return cla::make_http_handler(sources);
}

bool closed_by_peer(const error_code& ec) {
  return ec == http::error::end_of_stream || ec == asio::error::eof || ec == asio::error::connection_reset;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(http_endpoint_test)

BOOST_AUTO_TEST_CASE(serves_every_path_over_one_kept_alive_connection) {
  Server server(agent_handler());
  Client client(server.ceiling());
  BOOST_REQUIRE(!client.connect(server.endpoint->port()));
  auto health = client.get("/healthz");
  BOOST_REQUIRE(!health.ec);
  BOOST_TEST(health.res.result_int() == 200u);
  BOOST_TEST(health.res.body() == "ok\n");
  BOOST_TEST(health.res.keep_alive());
  auto metrics = client.get("/metrics");
  BOOST_REQUIRE(!metrics.ec);
  BOOST_TEST(metrics.res.result_int() == 200u);
  BOOST_TEST(std::string(metrics.res[http::field::content_type]).starts_with("text/plain; version=0.0.4"));
  BOOST_TEST(metrics.res.body() == "cla_node_drained 0\n");
  auto state = client.get("/state");
  BOOST_REQUIRE(!state.ec);
  BOOST_TEST(state.res[http::field::content_type] == "application/json");
  BOOST_TEST(state.res.body() == R"({"out_of_service":false})");
  auto missing = client.get("/admin");
  BOOST_REQUIRE(!missing.ec);
  BOOST_TEST(missing.res.result_int() == 404u);
  auto post = client.get("/state", http::verb::post);
  BOOST_REQUIRE(!post.ec);
  BOOST_TEST(post.res.result_int() == 405u);
  BOOST_TEST(post.res[http::field::allow] == "GET");
}

BOOST_AUTO_TEST_CASE(oversized_requests_are_refused) {
  Server server(agent_handler());
  Client headers(server.ceiling());
  BOOST_REQUIRE(!headers.connect(server.endpoint->port()));
  http::request<http::string_body> big{http::verb::get, "/healthz", 11};
  big.set("X-Padding", std::string(16 * 1024, 'a'));
  auto refused = headers.send(big);
  BOOST_REQUIRE_MESSAGE(!refused.ec, refused.ec.message());
  BOOST_TEST(refused.res.result_int() == 431u);
  const auto refused_at = std::chrono::steady_clock::now();
  BOOST_TEST(closed_by_peer(headers.wait_closed()));
  // Closed at once, not by the idle timeout.
  BOOST_TEST((std::chrono::steady_clock::now() - refused_at < server.options.timeout));

  Client body(server.ceiling());
  BOOST_REQUIRE(!body.connect(server.endpoint->port()));
  http::request<http::string_body> post{http::verb::post, "/state", 11};
  post.body() = std::string(64 * 1024, 'b');
  auto too_large = body.send(post);
  BOOST_REQUIRE_MESSAGE(!too_large.ec, too_large.ec.message());
  BOOST_TEST(too_large.res.result_int() == 413u);
}

BOOST_AUTO_TEST_CASE(connections_beyond_the_cap_are_closed) {
  Server server(agent_handler(), cla::HttpEndpointOptions{.max_connections = 4});
  std::vector<std::unique_ptr<Client>> held;
  for (int i = 0; i < 4; ++i) {
    held.push_back(std::make_unique<Client>(server.ceiling()));
    BOOST_REQUIRE(!held.back()->connect(server.endpoint->port()));
    BOOST_REQUIRE(held.back()->get("/healthz").res.result_int() == 200u);  // accepted and being served
  }
  for (int i = 0; i < 3; ++i) {
    Client extra(server.ceiling());
    BOOST_REQUIRE(!extra.connect(server.endpoint->port()));
    auto reply = extra.get("/healthz");
    BOOST_TEST(reply.ec, "connection " << i << " beyond the cap was served");
  }
  held.pop_back();  // frees a slot once the server sees the close
  BOOST_TEST(cla::test::wait_until(
      [&] {
        Client next(server.ceiling());
        return !next.connect(server.endpoint->port()) && next.get("/healthz").res.result_int() == 200u;
      },
      kMargin));
  for (auto& client : held) BOOST_TEST(client->get("/metrics").res.result_int() == 200u);
}

BOOST_AUTO_TEST_CASE(idle_connections_time_out) {
  Server server(agent_handler(), cla::HttpEndpointOptions{.timeout = 200ms});
  Client idle(server.ceiling());
  BOOST_REQUIRE(!idle.connect(server.endpoint->port()));
  const auto start = std::chrono::steady_clock::now();
  const error_code ec = idle.wait_closed();
  // By the server (the client's own limit would be a timeout), and not before its timeout.
  BOOST_TEST(closed_by_peer(ec), ec.message());
  BOOST_TEST((std::chrono::steady_clock::now() - start >= server.options.timeout));
}

BOOST_AUTO_TEST_CASE(a_throwing_handler_gets_500_and_the_server_goes_on) {
  Server server([](std::string_view, std::string_view target) -> cla::HttpResponse {
    if (target == "/boom") throw std::runtime_error("state unavailable");
    return cla::HttpResponse{200, "text/plain", "fine"};
  });
  Client client(server.ceiling());
  BOOST_REQUIRE(!client.connect(server.endpoint->port()));
  auto boom = client.get("/boom");
  BOOST_TEST(boom.res.result_int() == 500u);
  BOOST_TEST(client.get("/other").res.body() == "fine");
}

BOOST_AUTO_TEST_CASE(stop_closes_the_listener_and_every_connection) {
  Server server(agent_handler());
  const auto port = server.endpoint->port();
  Client held(server.ceiling());
  BOOST_REQUIRE(!held.connect(port));
  BOOST_REQUIRE(held.get("/healthz").res.result_int() == 200u);
  const auto stopped_at = std::chrono::steady_clock::now();
  BOOST_TEST(server.stop_and_wait());
  BOOST_TEST(closed_by_peer(held.wait_closed()));
  BOOST_TEST((std::chrono::steady_clock::now() - stopped_at < server.options.timeout));  // not by idling
  Client late(server.ceiling());
  BOOST_TEST(late.connect(port) == asio::error::connection_refused);
}

BOOST_AUTO_TEST_CASE(listen_addresses_are_checked) {
  BOOST_TEST(cla::parse_listen_address("127.0.0.1:9137")->port() == 9137);
  BOOST_TEST(cla::parse_listen_address("[::1]:0")->address().is_v6());
  BOOST_TEST(cla::parse_listen_address("0.0.0.0:80")->address().is_unspecified());
  for (const char* bad :
       {"127.0.0.1", "127.0.0.1:", "127.0.0.1:65536", "127.0.0.1:9x", "localhost:9137", ":80"})
    BOOST_TEST(!cla::parse_listen_address(bad).ok(), bad);
  asio::io_context ioc;
  auto first = cla::HttpEndpoint::open(ioc.get_executor(), "127.0.0.1:0", agent_handler());
  BOOST_REQUIRE(first.ok());
  auto taken = "127.0.0.1:" + std::to_string((*first)->port());
  auto second = cla::HttpEndpoint::open(ioc.get_executor(), taken, agent_handler());
  BOOST_REQUIRE(!second.ok());
  BOOST_TEST(second.error().message.find("bind") != std::string::npos, second.error().message);
}

BOOST_AUTO_TEST_SUITE_END()
