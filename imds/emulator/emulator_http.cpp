// Small HTTP/JSON helpers shared by imds-emulator's VM and admin handlers.
#include "imds/emulator/emulator_http.hpp"

#include <boost/beast/http/field.hpp>
#include <boost/json/serialize.hpp>

namespace cla {

namespace http = boost::beast::http;

HttpResponse json_response(http::status status, const boost::json::value& body, const HttpRequest& req) {
  return json_text_response(status, boost::json::serialize(body), req);
}

HttpResponse json_text_response(http::status status, std::string body, const HttpRequest& req) {
  HttpResponse res{status, req.version()};
  res.set(http::field::content_type, "application/json; charset=utf-8");
  res.set(http::field::server, "imds-emulator");
  res.keep_alive(req.keep_alive());
  res.body() = std::move(body);
  res.prepare_payload();
  return res;
}

HttpResponse error_response(http::status status, std::string message, const HttpRequest& req) {
  return json_response(status, boost::json::object{{"error", std::move(message)}}, req);
}

HttpResponse empty_response(http::status status, const HttpRequest& req) {
  HttpResponse res{status, req.version()};
  res.set(http::field::server, "imds-emulator");
  res.keep_alive(req.keep_alive());
  res.prepare_payload();
  return res;
}

std::int64_t unix_seconds(WallTime t) {
  return std::chrono::duration_cast<std::chrono::seconds>(t.time_since_epoch()).count();
}

std::int64_t unix_millis(WallTime t) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
}

}  // namespace cla
