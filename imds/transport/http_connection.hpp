// HttpConnection: one kept-alive HTTP/1.1 client connection to one server, shared by the IMDS and etcd
// clients: opened on demand, every exchange bounded in time and size, transport failures classified.
#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/string_body.hpp>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "imds/transport/address_without_lookup.hpp"
#include "imds/transport/answer_parser.hpp"
#include "imds/transport/loop_wake.hpp"
#include "imds/transport/tls_settings.hpp"
#include "state/result.hpp"

namespace cla {

class TlsSession;

// Why an exchange got no answer. Detail examples: "connect 127.0.0.1:8080: Connection refused",
// "no response within 5000 ms (read)", "body larger than 1048576 bytes", "cancelled during write",
// "tls unknown_ca: the server's certificate is not signed by a CA in ca_file ...".
struct HttpTransportFailure {
  enum class Kind { connect, timeout, body_too_large, cancelled, tls };
  Kind kind = Kind::connect;
  std::string detail;
  TlsFailure tls;  // Kind::tls: why
};

// A client's own failure kind for a transport failure: each client's Kind names these alike (a client
// without TLS has no `tls` kind: its connections never fail that way).
template <class ClientKind>
ClientKind transport_kind(HttpTransportFailure::Kind kind) {
  switch (kind) {
    case HttpTransportFailure::Kind::tls:
      if constexpr (requires { ClientKind::tls; })
        return ClientKind::tls;
      else
        return ClientKind::connect;
    case HttpTransportFailure::Kind::connect:
      return ClientKind::connect;
    case HttpTransportFailure::Kind::timeout:
      return ClientKind::timeout;
    case HttpTransportFailure::Kind::body_too_large:
      return ClientKind::body_too_large;
    case HttpTransportFailure::Kind::cancelled:
      return ClientKind::cancelled;
  }
  return ClientKind::connect;
}

// Who ends an exchange that outlives its timeout: the connection's own timer, or the caller, which calls
// expire_overdue() regularly (the IMDS poll's tick, which runs anyway: no timer, no wake-up of its own).
enum class DeadlineWatch { own_timer, caller };

// How an exchange learns that its answer arrived: an Asio wait on the socket (whose start costs an
// epoll_ctl), or the caller, which calls woke() after each wake-up of the event loop (the agent's run loop,
// run_with_ticks): the answer's arrival wakes the loop anyway, and reading it then costs one recvfrom.
enum class AnswerWatch { asio_wait, caller };

class HttpConnection {
 public:
  using Request = boost::beast::http::request<boost::beast::http::string_body>;
  using Response = HttpAnswer;

  // `host` is an IP address literal, localhost (127.0.0.1), or a DNS name resolved at each connect (so a
  // moved name is followed).
  // With `tls`, each new connection reads its files and completes a TLS handshake, verifying the server,
  // before the first request (AnswerWatch::caller is for plain connections only: TLS reads go through Asio).
  HttpConnection(boost::asio::any_io_executor ex, std::string host, std::uint16_t port,
                 std::size_t body_limit, DeadlineWatch watch = DeadlineWatch::own_timer,
                 AnswerWatch answers = AnswerWatch::asio_wait, std::optional<TlsSettings> tls = std::nullopt);
  ~HttpConnection();
  HttpConnection(const HttpConnection&) = delete;
  HttpConnection& operator=(const HttpConnection&) = delete;

  // Sends `wire` (a request's bytes: to_wire) and reads the whole answer (chunked or not), all within
  // `timeout`, connecting first when no connection is open. A reused connection that the server had closed
  // while it sat idle (the request fails before any answer) is retried once on a fresh one: send only
  // requests that may be repeated. After a failure, or an answer without keep-alive, the connection is
  // closed. One exchange at a time.
  boost::asio::awaitable<Result<Response, HttpTransportFailure>> exchange(std::string_view wire,
                                                                          std::chrono::milliseconds timeout);

  // DeadlineWatch::caller: ends the exchange in flight as a timeout if its deadline is at or before `at`.
  void expire_overdue(std::chrono::steady_clock::time_point at);
  // AnswerWatch::caller: the event loop woke; reads what the answer in flight has received, if any.
  void woke() { answer_wake_.woke(); }
  // Ends the exchange in flight, if any, as cancelled. Call from the executor's thread.
  void cancel();
  // Closes the connection (the next exchange opens a new one); e.g. after an answer the caller rejects.
  void close();
  bool is_open() const { return stream_.has_value(); }
  // "host:port" ("[::1]:port" for IPv6), for messages.
  const std::string& where() const { return where_; }

 private:
  struct Attempt;
  struct Steps;
  Attempt outcome(Steps& steps, bool reused, std::chrono::milliseconds timeout);
  boost::asio::awaitable<void> run_steps(std::string_view wire, Steps& steps);
  // http_connection_io.cpp: the request out and the answer in, shaped for the idle poll's system calls.
  std::size_t send_now(std::string_view wire, boost::beast::error_code& ec);
  boost::beast::error_code read_available(AnswerParser& parser, bool& got_some, bool& drained);
  boost::asio::awaitable<boost::beast::error_code> read_tls(AnswerParser& parser, bool& got_some);
  boost::beast::error_code parse_buffered(AnswerParser& parser, bool& done);
  void watch_deadline();
  boost::asio::awaitable<boost::beast::error_code> connect(std::uint64_t generation);

  boost::asio::any_io_executor ex_;
  std::string host_;
  std::uint16_t port_;
  std::size_t body_limit_;
  DeadlineWatch watch_;
  AnswerWatch answers_;
  LoopWake answer_wake_;
  std::string where_;
  // A plain socket: an exchange has one deadline (see watch_deadline), not a timer armed for each read and
  // write (each arming and cancelling costs the idle poll system calls and rounds through the event loop).
  std::optional<boost::asio::ip::tcp::socket> stream_;
  std::optional<TlsSettings> tls_settings_;
  std::unique_ptr<TlsSession> tls_;  // over stream_, while it is open, with tls_settings_
  struct Deadline {  // shared with the timer's handler, which may run after the connection is gone
    explicit Deadline(const boost::asio::any_io_executor& ex) : timer(ex) {}
    boost::asio::steady_timer timer;
    std::chrono::steady_clock::time_point at{};
    bool alive = true;
    bool armed = false;
    std::uint64_t arming = 0;  // which async_wait is the current one
    bool in_flight = false;
    bool expired = false;
  };
  std::shared_ptr<Deadline> deadline_;
  boost::beast::flat_buffer buffer_;
  std::uint64_t generation_ = 0;  // bumped by cancel(); an exchange that sees it change was cancelled
};

// A request's bytes as HttpConnection::exchange sends them. Requests are HTTP/1.1 with a Content-Length
// (prepare_payload) or no body, never chunked. A client keeps those of a request it sends again and again
// (the poll's GET), so an idle poll writes nothing out.
std::string to_wire(const HttpConnection::Request& request);

}  // namespace cla
