// The pure part of the agent's HTTP endpoint: limits, listen address, and the answer to each request read.
#include "agent/http/http_exchange.hpp"

#include <boost/asio/ip/address.hpp>
#include <boost/beast/http/error.hpp>
#include <charconv>
#include <exception>
#include <string>

namespace cla {
namespace asio = boost::asio;
namespace http = boost::beast::http;
using asio::ip::tcp;
using boost::system::error_code;

namespace {

HttpWireResponse to_wire(const HttpResponse& r, unsigned version, bool keep_alive) {
  HttpWireResponse res{static_cast<http::status>(r.status), version};
  res.set(http::field::server, "cassandra-lifecycle-agent");
  res.set(http::field::content_type, r.content_type);
  if (r.status == 405) res.set(http::field::allow, "GET");
  res.keep_alive(keep_alive);
  res.body() = r.body;
  res.prepare_payload();
  return res;
}

}  // namespace

Result<tcp::endpoint> parse_listen_address(std::string_view listen) {
  const auto colon = listen.rfind(':');
  if (colon == std::string_view::npos)
    return make_error("expected HOST:PORT, got \"" + std::string(listen) + '"');
  std::string_view host = listen.substr(0, colon);
  const std::string_view port_text = listen.substr(colon + 1);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  unsigned port = 0;
  auto [end, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (port_text.empty() || ec != std::errc() || end != port_text.data() + port_text.size() || port > 65535)
    return make_error("port must be a number from 0 to 65535, got \"" + std::string(port_text) + '"');
  error_code address_ec;
  const auto address = asio::ip::make_address(std::string(host), address_ec);
  if (address_ec) return make_error("host must be an IP address, got \"" + std::string(host) + '"');
  return tcp::endpoint(address, static_cast<std::uint16_t>(port));
}

void limit_request_parser(HttpRequestParser& parser, const HttpEndpointOptions& options) {
  parser.header_limit(static_cast<std::uint32_t>(options.header_limit));
  parser.body_limit(options.body_limit);
}

std::optional<HttpWireResponse> refusal_for_read_error(const error_code& read_error) {
  unsigned status = 0;  // timeout, reset, stop(), or the client left (end_of_stream, partial_message)
  if (read_error == http::error::header_limit) {
    status = 431;
  } else if (read_error == http::error::body_limit) {
    status = 413;
  } else if (read_error != http::error::end_of_stream && read_error != http::error::partial_message &&
             read_error.category() == http::make_error_code(http::error::bad_target).category()) {
    status = 400;
  }
  if (status == 0) return std::nullopt;
  return to_wire(HttpResponse{status, "text/plain; charset=utf-8", "request refused\n"}, 11, false);
}

HttpWireResponse answer_request(const HttpWireRequest& request, const HttpHandler& handler) {
  HttpResponse answer;
  try {
    answer = handler(request.method_string(), request.target());
  } catch (const std::exception& e) {
    answer =
        HttpResponse{500, "text/plain; charset=utf-8", std::string("internal error: ") + e.what() + '\n'};
  }
  return to_wire(answer, request.version(), request.keep_alive());
}

}  // namespace cla
