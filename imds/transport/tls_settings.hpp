// TLS for an HttpConnection (etcd, SPEC 9 "TLS"): which files to trust and present, and why a connection
// failed in TLS.
#pragma once

#include <optional>
#include <string>

namespace cla {

struct TlsSettings {
  std::string ca_file;      // PEM: the CA(s) the server's certificate must chain to (required)
  std::string cert_file;    // PEM: the client certificate (chain), presented with key_file when both are set
  std::string key_file;     // PEM: its private key (a secret file: no group or other access)
  std::string server_name;  // the name the server's certificate must carry; empty: the endpoint's host
  bool operator==(const TlsSettings&) const = default;
};

// Why TLS failed, for the `tls_error` log line: `reason` is one of
//   files              a file could not be read or used (missing, not PEM, key not matching, readable by all)
//   unknown_ca         the server's certificate does not chain to ca_file
//   name_mismatch      the server's certificate is not for the expected name
//   expired            the server's certificate expired (or is not valid yet)
//   handshake_refused  the server refused the handshake (e.g. no, expired or untrusted client certificate)
//   not_tls            the server does not speak TLS (an http:// endpoint written as https://?)
//   other              anything else OpenSSL reports
// and `detail` says it for an operator, naming the file or the name.
struct TlsFailure {
  std::string reason;
  std::string detail;
};

// Whether the files load as a connection loads them (readable, PEM, the key matching the certificate and
// accessible to its owner alone): nullopt, or why not (reason "files", the detail naming the key and the
// file).
std::optional<TlsFailure> check_tls_files(const TlsSettings& settings);

}  // namespace cla
