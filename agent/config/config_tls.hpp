// A client's "tls" section (coordination.tls, cassandra.jolokia.tls): one reader and one set of rules, so
// that every TLS client is configured and refused alike.
#pragma once

#include <string>
#include <string_view>

#include "agent/config/config_fields.hpp"
#include "imds/transport/tls_settings.hpp"

namespace cla::config_detail {

// `{"ca_file": "", "cert_file": "", "key_file": "", "server_name": ""}`: file paths, and a name the server's
// certificate carries (`server`, e.g. "etcd", names that server in the error).
ValueReader tls_into(TlsSettings& out, std::string_view server);

bool tls_set(const TlsSettings& tls);

// One endpoint of the client against its tls section at `path` ("coordination.tls"): an https:// endpoint
// needs ca_file (the CA `server`'s certificate chains to); an http:// one takes no TLS setting at all, so
// that a client key or a password never goes to it in clear. `url_path` names the endpoint's key.
Check check_tls_endpoint(const TlsSettings& tls, const std::string& path, const std::string& url_path,
                         const std::string& url, bool https, std::string_view server);

// The client certificate and its key together, and, with ca_file, every file loading as a connection loads
// it (check_tls_files).
Check check_tls_files_at(const TlsSettings& tls, const std::string& path);

}  // namespace cla::config_detail
