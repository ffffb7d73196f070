// The agent's HTTP/1.1 server (Beast, C++20 coroutines): bounded requests, timeouts, a connection cap.
#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>
#include <unordered_set>

#include "agent/http/http_exchange.hpp"
#include "agent/http/http_route.hpp"
#include "state/result.hpp"

namespace cla {

// Serves a handler on one executor. Every callback, including the handler, runs on that executor, so
// run its io_context on one thread (or give a strand). Create with open(), then start(); stop() closes the
// listening socket and every connection, after which the endpoint leaves no work on the executor.
class HttpEndpoint : public std::enable_shared_from_this<HttpEndpoint> {
  struct Private {};

 public:
  // Binds and listens on `listen`; the error names the address and what failed (e.g. address in use).
  static Result<std::shared_ptr<HttpEndpoint>> open(boost::asio::any_io_executor executor,
                                                    std::string_view listen, HttpHandler handler,
                                                    HttpEndpointOptions options = {});

  HttpEndpoint(Private, boost::asio::any_io_executor executor, HttpHandler handler,
               HttpEndpointOptions options);

  // The bound address: with port 0 in `listen`, the port the system picked.
  boost::asio::ip::tcp::endpoint local_endpoint() const { return endpoint_; }
  std::uint16_t port() const { return endpoint_.port(); }

  void start();
  // Safe from any thread: the work is dispatched to the endpoint's executor.
  void stop();

 private:
  static boost::asio::awaitable<void> accept_loop(std::shared_ptr<HttpEndpoint> self);
  static boost::asio::awaitable<void> session(std::shared_ptr<HttpEndpoint> self,
                                              boost::asio::ip::tcp::socket socket);

  boost::asio::ip::tcp::acceptor acceptor_;
  boost::asio::ip::tcp::endpoint endpoint_;
  HttpHandler handler_;
  HttpEndpointOptions options_;
  std::unordered_set<boost::asio::ip::tcp::socket*> sockets_;  // open connections, closed by stop()
  bool stopped_ = false;
};

}  // namespace cla
