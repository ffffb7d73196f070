// The OpenSSL client context of a TLS connection, from the files as they are at that moment.
#include "imds/transport/tls_context.hpp"

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "imds/transport/secret_file.hpp"

namespace cla {
namespace {

namespace ssl = boost::asio::ssl;
using boost::system::error_code;

TlsFailure files_failure(std::string detail) {
  return {"files", std::move(detail)};
}

constexpr off_t kMaxPemBytes = 1 << 20;

// `what` (e.g. "ca_file") at `path`: a readable regular file of PEM size? Why not, with the errno text
// (OpenSSL's own reads say only "system library"); a device or a FIFO would never end.
std::optional<TlsFailure> unusable(std::string_view what, const std::string& path) {
  const std::string where = std::string(what) + " " + path + ": ";
  struct stat st {};
  if (::access(path.c_str(), R_OK) != 0 || ::stat(path.c_str(), &st) != 0)
    return files_failure(where + "cannot read: " + std::strerror(errno));
  if (!S_ISREG(st.st_mode)) return files_failure(where + "is not a regular file");
  if (st.st_size > kMaxPemBytes) return files_failure(where + "is larger than 1 MiB; is it the right file?");
  return std::nullopt;
}

}  // namespace

Result<ssl::context, TlsFailure> make_tls_context(const TlsSettings& s) {
  ssl::context ctx(ssl::context::tls_client);
  SSL_CTX_set_min_proto_version(ctx.native_handle(), TLS1_2_VERSION);
  ctx.set_verify_mode(ssl::verify_peer);
  error_code ec;
  if (auto f = unusable("ca_file", s.ca_file)) return *f;
  ctx.load_verify_file(s.ca_file, ec);
  if (ec)
    return files_failure("ca_file " + s.ca_file + ": not a PEM certificate file (" + ec.message() + ")");
  if (s.cert_file.empty()) return ctx;
  if (auto f = unusable("cert_file", s.cert_file)) return *f;
  if (auto secret = check_secret_file(s.key_file); !secret)
    return files_failure("key_file " + secret.error().message);
  // The key before the certificate: OpenSSL then keeps a certificate that does not match it and the check
  // below names the pair, rather than failing the key's load with "key values mismatch".
  // No passphrase: OpenSSL's default would prompt on the terminal (--check run by hand) for an encrypted key.
  ctx.set_password_callback([](std::size_t, ssl::context::password_purpose) { return std::string(); }, ec);
  ctx.use_private_key_file(s.key_file, ssl::context::pem, ec);
  if (ec)
    return files_failure("key_file " + s.key_file + ": not an unencrypted PEM private key (" + ec.message() +
                         ")");
  ctx.use_certificate_chain_file(s.cert_file, ec);
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
