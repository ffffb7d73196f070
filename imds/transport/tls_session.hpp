// TlsSession: the TLS layer of one HttpConnection's connection (etcd over https, SPEC 9 "TLS"), kept apart so
// that only this file's translation unit sees OpenSSL and Asio's ssl headers.
#pragma once

#include <boost/asio/awaitable.hpp>
#include <boost/asio/buffer.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/system/error_code.hpp>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "imds/transport/tls_settings.hpp"
#include "state/result.hpp"

namespace cla {

class TlsSession {
 public:
  // A client session over `socket` (connected, and outliving the session). The files are read now, at each
  // new connection, so rotated certificates need no restart. The server's certificate must chain to
  // ca_file and carry `settings.server_name`, or `host` when that is empty (an IP literal is checked as an
  // IP address; a name is also sent as SNI).
  static Result<std::unique_ptr<TlsSession>, TlsFailure> open(boost::asio::ip::tcp::socket& socket,
                                                              const TlsSettings& settings,
                                                              const std::string& host);
  ~TlsSession();
  TlsSession(const TlsSession&) = delete;
  TlsSession& operator=(const TlsSession&) = delete;

  boost::asio::awaitable<boost::system::error_code> handshake();
  boost::asio::awaitable<boost::system::error_code> write(std::string_view bytes);
  boost::asio::awaitable<std::pair<boost::system::error_code, std::size_t>> read_some(
      boost::asio::mutable_buffer buffer);

  // Why `ec`, from the handshake or a later read or write, is a TLS failure, in an operator's words; nullopt
  // when it is not one (a reset on a connection that had worked, a timeout). `unanswered` says the
  // connection has not carried an answer yet: a server that closes it then is refusing the handshake (with
  // TLS 1.3 a client learns that its certificate was refused only at its first read).
  std::optional<TlsFailure> explain(const boost::system::error_code& ec, bool unanswered) const;

 private:
  struct Impl;
  explicit TlsSession(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace cla
