// The OpenSSL client context of a TLS connection (TlsSession), built from TlsSettings' files as they are at
// that moment; only TLS units include this (it brings OpenSSL's headers).
#pragma once

#include <boost/asio/ssl/context.hpp>

#include "imds/transport/tls_settings.hpp"
#include "state/result.hpp"

namespace cla {

// TLS 1.2 at least, the server verified against ca_file, and cert_file + key_file presented when set (the key
// checked as a secret file, and against the certificate). Errors: reason "files", naming the key and file.
Result<boost::asio::ssl::context, TlsFailure> make_tls_context(const TlsSettings& settings);

}  // namespace cla
