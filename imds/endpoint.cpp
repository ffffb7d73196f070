// The IMDS endpoint URL ("http://169.254.169.254", "http://127.0.0.1:8080"), checked once for client and
// config.
#include "imds/endpoint.hpp"

#include <boost/url/parse.hpp>
#include <boost/url/url_view.hpp>
#include <charconv>

#include "imds/json_read.hpp"

namespace cla {

Result<Endpoint> parse_endpoint(std::string_view text) {
  auto fail = [&](std::string_view why) {
    return make_error("endpoint " + quoted_excerpt(text, 200) + ": " + std::string(why));
  };
  const auto parsed = boost::urls::parse_uri(text);
  if (!parsed) return fail("not a URL like http://127.0.0.1:8080");
  const boost::urls::url_view& url = *parsed;
  if (url.scheme_id() != boost::urls::scheme::http) return fail("the scheme must be http");
  if (!url.has_authority() || url.encoded_host().empty()) return fail("missing host");
  if (url.has_userinfo()) return fail("user info is not allowed");
  if (!url.encoded_path().empty() && url.encoded_path() != "/")
    return fail("no path allowed (the client adds /metadata/...)");
  if (url.has_query() || url.has_fragment()) return fail("no query or fragment allowed");

  Endpoint endpoint;
  switch (url.host_type()) {
    case boost::urls::host_type::ipv4:
      endpoint.host = url.host_ipv4_address().to_string();
      break;
    case boost::urls::host_type::ipv6:
      endpoint.host = url.host_ipv6_address().to_string();
      break;
    case boost::urls::host_type::name:
      if (url.encoded_host() != "localhost")
        return fail("the host must be an IP address or localhost (IMDS has no DNS name)");
      endpoint.host = "localhost";
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
  }
  return endpoint;
}

std::string host_header(const Endpoint& endpoint) {
  const bool ipv6 = endpoint.host.find(':') != std::string::npos;
  std::string host = ipv6 ? "[" + endpoint.host + "]" : endpoint.host;
  if (endpoint.port != 80) host += ":" + std::to_string(endpoint.port);
  return host;
}

}  // namespace cla
