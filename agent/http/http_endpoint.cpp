// The agent's HTTP/1.1 server: accept loop and one coroutine per connection, both on one executor.
#include "agent/http/http_endpoint.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

namespace cla {
namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using asio::ip::tcp;
using boost::system::error_code;

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
    HttpRequestParser parser;
    limit_request_parser(parser, options);
    stream.expires_after(options.timeout);
    co_await http::async_read(stream, buffer, parser, asio::redirect_error(asio::use_awaitable, ec));
    if (ec) {
      if (auto refusal = refusal_for_read_error(ec); refusal && !self->stopped_) {
        stream.expires_after(options.timeout);
        co_await http::async_write(stream, *refusal, asio::redirect_error(asio::use_awaitable, ec));
        // Read what the client still sends before closing, so that it gets the answer rather than a reset.
        stream.socket().shutdown(tcp::socket::shutdown_send, ec);
        stream.expires_after(std::chrono::seconds(1));
        for (std::size_t drained = 0; !ec && drained < 64 * 1024;)
          drained += co_await stream.async_read_some(buffer.prepare(4096),
                                                     asio::redirect_error(asio::use_awaitable, ec));
      }
      break;
    }
    auto res = answer_request(parser.get(), self->handler_);
    stream.expires_after(options.timeout);
    co_await http::async_write(stream, res, asio::redirect_error(asio::use_awaitable, ec));
    if (ec || !res.keep_alive()) break;
  }
  stream.socket().shutdown(tcp::socket::shutdown_send, ec);
}

}  // namespace cla
