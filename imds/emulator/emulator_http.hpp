// Small HTTP/JSON helpers shared by imds-emulator's VM and admin handlers.
#pragma once

#include <boost/beast/http/message.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/json/value.hpp>
#include <cstdint>
#include <string>

#include "state/scheduled_event.hpp"

namespace cla {

using HttpRequest = boost::beast::http::request<boost::beast::http::string_body>;
using HttpResponse = boost::beast::http::response<boost::beast::http::string_body>;

// Compact JSON, "Content-Type: application/json; charset=utf-8", as IMDS answers.
HttpResponse json_response(boost::beast::http::status status, const boost::json::value& body,
                           const HttpRequest& req);
// The same with a body serialized already.
HttpResponse json_text_response(boost::beast::http::status status, std::string body, const HttpRequest& req);
// {"error": message}, IMDS's ErrorResponse shape.
HttpResponse error_response(boost::beast::http::status status, std::string message, const HttpRequest& req);
HttpResponse empty_response(boost::beast::http::status status, const HttpRequest& req);

std::int64_t unix_seconds(WallTime t);
std::int64_t unix_millis(WallTime t);

}  // namespace cla
