// The agent's HTTP/1.1 server: accept loop and one coroutine per connection, both on one executor.
#include "agent/http_endpoint.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <charconv>
#include <exception>

namespace cla {
namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using asio::ip::tcp;
using boost::system::error_code;

namespace {

// A request that cannot be served gets this status and the connection is closed; 0: close silently.
unsigned status_for_read_error(const error_code& ec) {
  if (ec == http::error::header_limit) return 431;
  if (ec == http::error::body_limit) return 413;
  if (ec == http::error::end_of_stream || ec == http::error::partial_message) return 0;  // client left
  if (ec.category() == http::make_error_code(http::error::bad_target).category()) return 400;
  return 0;  // timeout, reset, stop()
}

http::response<http::string_body> to_beast(const HttpResponse& r, unsigned version, bool keep_alive) {
  http::response<http::string_body> res{static_cast<http::status>(r.status), version};
  res.set(http::field::server, "cassandra-lifecycle-agent");
  res.set(http::field::content_type, r.content_type);
  if (r.status == 405) res.set(http::field::allow, "GET");
  res.keep_alive(keep_alive);
  res.body() = r.body;
  res.prepare_payload();
  return res;
}

}  // namespace

Result<tcp::endpoint> parse_listen_address(std::string_view listen) {
  const auto colon = listen.rfind(':');
  if (colon == std::string_view::npos)
    return make_error("expected HOST:PORT, got \"" + std::string(listen) + '"');
  std::string_view host = listen.substr(0, colon);
  const std::string_view port_text = listen.substr(colon + 1);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  unsigned port = 0;
  auto [end, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (port_text.empty() || ec != std::errc() || end != port_text.data() + port_text.size() || port > 65535)
    return make_error("port must be a number from 0 to 65535, got \"" + std::string(port_text) + '"');
  error_code address_ec;
  const auto address = asio::ip::make_address(std::string(host), address_ec);
  if (address_ec) return make_error("host must be an IP address, got \"" + std::string(host) + '"');
  return tcp::endpoint(address, static_cast<std::uint16_t>(port));
}

Result<std::shared_ptr<HttpEndpoint>> HttpEndpoint::open(asio::any_io_executor executor,
                                                         std::string_view listen, HttpHandler handler,
                                                         HttpEndpointOptions options) {
  auto endpoint = parse_listen_address(listen);
  if (!endpoint) return make_error("http.listen: " + endpoint.error().message);
  auto self = std::make_shared<HttpEndpoint>(Private{}, executor, std::move(handler), options);
  error_code ec;
  auto fail = [&](const char* what) {
    return make_error("http.listen " + std::string(listen) + ": " + what + ": " + ec.message());
  };
  auto& acceptor = self->acceptor_;
  if (acceptor.open(endpoint->protocol(), ec); ec) return fail("socket");
  if (acceptor.set_option(asio::socket_base::reuse_address(true), ec); ec) return fail("SO_REUSEADDR");
  if (acceptor.bind(*endpoint, ec); ec) return fail("bind");
  if (acceptor.listen(asio::socket_base::max_listen_connections, ec); ec) return fail("listen");
  self->endpoint_ = self->acceptor_.local_endpoint(ec);
  if (ec) return fail("local address");
  return self;
}

HttpEndpoint::HttpEndpoint(Private, asio::any_io_executor executor, HttpHandler handler,
                           HttpEndpointOptions options)
    : acceptor_(executor), handler_(std::move(handler)), options_(options) {}

void HttpEndpoint::start() {
  asio::co_spawn(acceptor_.get_executor(), accept_loop(shared_from_this()), asio::detached);
}

void HttpEndpoint::stop() {
  asio::dispatch(acceptor_.get_executor(), [self = shared_from_this()] {
    self->stopped_ = true;
    error_code ignored;
    self->acceptor_.close(ignored);
    for (tcp::socket* socket : self->sockets_) socket->close(ignored);
  });
}

asio::awaitable<void> HttpEndpoint::accept_loop(std::shared_ptr<HttpEndpoint> self) {
  while (!self->stopped_) {
    error_code ec;
    tcp::socket socket = co_await self->acceptor_.async_accept(asio::redirect_error(asio::use_awaitable, ec));
    if (self->stopped_) break;
    if (ec) {
      // Out of file descriptors and the like: wait rather than spin on an error that will repeat at once.
      asio::steady_timer pause(self->acceptor_.get_executor(), std::chrono::milliseconds(100));
      co_await pause.async_wait(asio::redirect_error(asio::use_awaitable, ec));
      continue;
    }
    if (self->sockets_.size() >= self->options_.max_connections) {
      socket.close(ec);
      continue;
    }
    asio::co_spawn(self->acceptor_.get_executor(), session(self, std::move(socket)), asio::detached);
  }
}

asio::awaitable<void> HttpEndpoint::session(std::shared_ptr<HttpEndpoint> self, tcp::socket socket) {
  beast::tcp_stream stream(std::move(socket));
  tcp::socket* tracked = &stream.socket();
  self->sockets_.insert(tracked);
  struct Untrack {
    HttpEndpoint& endpoint;
    tcp::socket* socket;
    ~Untrack() { endpoint.sockets_.erase(socket); }
  } untrack{*self, tracked};

  const auto& options = self->options_;
  beast::flat_buffer buffer;
  error_code ec;
  while (!self->stopped_) {
    http::request_parser<http::string_body> parser;
    parser.header_limit(static_cast<std::uint32_t>(options.header_limit));
    parser.body_limit(options.body_limit);
    stream.expires_after(options.timeout);
    co_await http::async_read(stream, buffer, parser, asio::redirect_error(asio::use_awaitable, ec));
    if (ec) {
      if (const unsigned status = status_for_read_error(ec); status != 0 && !self->stopped_) {
        auto res =
            to_beast(HttpResponse{status, "text/plain; charset=utf-8", "request refused\n"}, 11, false);
        stream.expires_after(options.timeout);
        co_await http::async_write(stream, res, asio::redirect_error(asio::use_awaitable, ec));
        // Read what the client still sends before closing, so that it gets the answer rather than a reset.
        stream.socket().shutdown(tcp::socket::shutdown_send, ec);
        stream.expires_after(std::chrono::seconds(1));
        for (std::size_t drained = 0; !ec && drained < 64 * 1024;)
          drained += co_await stream.async_read_some(buffer.prepare(4096),
                                                     asio::redirect_error(asio::use_awaitable, ec));
      }
      break;
    }
    const auto& req = parser.get();
    HttpResponse answer;
    try {
      answer = self->handler_(req.method_string(), req.target());
    } catch (const std::exception& e) {
      answer =
          HttpResponse{500, "text/plain; charset=utf-8", std::string("internal error: ") + e.what() + '\n'};
    }
    auto res = to_beast(answer, req.version(), req.keep_alive());
    stream.expires_after(options.timeout);
    co_await http::async_write(stream, res, asio::redirect_error(asio::use_awaitable, ec));
    if (ec || !res.keep_alive()) break;
  }
  stream.socket().shutdown(tcp::socket::shutdown_send, ec);
}

}  // namespace cla
