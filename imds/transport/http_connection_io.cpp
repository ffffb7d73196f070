// HttpConnection's request out and answer in, shaped for the idle poll (SPEC 4: at most 4 system calls per
// idle poll on a kept-alive connection): the tick's epoll_wait, one send, the epoll_wait that sees the answer
// arrive, one receive.
//
// Why not Beast's async_write/async_read: Asio starts a read by trying it at once ("speculative"), and the
// answer is never there right after the request went out, so each poll paid a recvfrom that failed with
// EAGAIN (Boost 1.81 tries at once again after any read that got bytes; only end of stream stops it); when it
// is there, the completion is posted, and a posted handler makes the event loop poll epoll with a zero
// timeout before running it. Here the request goes out by one non-blocking send from the code that starts the
// exchange (the tick, for a poll). The answer is awaited either with async_wait(wait_read), which completes
// from epoll_wait itself but costs an epoll_ctl to start (Asio starts every non-speculative operation that
// way), or, with AnswerWatch::caller (the poll), with no Asio operation at all: the socket is in epoll since
// connect, so the answer's arrival wakes the loop, whose runner calls woke(). Then the socket is read
// without blocking. Asio registers sockets edge-triggered: bytes left unread when the wait completed are not
// announced again, so a read goes on until the answer is whole or the socket has nothing more (EAGAIN).
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/http/error.hpp>

#include "imds/transport/http_connection.hpp"
#include "imds/transport/tls_session.hpp"

namespace cla {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;

constexpr std::size_t kReadSize = 16 * 1024;

bool would_block(const beast::error_code& ec) {
  return ec == asio::error::would_block || ec == asio::error::try_again;
}

}  // namespace

// Written here rather than through Beast's serializer: its only way to a contiguous string is an
// std::ostream, and the bytes of the poll's GET are built once anyway.
std::string to_wire(const HttpConnection::Request& request) {
  std::string out;
  out.append(request.method_string()).append(" ").append(request.target()).append(" HTTP/1.1\r\n");
  for (const auto& field : request)
    out.append(field.name_string()).append(": ").append(field.value()).append("\r\n");
  out.append("\r\n").append(request.body());
  return out;
}

// The whole request at once when the socket takes it (a small request on an idle connection always fits):
// how much went out, without blocking; run_steps writes the rest when there is room.
std::size_t HttpConnection::send_now(std::string_view wire, beast::error_code& ec) {
  const std::size_t sent = stream_->send(asio::buffer(wire), 0, ec);
  if (would_block(ec)) ec = {};
  return sent;
}

// Reads and parses what the socket holds, without blocking: until the answer is whole (`drained` false), an
// error, or nothing more to read (`drained` true: wait for more).
beast::error_code HttpConnection::read_available(AnswerParser& parser, bool& got_some, bool& drained) {
  for (;;) {
    beast::error_code ec;
    const std::size_t n = stream_->read_some(buffer_.prepare(kReadSize), ec);
    if (would_block(ec)) {
      drained = true;
      return {};
    }
    if (ec == asio::error::eof) {
      if (!got_some) return http::error::end_of_stream;  // closed before answering: maybe a stale connection
      parser.put_eof(ec);
      return ec;
    }
    if (ec) return ec;
    buffer_.commit(n);
    got_some = true;
    bool done = false;
    if ((ec = parse_buffered(parser, done)) || done) return ec;
  }
}

// A TLS connection's answer: OpenSSL reads through Asio's operations (TLS records, not the socket's bytes,
// decide when there is something to parse).
asio::awaitable<beast::error_code> HttpConnection::read_tls(AnswerParser& parser, bool& got_some) {
  for (;;) {
    auto [ec, n] = co_await tls_->read_some(buffer_.prepare(kReadSize));
    if (ec == asio::error::eof) {
      if (!got_some) co_return http::error::end_of_stream;  // as read_available says
      parser.put_eof(ec);
      co_return ec;
    }
    if (ec) co_return ec;
    buffer_.commit(n);
    got_some = true;
    bool done = false;
    if ((ec = parse_buffered(parser, done)) || done) co_return ec;
  }
}

// Feeds the parser what buffer_ holds: `done` once the answer is whole.
beast::error_code HttpConnection::parse_buffered(AnswerParser& parser, bool& done) {
  while (buffer_.size() > 0) {
    beast::error_code ec;
    const std::size_t used = parser.put(buffer_.data(), ec);
    buffer_.consume(used);
    if (ec == http::error::need_more) break;
    if (ec) return ec;
    if (parser.is_done()) {
      done = true;
      return {};
    }
    if (used == 0) break;
  }
  return {};
}

}  // namespace cla
