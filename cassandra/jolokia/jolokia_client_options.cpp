// jolokia_client_options: cassandra.jolokia's url, user and password file made into a client's options.
#include "cassandra/jolokia/jolokia_client_options.hpp"

#include "imds/transport/base64.hpp"
#include "imds/transport/secret_file.hpp"

namespace cla {

Result<JolokiaClientOptions> jolokia_client_options(std::string_view url, const std::string& username,
                                                    const std::string& password_file,
                                                    std::optional<TlsSettings> tls) {
  auto parsed = parse_jolokia_url(url);
  if (!parsed) return parsed.error();
  if (username.empty() != password_file.empty())
    return make_error("cassandra.jolokia: username and password_file go together (both, or neither)");
  if (parsed->endpoint.tls != tls.has_value())
    return make_error(
        std::string("cassandra.jolokia.url: ") +
        (tls ? "is http:// while TLS is configured" : "is https:// but no TLS settings are given"));
  JolokiaClientOptions options{std::move(parsed.value()), "", std::move(tls)};
  if (!username.empty()) {
    auto password = read_secret_file(password_file);
    if (!password) return password.error();
    options.authorization = "Basic " + base64_encode(username + ":" + password.value());
  }
  return options;
}

}  // namespace cla
