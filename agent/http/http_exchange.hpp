// The pure part of the agent's HTTP endpoint: its limits, its listen address, and the answer to each request
// as read off the wire (or to the read's failure). No socket here, so the fuzzer and tests drive it directly.
#pragma once

#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/system/error_code.hpp>
#include <chrono>
#include <cstddef>
#include <optional>
#include <string_view>

#include "agent/http/http_route.hpp"
#include "state/result.hpp"

namespace cla {

struct HttpEndpointOptions {
  std::size_t header_limit = 8 * 1024;      // larger request headers get 431
  std::size_t body_limit = 8 * 1024;        // larger request bodies get 413
  std::chrono::milliseconds timeout{5000};  // to receive one whole request, or to send one response
  std::size_t max_connections = 16;         // connections beyond this are closed as soon as accepted
};

using HttpRequestParser = boost::beast::http::request_parser<boost::beast::http::string_body>;
using HttpWireRequest = boost::beast::http::request<boost::beast::http::string_body>;
using HttpWireResponse = boost::beast::http::response<boost::beast::http::string_body>;

// "HOST:PORT" where HOST is an IPv4 address or a bracketed IPv6 address ("[::1]:9137"); port 0 picks one.
Result<boost::asio::ip::tcp::endpoint> parse_listen_address(std::string_view listen);

// Applies the header and body limits of `options` to a parser for one request.
void limit_request_parser(HttpRequestParser& parser, const HttpEndpointOptions& options);

// The answer to a request that could not be read (`read_error`): 431 for headers over the limit, 413 for a
// body over it, 400 for a malformed request, each with "Connection: close"; nothing (close silently) when
// the client left, the read timed out or the endpoint stopped.
std::optional<HttpWireResponse> refusal_for_read_error(const boost::system::error_code& read_error);

// The handler's answer to a request read whole, in the request's HTTP version and keep-alive; a handler
// that throws gives 500 with the exception's text.
HttpWireResponse answer_request(const HttpWireRequest& request, const HttpHandler& handler);

}  // namespace cla
