// TlsSession: the TLS layer of one HttpConnection's connection (etcd over https, SPEC 9 "TLS").
#include "imds/transport/tls_session.hpp"

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509_vfy.h>
#include <unistd.h>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/ip/address.hpp>
#include <boost/asio/ssl/error.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/http/error.hpp>

#include "imds/transport/tls_context.hpp"

namespace cla {
namespace {

namespace asio = boost::asio;
namespace ssl = asio::ssl;
using boost::system::error_code;

constexpr auto nothrow = asio::as_tuple(asio::use_awaitable);

bool unknown_issuer(long verify) {
  switch (verify) {
    case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT:
    case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY:
    case X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE:
    case X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT:
    case X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN:
    case X509_V_ERR_CERT_SIGNATURE_FAILURE:
      return true;
    default:
      return false;
  }
}

}  // namespace

struct TlsSession::Impl {
  Impl(ssl::context c, asio::ip::tcp::socket& socket, TlsSettings s, std::string n)
      : context(std::move(c)), stream(socket, context), settings(std::move(s)), name(std::move(n)) {}
  ssl::context context;
  ssl::stream<asio::ip::tcp::socket&> stream;
  TlsSettings settings;
  std::string name;  // what the server's certificate must carry
  bool handshaken = false;
};

TlsSession::TlsSession(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
TlsSession::~TlsSession() = default;

Result<std::unique_ptr<TlsSession>, TlsFailure> TlsSession::open(asio::ip::tcp::socket& socket,
                                                                 const TlsSettings& settings,
                                                                 const std::string& host) {
  auto context = make_tls_context(settings);
  if (!context) return context.error();
  const std::string name = settings.server_name.empty() ? host : settings.server_name;
  auto impl = std::make_unique<Impl>(std::move(context.value()), socket, settings, name);
  SSL* handle = impl->stream.native_handle();
  X509_VERIFY_PARAM* param = SSL_get0_param(handle);
  X509_VERIFY_PARAM_set_hostflags(param, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
  error_code not_ip;
  asio::ip::make_address(name, not_ip);
  const bool set = not_ip ? X509_VERIFY_PARAM_set1_host(param, name.c_str(), 0) == 1 &&
                                SSL_set_tlsext_host_name(handle, name.c_str()) == 1
                          : X509_VERIFY_PARAM_set1_ip_asc(param, name.c_str()) == 1;
  if (!set) {
    ERR_clear_error();
    return TlsFailure{"other", "cannot check the server's certificate for \"" + name + "\""};
  }
  return std::unique_ptr<TlsSession>(new TlsSession(std::move(impl)));
}

asio::awaitable<error_code> TlsSession::handshake() {
  auto [ec] = co_await impl_->stream.async_handshake(ssl::stream_base::client, nothrow);
  impl_->handshaken = !ec;
  co_return ec;
}

asio::awaitable<error_code> TlsSession::write(std::string_view bytes) {
  auto [ec, written] = co_await asio::async_write(impl_->stream, asio::buffer(bytes), nothrow);
  co_return ec;
}

asio::awaitable<std::pair<error_code, std::size_t>> TlsSession::read_some(asio::mutable_buffer buffer) {
  auto [ec, n] = co_await impl_->stream.async_read_some(buffer, nothrow);
  if (ec == ssl::error::stream_truncated)
    ec = asio::error::eof;  // closed without close_notify: an end all the same
  co_return std::pair{ec, n};
}

std::optional<TlsFailure> TlsSession::explain(const error_code& ec, bool unanswered) const {
  const TlsSettings& s = impl_->settings;
  const long verify = SSL_get_verify_result(impl_->stream.native_handle());
  if (verify != X509_V_OK) {
    const std::string text = X509_verify_cert_error_string(verify);
    if (verify == X509_V_ERR_HOSTNAME_MISMATCH || verify == X509_V_ERR_IP_ADDRESS_MISMATCH)
      return TlsFailure{"name_mismatch", "the server's certificate is not for \"" + impl_->name +
                                             "\" (set coordination.tls.server_name to a name it carries)"};
    if (verify == X509_V_ERR_CERT_HAS_EXPIRED)
      return TlsFailure{"expired", "the server's certificate has expired"};
    if (verify == X509_V_ERR_CERT_NOT_YET_VALID)
      return TlsFailure{"expired", "the server's certificate is not valid yet (is this host's clock right?)"};
    if (unknown_issuer(verify))
      return TlsFailure{"unknown_ca", "the server's certificate is not signed by a CA in ca_file " +
                                          s.ca_file + " (" + text + ")"};
    return TlsFailure{"other", "the server's certificate was refused: " + text};
  }
  const std::string client_hint =
      s.cert_file.empty()
          ? "no client certificate is set (coordination.tls.cert_file and key_file): etcd with "
            "--client-cert-auth wants one"
          : "does the server trust the CA of cert_file " + s.cert_file + ", and is that certificate valid?";
  if (ec.category() == asio::error::get_ssl_category()) {
    const int reason = ERR_GET_REASON(static_cast<unsigned long>(ec.value()));
    if (reason == SSL_R_WRONG_VERSION_NUMBER || reason == SSL_R_HTTP_REQUEST ||
        reason == SSL_R_PACKET_LENGTH_TOO_LONG)
      return TlsFailure{"not_tls", "the server does not speak TLS here (" + ec.message() +
                                       "); is the endpoint an http:// one?"};
    if (reason >= SSL_AD_REASON_OFFSET)  // an alert the server sent
      return TlsFailure{"handshake_refused",
                        "the server refused the connection (" + ec.message() + "); " + client_hint};
    return TlsFailure{"other", ec.message()};
  }
  const bool closed = ec == ssl::error::stream_truncated || ec == asio::error::eof ||
                      ec == boost::beast::http::error::end_of_stream || ec == asio::error::connection_reset ||
                      ec == asio::error::broken_pipe;
  if (closed && !impl_->handshaken)  // a TLS server answers a ClientHello, with an alert if nothing else
    return TlsFailure{"not_tls", "the server closed the connection without a TLS answer (" + ec.message() +
                                     "); is the endpoint an http:// one?"};
  if (closed && unanswered)
    return TlsFailure{"handshake_refused", "the server closed the connection before answering (" +
                                               ec.message() + "); " + client_hint};
  return std::nullopt;
}

}  // namespace cla
