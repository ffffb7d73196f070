// cassandra.jolokia.url: imds/endpoint.hpp's rules with a path (the agent's), and plain http on loopback
// only.
#include "cassandra/jolokia/jolokia_url.hpp"

#include <boost/url/parse.hpp>

#include "imds/json_read.hpp"

namespace cla {
namespace {

constexpr EndpointRules kJolokia{
    .label = "cassandra.jolokia.url",
    .example = "http://127.0.0.1:8778/jolokia",
    .https_note = "",
    .path_note = "",
    .userinfo_note = "user info is not allowed (use cassandra.jolokia.username and password_file)",
    .dns_names = true,
    .port_required = true,
    .https = true,
    .any_path = true,
};

}  // namespace

Result<JolokiaUrl> parse_jolokia_url(std::string_view text) {
  auto endpoint = parse_http_endpoint(text, kJolokia);
  if (!endpoint) return endpoint.error();
  if (!endpoint->tls && !is_loopback_host(endpoint->host)) {
    std::string message(kJolokia.label);  // appended piecewise: GCC 12 misreports `a + "..." + b`
    message.append(" ").append(quoted_excerpt(text, 200));
    message.append(": plain http only to a loopback address (127.0.0.1, ::1, localhost); use https for ");
    return make_error(message.append(endpoint->host));
  }
  const auto parsed = boost::urls::parse_uri(text);  // parse_http_endpoint accepted it
  const std::string_view path = parsed->encoded_path();
  return JolokiaUrl{std::move(endpoint.value()), std::string(path.empty() ? "/" : path)};
}

}  // namespace cla
