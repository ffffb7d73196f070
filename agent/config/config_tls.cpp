// A client's "tls" section (coordination.tls, cassandra.jolokia.tls): its reader and its rules.
#include "agent/config/config_tls.hpp"

#include <algorithm>
#include <cctype>

#include "agent/config/config_validation.hpp"

namespace cla::config_detail {

ValueReader tls_into(TlsSettings& t, std::string_view server) {
  auto file = [](std::string_view path) -> std::optional<std::string> {
    return path.empty() ? std::nullopt : check_file_path(path);
  };
  // A DNS name or an IP address: what a server certificate can carry.
  auto server_name = [server = std::string(server)](std::string_view name) -> std::optional<std::string> {
    if (name.empty()) return std::nullopt;  // the endpoint's host
    const bool plausible = name.size() <= 253 && std::all_of(name.begin(), name.end(), [](unsigned char c) {
                             return std::isalnum(c) || c == '.' || c == '-' || c == ':' || c == '*';
                           });
    if (plausible) return std::nullopt;
    std::string example = server;  // "etcd.example.internal"
    std::transform(example.begin(), example.end(), example.begin(),
                   [](unsigned char c) { return std::tolower(c); });
    std::string message = "must be a DNS name or an IP address that ";
    message.append(server).append("'s server certificate carries, e.g. \"").append(example);
    return message.append(".example.internal\"");
  };
  return object_of({
      {"ca_file", string_into(t.ca_file, file)},
      {"cert_file", string_into(t.cert_file, file)},
      {"key_file", string_into(t.key_file, file)},
      {"server_name", string_into(t.server_name, server_name)},
  });
}

bool tls_set(const TlsSettings& t) {
  return !t.ca_file.empty() || !t.cert_file.empty() || !t.key_file.empty() || !t.server_name.empty();
}

Check check_tls_endpoint(const TlsSettings& t, const std::string& path, const std::string& url_path,
                         const std::string& url, bool https, std::string_view server) {
  if (https && t.ca_file.empty()) {
    std::string why = "is required with an https:// endpoint (";
    why.append(url).append("): the CA file that ").append(server).append("'s server certificate chains to");
    return FieldError{path + ".ca_file", why};
  }
  if (!https && tls_set(t)) {
    std::string why = "is http:// but ";
    why.append(path).append(" is set: write https://").append(url.substr(url.find("://") + 3));
    return FieldError{url_path, why.append(" (TLS settings never go with a plain endpoint)")};
  }
  return std::nullopt;
}

Check check_tls_files_at(const TlsSettings& t, const std::string& path) {
  if (t.cert_file.empty() != t.key_file.empty()) {
    const std::string missing = t.cert_file.empty() ? "cert_file" : "key_file";
    const std::string given = t.cert_file.empty() ? "key_file" : "cert_file";
    std::string why = "is required with ";
    why.append(path).append(".").append(given).append(" (the client certificate and its key go together)");
    return FieldError{path + "." + missing, why};
  }
  if (!t.ca_file.empty())
    if (auto failure = check_tls_files(t)) return FieldError{path, failure->detail};
  return std::nullopt;
}

}  // namespace cla::config_detail
