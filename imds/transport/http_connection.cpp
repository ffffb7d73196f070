// HttpConnection: one kept-alive HTTP/1.1 client connection to one server, shared by the IMDS and etcd
// clients: opened on demand, every exchange bounded in time and size, transport failures classified.
#include "imds/transport/http_connection.hpp"

#include <unistd.h>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/connect.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/http/error.hpp>

#include "imds/transport/tls_session.hpp"

namespace cla {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using Kind = HttpTransportFailure::Kind;

constexpr auto nothrow = asio::as_tuple(asio::use_awaitable);

// A connection the server closed while it sat idle shows these errors on the next request.
bool stale_connection_error(const beast::error_code& ec) {
  return ec == http::error::end_of_stream || ec == asio::error::eof || ec == asio::error::connection_reset ||
         ec == asio::error::broken_pipe;
}

// Connecting registered the socket with epoll for writability too, and Asio never drops an interest: an ACK
// that comes before its answer (a server slow to answer) would wake the loop with a writable edge for
// nothing. Registered afresh (once per connection), the socket is watched for reads only; a send that would
// block adds writability back for its wait.
beast::error_code watch_reads_only(asio::ip::tcp::socket& socket) {
  beast::error_code ec;
  const auto protocol = socket.local_endpoint(ec).protocol();
  if (ec) return ec;
  const auto fd = socket.release(ec);
  if (ec) return ec;
  socket.assign(protocol, fd, ec);
  if (ec) ::close(fd);
  return ec;
}

std::string host_and_port(const std::string& host, std::uint16_t port) {
  const bool ipv6 = host.find(':') != std::string::npos;
  return (ipv6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

}  // namespace

struct HttpConnection::Attempt {
  std::optional<Response> response;
  HttpTransportFailure failure;
  bool stale = false;  // failed before any answer on a reused connection: worth one retry on a fresh one
};

HttpConnection::HttpConnection(asio::any_io_executor ex, std::string host, std::uint16_t port,
                               std::size_t body_limit, DeadlineWatch watch, AnswerWatch answers,
                               std::optional<TlsSettings> tls)
    : ex_(std::move(ex)),
      host_(std::move(host)),
      port_(port),
      body_limit_(body_limit),
      watch_(watch),
      answers_(answers),
      answer_wake_(ex_),
      where_(host_and_port(host_, port)),
      tls_settings_(std::move(tls)),
      deadline_(std::make_shared<Deadline>(ex_)) {}

HttpConnection::~HttpConnection() {
  deadline_->alive = false;
  deadline_->timer.cancel();
}

void HttpConnection::expire_overdue(std::chrono::steady_clock::time_point at) {
  auto& d = *deadline_;
  if (!d.in_flight || d.at > at || d.expired) return;
  d.expired = true;
  if (stream_) stream_->cancel();
  answer_wake_.cancel();
}

void HttpConnection::cancel() {
  ++generation_;
  if (stream_) stream_->cancel();
  answer_wake_.cancel();
}

void HttpConnection::close() {
  if (!stream_) return;
  tls_.reset();  // without a close_notify: the connection is dropped either way
  beast::error_code ignored;
  stream_->shutdown(asio::ip::tcp::socket::shutdown_both, ignored);
  stream_->close(ignored);
  stream_.reset();
  buffer_.consume(buffer_.size());
}

asio::awaitable<beast::error_code> HttpConnection::connect(std::uint64_t generation) {
  if (const auto address = address_without_lookup(host_)) {
    auto [connect_ec] = co_await stream_->async_connect(asio::ip::tcp::endpoint(*address, port_), nothrow);
    co_return connect_ec;
  }
  // A name: resolved now (getaddrinfo runs on Asio's resolver thread), within the exchange's deadline.
  using namespace asio::experimental::awaitable_operators;
  asio::ip::tcp::resolver resolver(ex_);
  asio::steady_timer timer(ex_, deadline_->at);
  auto first =
      co_await (resolver.async_resolve(host_, std::to_string(port_), nothrow) || timer.async_wait(nothrow));
  if (first.index() == 1) co_return beast::error::timeout;
  auto [resolve_ec, results] = std::get<0>(std::move(first));
  if (resolve_ec) co_return resolve_ec;
  if (generation != generation_) co_return asio::error::operation_aborted;
  auto [connect_ec, endpoint] = co_await asio::async_connect(*stream_, results, nothrow);
  co_return connect_ec;
}

// What run_steps got to: the stage it stopped at, its error, and the answer when all went well.
struct HttpConnection::Steps {
  std::uint64_t generation = 0;
  std::string_view stage = "connect";
  beast::error_code ec;
  bool got_some = false;
  std::optional<TlsFailure> tls_failure;  // the TLS session could not even start (its files)
  std::optional<Response> response;
};

asio::awaitable<void> HttpConnection::run_steps(std::string_view wire, Steps& steps) {
  if (!stream_) {
    stream_.emplace(ex_);
    steps.ec = co_await connect(steps.generation);
    if (steps.ec) co_return;
    if (tls_settings_) {
      steps.stage = "tls handshake";
      auto session = TlsSession::open(*stream_, *tls_settings_, host_);
      if (!session) {
        steps.tls_failure = session.error();
        steps.ec = asio::error::access_denied;
        co_return;
      }
      tls_ = std::move(session.value());
      if ((steps.ec = co_await tls_->handshake())) co_return;
    } else {
      if ((steps.ec = watch_reads_only(*stream_))) co_return;
      stream_->non_blocking(true, steps.ec);  // for send(): once per connection, it costs a system call
      if (steps.ec) co_return;
    }
  }
  steps.stage = "write";
  if (tls_) {
    if ((steps.ec = co_await tls_->write(wire))) co_return;
  } else {
    const std::size_t sent = send_now(wire, steps.ec);
    if (steps.ec) co_return;
    if (sent < wire.size()) {  // the socket's buffer was full: the rest when there is room
      auto [write_ec, written] = co_await asio::async_write(*stream_, asio::buffer(wire) + sent, nothrow);
      if ((steps.ec = write_ec)) co_return;
    }
  }
  steps.stage = "read";
  AnswerParser parser;
  parser.body_limit(body_limit_);
  parser.eager(true);
  if (tls_) {
    if ((steps.ec = co_await read_tls(parser, steps.got_some))) co_return;
    steps.response = parser.release();
    co_return;
  }
  for (;;) {  // until the answer is whole: wait for the socket to hold bytes, read what it holds
    if (answers_ == AnswerWatch::caller) {
      auto [ec] = co_await answer_wake_.async_next(nothrow);
      if (ec) steps.ec = asio::error::operation_aborted;
    } else {
      auto [ec] = co_await stream_->async_wait(asio::ip::tcp::socket::wait_read, nothrow);
      steps.ec = ec;
    }
    if (steps.ec) co_return;
    bool drained = false;
    if ((steps.ec = read_available(parser, steps.got_some, drained))) co_return;
    if (!drained) break;
  }
  steps.response = parser.release();
}

// One timer watches the deadlines of all exchanges: it is armed when it is not already waiting for an
// instant at or before the current deadline (re-armed only when the deadline got shorter, e.g. after the
// long first call), and when it fires early (its deadline belonged to an earlier exchange) it waits again for
// the current one. An exchange that ends leaves it alone, so a prompt answer costs no timer operation.
void HttpConnection::watch_deadline() {
  auto& d = *deadline_;
  if (d.armed && d.timer.expiry() <= d.at) return;
  d.armed = true;
  const std::uint64_t arming = ++d.arming;
  d.timer.expires_at(d.at);  // cancels a later wait, whose handler then sees a newer arming and leaves
  d.timer.async_wait([d = deadline_, arming, this](const beast::error_code& ec) {
    if (arming != d->arming) return;
    d->armed = false;
    if (ec || !d->alive || !d->in_flight) return;  // the connection may be gone, `this` with it
    if (std::chrono::steady_clock::now() < d->at) return watch_deadline();
    d->expired = true;
    if (stream_) stream_->cancel();
  });
}

// What an exchange's steps came to: the answer, or the failure and whether it is worth one retry on a fresh
// connection. Closes the connection unless it stays usable.
HttpConnection::Attempt HttpConnection::outcome(Steps& steps, bool reused,
                                                std::chrono::milliseconds timeout) {
  const std::uint64_t generation = steps.generation;
  if (deadline_->expired && generation == generation_) steps.ec = beast::error::timeout;
  Attempt a;
  if (!steps.ec && generation == generation_) {
    a.response = std::move(steps.response);
    if (!a.response->keep_alive) close();
    return a;
  }
  const bool before_answer = steps.stage != "read" || !steps.got_some;
  const bool cancelled = generation != generation_ || steps.ec == asio::error::operation_aborted;
  std::optional<TlsFailure> tls_failure = std::move(steps.tls_failure);
  if (!tls_failure && tls_ && !cancelled && steps.ec != beast::error::timeout)
    tls_failure = tls_->explain(steps.ec, !reused && before_answer);
  close();
  if (cancelled) {
    a.failure = {Kind::cancelled, "cancelled during " + std::string(steps.stage), {}};
  } else if (tls_failure) {
    const std::string detail = "tls " + tls_failure->reason + " at " + where_ + ": " + tls_failure->detail;
    a.failure = {Kind::tls, detail, std::move(*tls_failure)};
  } else if (steps.ec == beast::error::timeout) {
    a.failure = {
        Kind::timeout,
        "no response within " + std::to_string(timeout.count()) + " ms (" + std::string(steps.stage) + ")",
        {}};
  } else if (steps.ec == http::error::body_limit) {
    a.failure = {Kind::body_too_large, "body larger than " + std::to_string(body_limit_) + " bytes", {}};
  } else {
    a.failure = {Kind::connect, std::string(steps.stage) + " " + where_ + ": " + steps.ec.message(), {}};
    a.stale = reused && before_answer && stale_connection_error(steps.ec);
  }
  return a;
}

// The steps run in this coroutine's own frame (no coroutine per attempt): the idle poll allocates and
// resumes as few frames as it can.
asio::awaitable<Result<HttpConnection::Response, HttpTransportFailure>> HttpConnection::exchange(
    std::string_view wire, std::chrono::milliseconds timeout) {
  const std::uint64_t generation = generation_;
  for (bool retried = false;; retried = true) {
    const bool reused = stream_.has_value();
    Steps steps;
    steps.generation = generation;
    deadline_->at = std::chrono::steady_clock::now() + timeout;
    deadline_->in_flight = true;
    deadline_->expired = false;
    if (watch_ == DeadlineWatch::own_timer) watch_deadline();
    co_await run_steps(wire, steps);
    deadline_->in_flight = false;
    Attempt a = outcome(steps, reused, timeout);
    if (a.response) co_return std::move(*a.response);
    if (!a.stale || retried) co_return std::move(a.failure);
  }
}

}  // namespace cla
