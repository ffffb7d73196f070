// ImdsClient: Scheduled Events GET/POST and compute metadata over one kept-alive HTTP/1.1 connection.
#include "imds/imds_client.hpp"

#include <boost/asio/ip/address.hpp>
#include <boost/beast/http.hpp>
#include <boost/json.hpp>
#include <boost/url/encode.hpp>
#include <boost/url/rfc/unreserved_chars.hpp>

#include "imds/document_parser.hpp"
#include "imds/json_read.hpp"

namespace cla {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using Kind = ImdsFailure::Kind;

ImdsFailure failure(Kind kind, std::string detail, int status = 0) {
  return ImdsFailure{kind, status, std::move(detail)};
}

// The failure for a non-2xx answer, or nullopt.
std::optional<ImdsFailure> status_failure(const HttpAnswer& res) {
  const int status = res.status;
  if (status >= 200 && status < 300) return std::nullopt;
  std::string detail = std::to_string(status) + " " + res.reason;
  if (status >= 300 && status < 400) {
    detail += ", not following Location " + quoted_excerpt(res.location, 200);
    return failure(Kind::redirect, std::move(detail), status);
  }
  if (!res.body.empty()) detail += ": " + quoted_excerpt(res.body, 300);
  if (status == 429) return failure(Kind::throttled, std::move(detail), status);
  if (status >= 500) return failure(Kind::server_error, std::move(detail), status);
  return failure(Kind::http_status, std::move(detail), status);
}

// GET answers carry a body only with 200; another 2xx is unexpected.
std::optional<ImdsFailure> not_200(const HttpAnswer& res) {
  if (res.status == 200) return std::nullopt;
  return failure(Kind::http_status, std::to_string(res.status) + " instead of 200", res.status);
}

ImdsFailure invalid_json(const Error& error, const HttpAnswer& res) {
  return failure(Kind::invalid_json, error.message + " in " + quoted_excerpt(res.body, 200));
}

}  // namespace

ImdsClient::ImdsClient(asio::any_io_executor ex, ImdsClientOptions options)
    : options_(std::move(options)),
      endpoint_(parse_endpoint(options_.endpoint)),
      queue_(ex),
      scheduled_events_get_(request(http::verb::get, scheduled_events_target(), {})) {
  if (!endpoint_) return;
  // IMDS has no DNS name: the host is an IP literal, or localhost taken as 127.0.0.1 without a lookup.
  const auto address = address_without_lookup(endpoint_->host);
  if (!address) return;
  connection_.emplace(ex, address->to_string(), endpoint_->port, options_.body_limit, options_.deadline_watch,
                      options_.answer_watch);
}

void ImdsClient::expire_overdue(std::chrono::steady_clock::time_point at) {
  if (connection_) connection_->expire_overdue(at);
}

void ImdsClient::woke() {
  if (connection_) connection_->woke();
}

void ImdsClient::cancel() {
  queue_.cancel();
  if (connection_) connection_->cancel();
}

std::chrono::milliseconds ImdsClient::scheduled_events_timeout() const {
  return scheduled_events_answered_ ? options_.request_timeout
                                    : std::max(options_.request_timeout, options_.first_request_timeout);
}

std::string ImdsClient::scheduled_events_target() const {
  return "/metadata/scheduledevents?api-version=" +
         boost::urls::encode(options_.api_version, boost::urls::unreserved_chars);
}

std::string ImdsClient::request(http::verb verb, std::string target, std::string body) const {
  Request request{verb, target, 11};
  if (endpoint_) request.set(http::field::host, host_header(*endpoint_));  // else call() fails before sending
  request.set("Metadata", "true");
  request.set(http::field::user_agent, "cassandra-lifecycle-agent/" CLA_VERSION);
  request.keep_alive(true);
  if (verb == http::verb::post) request.set(http::field::content_type, "application/json");
  request.body() = std::move(body);
  request.prepare_payload();
  return to_wire(request);
}

asio::awaitable<std::optional<ImdsFailure>> ImdsClient::call(std::string_view wire,
                                                             std::chrono::milliseconds timeout,
                                                             const Check& check) {
  const std::uint64_t generation = queue_.generation();
  auto turn = queue_.try_acquire(generation);
  if (!turn) {
    auto waited = co_await queue_.acquire(generation);
    if (!waited) co_return failure(Kind::cancelled, "cancelled while queued");
    turn.emplace(std::move(*waited));
  }

  if (!endpoint_) co_return failure(Kind::connect, endpoint_.error().message);
  if (!connection_) co_return failure(Kind::connect, "endpoint host is not an IP address");

  auto answer = co_await connection_->exchange(wire, timeout);
  if (!answer) co_return failure(transport_kind<Kind>(answer.error().kind), answer.error().detail);
  auto problem = status_failure(*answer);
  if (!problem) problem = check(*answer);
  if (problem) connection_->close();
  co_return problem;
}

Result<EventsDocument, ImdsFailure> ImdsClient::document_in(const Response& res) {
  if (auto f = not_200(res)) return *f;
  if (last_document_ && res.body == last_document_body_) return *last_document_;
  auto json = parse_json(res.body);
  if (!json) return invalid_json(json.error(), res);
  auto parsed = scheduled_events_from_json(*json);
  if (!parsed) return failure(Kind::wrong_shape, parsed.error().message);
  last_document_body_ = res.body;
  last_document_ = *parsed;
  return std::move(*parsed);
}

asio::awaitable<Result<EventsDocument, ImdsFailure>> ImdsClient::get_scheduled_events() {
  std::optional<EventsDocument> doc;
  auto problem = co_await call(scheduled_events_get_, scheduled_events_timeout(),
                               [&](const Response& res) -> std::optional<ImdsFailure> {
                                 auto found = document_in(res);
                                 if (!found) return found.error();
                                 doc = std::move(*found);
                                 return std::nullopt;
                               });
  if (problem) co_return *problem;
  scheduled_events_answered_ = true;
  co_return std::move(*doc);
}

asio::awaitable<std::optional<ImdsFailure>> ImdsClient::approve(std::string event_id) {
  const boost::json::object body{
      {"StartRequests", boost::json::array{boost::json::object{{"EventId", event_id}}}}};
  const std::string post = request(http::verb::post, scheduled_events_target(), boost::json::serialize(body));
  co_return co_await call(post, scheduled_events_timeout(),
                          [](const Response&) { return std::optional<ImdsFailure>(); });
}

asio::awaitable<Result<ComputeInfo, ImdsFailure>> ImdsClient::get_compute() {
  std::optional<ComputeInfo> info;
  const std::string get = request(http::verb::get, "/metadata/instance/compute?api-version=2021-02-01", {});
  auto problem =
      co_await call(get, options_.request_timeout, [&](const Response& res) -> std::optional<ImdsFailure> {
        if (auto f = not_200(res)) return f;
        auto json = parse_json(res.body);
        if (!json) return invalid_json(json.error(), res);
        auto parsed = compute_from_json(*json);
        if (!parsed) return failure(Kind::wrong_shape, parsed.error().message);
        info = std::move(*parsed);
        return std::nullopt;
      });
  if (problem) co_return *problem;
  co_return std::move(*info);
}

}  // namespace cla
