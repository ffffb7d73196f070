// Endpoint URLs ("http://169.254.169.254", "http://10.0.0.5:2379") checked once for client and config: IMDS's
// rules and etcd's share one parser.
#include "imds/endpoint.hpp"

#include <boost/url/parse.hpp>
#include <boost/url/url_view.hpp>
#include <charconv>

#include "imds/json_read.hpp"
#include "imds/transport/address_without_lookup.hpp"

namespace cla {

Result<Endpoint> parse_http_endpoint(std::string_view text, const EndpointRules& rules) {
  auto fail = [&](std::string_view why) {
    return make_error(std::string(rules.label) + " " + quoted_excerpt(text, 200) + ": " + std::string(why));
  };
  const auto parsed = boost::urls::parse_uri(text);
  if (!parsed) return fail("not a URL like " + std::string(rules.example));
  const boost::urls::url_view& url = *parsed;
  const bool https = url.scheme_id() == boost::urls::scheme::https;
  if (https && !rules.https) return fail(rules.https_note);
  if (!https && url.scheme_id() != boost::urls::scheme::http)
    return fail(rules.https ? "the scheme must be http or https" : "the scheme must be http");
  if (!url.has_authority() || url.encoded_host().empty()) return fail("missing host");
  if (url.has_userinfo()) return fail(rules.userinfo_note);
  if (!rules.any_path && !url.encoded_path().empty() && url.encoded_path() != "/")
    return fail("no path allowed (the client adds " + std::string(rules.path_note) + ")");
  if (url.has_query() || url.has_fragment()) return fail("no query or fragment allowed");

  Endpoint endpoint;
  endpoint.tls = https;
  switch (url.host_type()) {
    case boost::urls::host_type::ipv4:
      endpoint.host = url.host_ipv4_address().to_string();
      break;
    case boost::urls::host_type::ipv6:
      endpoint.host = url.host_ipv6_address().to_string();
      break;
    case boost::urls::host_type::name:
      if (url.encoded_host() == "localhost") {
        endpoint.host = "localhost";
      } else if (!rules.dns_names) {
        return fail("the host must be an IP address or localhost (IMDS has no DNS name)");
      } else if (url.encoded_host().find('%') != boost::core::string_view::npos) {
        return fail("the host name must not be percent-encoded");
      } else {
        endpoint.host = std::string(url.encoded_host());
      }
      break;
    default:
      return fail("unsupported host");
  }
  if (url.has_port() && !url.port().empty()) {
    const auto digits = url.port();  // only digits, by the URL grammar
    unsigned port = 0;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), port);
    if (ec != std::errc() || end != digits.data() + digits.size() || port == 0 || port > 65535)
      return fail("the port must be 1..65535");
    endpoint.port = static_cast<std::uint16_t>(port);
  } else if (rules.port_required) {
    return fail("the port is required, e.g. " + std::string(rules.example));
  }
  return endpoint;
}

Result<Endpoint> parse_endpoint(std::string_view text) {
  static constexpr EndpointRules kImds{
      .label = "endpoint",
      .example = "http://127.0.0.1:8080",
      .https_note = "the scheme must be http",
      .path_note = "/metadata/...",
      .userinfo_note = "user info is not allowed",
      .dns_names = false,
      .port_required = false,
  };
  return parse_http_endpoint(text, kImds);
}

bool is_loopback(const boost::asio::ip::address& address) {
  if (address.is_v6() && address.to_v6().is_v4_mapped())
    return boost::asio::ip::make_address_v4(boost::asio::ip::v4_mapped, address.to_v6()).is_loopback();
  return address.is_loopback();
}

bool is_loopback_host(const std::string& host) {
  const auto address = address_without_lookup(host);
  return address && is_loopback(*address);
}

std::string host_header(const Endpoint& endpoint) {
  const bool ipv6 = endpoint.host.find(':') != std::string::npos;
  std::string host = ipv6 ? "[" + endpoint.host + "]" : endpoint.host;
  if (endpoint.port != 80) host += ":" + std::to_string(endpoint.port);
  return host;
}

Result<Endpoint> parse_etcd_endpoint(std::string_view url) {
  static constexpr EndpointRules kEtcd{
      .label = "etcd endpoint",
      .example = "http://10.0.0.5:2379",
      .https_note = "",
      .path_note = "/v3/...",
      .userinfo_note = "user info is not allowed (use coordination.username and coordination.password_file)",
      .dns_names = true,
      .port_required = true,
      .https = true,
  };
  return parse_http_endpoint(url, kEtcd);
}

}  // namespace cla
