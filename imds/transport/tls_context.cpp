// The OpenSSL client context of a TLS connection, from the files as they are at that moment, each read once.
#include "imds/transport/tls_context.hpp"

#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/ssl.h>

#include <boost/asio/buffer.hpp>

#include "imds/transport/secret_file.hpp"

namespace cla {
namespace {

namespace ssl = boost::asio::ssl;
using boost::system::error_code;

TlsFailure files_failure(std::string detail) {
  return {"files", std::move(detail)};
}

constexpr std::size_t kMaxPemBytes = 1 << 20;

// `what` (e.g. "ca_file") read through the descriptor it was checked on (secret_file.hpp), never reopened by
// path: a file swapped after the check is not what gets loaded.
Result<std::string, TlsFailure> read_pem(std::string_view what, const std::string& path,
                                         FileSecrecy secrecy) {
  auto read = read_checked_file(path, kMaxPemBytes, secrecy);
  if (!read) return files_failure(std::string(what) + " " + read.error().message);
  return std::move(read.value());
}

}  // namespace

Result<ssl::context, TlsFailure> make_tls_context(const TlsSettings& s) {
  ssl::context ctx(ssl::context::tls_client);
  SSL_CTX_set_min_proto_version(ctx.native_handle(), TLS1_2_VERSION);
  ctx.set_verify_mode(ssl::verify_peer);
  error_code ec;
  auto ca = read_pem("ca_file", s.ca_file, FileSecrecy::public_file);
  if (!ca) return ca.error();
  ctx.add_certificate_authority(boost::asio::buffer(*ca), ec);
  if (ec)
    return files_failure("ca_file " + s.ca_file + ": not a PEM certificate file (" + ec.message() + ")");
  if (s.cert_file.empty()) return ctx;
  auto cert = read_pem("cert_file", s.cert_file, FileSecrecy::public_file);
  if (!cert) return cert.error();
  auto key = read_pem("key_file", s.key_file, FileSecrecy::secret);
  if (!key) return key.error();
  // The key before the certificate: OpenSSL then keeps a certificate that does not match it and the check
  // below names the pair, rather than failing the key's load with "key values mismatch".
  // No passphrase: OpenSSL's default would prompt on the terminal (--check run by hand) for an encrypted key.
  ctx.set_password_callback([](std::size_t, ssl::context::password_purpose) { return std::string(); }, ec);
  ctx.use_private_key(boost::asio::buffer(*key), ssl::context::pem, ec);
  OPENSSL_cleanse(key->data(), key->size());
  if (ec)
    return files_failure("key_file " + s.key_file + ": not an unencrypted PEM private key (" + ec.message() +
                         ")");
  ctx.use_certificate_chain(boost::asio::buffer(*cert), ec);
  if (ec)
    return files_failure("cert_file " + s.cert_file + ": not a PEM certificate file (" + ec.message() + ")");
  if (SSL_CTX_check_private_key(ctx.native_handle()) != 1) {
    ERR_clear_error();
    return files_failure("key_file " + s.key_file + " is not the key of cert_file " + s.cert_file);
  }
  return ctx;
}

std::optional<TlsFailure> check_tls_files(const TlsSettings& settings) {
  auto context = make_tls_context(settings);
  if (!context) return context.error();
  return std::nullopt;
}

}  // namespace cla
