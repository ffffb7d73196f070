// ImdsClient: Scheduled Events GET/POST and compute metadata over one kept-alive HTTP/1.1 connection.
#include "imds/imds_client.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/use_awaitable.hpp>
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

constexpr auto nothrow = asio::as_tuple(asio::use_awaitable);

ImdsFailure failure(Kind kind, std::string detail, int status = 0) {
  return ImdsFailure{kind, status, std::move(detail)};
}

// The failure for a non-2xx answer, or nullopt.
std::optional<ImdsFailure> status_failure(const http::response<http::string_body>& res) {
  const int status = static_cast<int>(res.result_int());
  if (status >= 200 && status < 300) return std::nullopt;
  std::string detail = std::to_string(status) + " " + std::string(res.reason());
  if (status >= 300 && status < 400) {
    detail += ", not following Location " + quoted_excerpt(res[http::field::location], 200);
    return failure(Kind::redirect, std::move(detail), status);
  }
  if (!res.body().empty()) detail += ": " + quoted_excerpt(res.body(), 300);
  if (status == 429) return failure(Kind::throttled, std::move(detail), status);
  if (status >= 500) return failure(Kind::server_error, std::move(detail), status);
  return failure(Kind::http_status, std::move(detail), status);
}

// GET answers carry a body only with 200; another 2xx is unexpected.
std::optional<ImdsFailure> not_200(const http::response<http::string_body>& res) {
  if (res.result() == http::status::ok) return std::nullopt;
  return failure(Kind::http_status, std::to_string(res.result_int()) + " instead of 200",
                 static_cast<int>(res.result_int()));
}

ImdsFailure invalid_json(const Error& error, const http::response<http::string_body>& res) {
  return failure(Kind::invalid_json, error.message + " in " + quoted_excerpt(res.body(), 200));
}

// A connection the server closed while it sat idle shows these errors on the next request.
bool stale_connection_error(const beast::error_code& ec) {
  return ec == http::error::end_of_stream || ec == asio::error::eof || ec == asio::error::connection_reset ||
         ec == asio::error::broken_pipe;
}

}  // namespace

struct ImdsClient::Attempt {
  std::optional<Response> response;
  ImdsFailure failure;
  bool stale = false;  // failed before any answer on a reused connection: worth one retry on a fresh one
};

ImdsClient::ImdsClient(asio::any_io_executor ex, ImdsClientOptions options)
    : ex_(ex), options_(std::move(options)), endpoint_(parse_endpoint(options_.endpoint)), turn_(ex) {
  turn_.expires_at(asio::steady_timer::time_point::max());
  if (endpoint_) {
    beast::error_code ec;
    address_ = endpoint_->host == "localhost" ? asio::ip::make_address("127.0.0.1")
                                              : asio::ip::make_address(endpoint_->host, ec);
  }
}

void ImdsClient::cancel() {
  ++generation_;
  if (stream_) stream_->cancel();
  turn_.cancel();
}

void ImdsClient::close_connection() {
  if (!stream_) return;
  beast::error_code ignored;
  stream_->socket().shutdown(asio::ip::tcp::socket::shutdown_both, ignored);
  stream_->close();
  stream_.reset();
  buffer_.consume(buffer_.size());
}

std::chrono::milliseconds ImdsClient::scheduled_events_timeout() const {
  return scheduled_events_answered_ ? options_.request_timeout
                                    : std::max(options_.request_timeout, options_.first_request_timeout);
}

std::string ImdsClient::scheduled_events_target() const {
  return "/metadata/scheduledevents?api-version=" +
         boost::urls::encode(options_.api_version, boost::urls::unreserved_chars);
}

asio::awaitable<ImdsClient::Attempt> ImdsClient::attempt(const http::request<http::string_body>& request,
                                                         std::chrono::milliseconds timeout,
                                                         std::uint64_t generation) {
  const bool reused = stream_.has_value();
  auto fail = [&](std::string_view stage, const beast::error_code& ec, bool before_answer) {
    close_connection();
    Attempt a;
    if (generation != generation_ || ec == asio::error::operation_aborted) {
      a.failure = failure(Kind::cancelled, "cancelled during " + std::string(stage));
    } else if (ec == beast::error::timeout) {
      a.failure = failure(Kind::timeout, "no response within " + std::to_string(timeout.count()) + " ms (" +
                                             std::string(stage) + ")");
    } else if (ec == http::error::body_limit) {
      a.failure =
          failure(Kind::body_too_large, "body larger than " + std::to_string(options_.body_limit) + " bytes");
    } else {
      a.failure =
          failure(Kind::connect, std::string(stage) + " " + host_header(*endpoint_) + ": " + ec.message());
      a.stale = reused && before_answer && stale_connection_error(ec);
    }
    return a;
  };

  if (!stream_) {
    stream_.emplace(ex_);
    stream_->expires_after(timeout);
    auto [ec] = co_await stream_->async_connect(asio::ip::tcp::endpoint(address_, endpoint_->port), nothrow);
    if (ec || generation != generation_) co_return fail("connect", ec, true);
  } else {
    stream_->expires_after(timeout);
  }
  auto [write_ec, written] = co_await http::async_write(*stream_, request, nothrow);
  if (write_ec || generation != generation_) co_return fail("write", write_ec, true);

  http::response_parser<http::string_body> parser;
  parser.body_limit(options_.body_limit);
  auto [read_ec, read] = co_await http::async_read(*stream_, buffer_, parser, nothrow);
  if (read_ec || generation != generation_) co_return fail("read", read_ec, !parser.got_some());
  stream_->expires_never();
  Attempt a;
  a.response = parser.release();
  if (!a.response->keep_alive()) close_connection();
  co_return a;
}

asio::awaitable<std::optional<ImdsFailure>> ImdsClient::call(http::verb verb, std::string target,
                                                             std::string body,
                                                             std::chrono::milliseconds timeout,
                                                             const Check& check) {
  const std::uint64_t generation = generation_;
  while (busy_) {
    co_await turn_.async_wait(nothrow);
    if (generation != generation_) co_return failure(Kind::cancelled, "cancelled while queued");
  }
  busy_ = true;
  struct Release {
    ImdsClient& self;
    ~Release() {
      self.busy_ = false;
      self.turn_.cancel();
    }
  } release{*this};

  if (!endpoint_) co_return failure(Kind::connect, endpoint_.error().message);
  if (address_.is_unspecified()) co_return failure(Kind::connect, "endpoint host is not an IP address");

  http::request<http::string_body> request{verb, target, 11};
  request.set(http::field::host, host_header(*endpoint_));
  request.set("Metadata", "true");
  request.set(http::field::user_agent, "cassandra-lifecycle-agent/" CLA_VERSION);
  request.keep_alive(true);
  if (verb == http::verb::post) request.set(http::field::content_type, "application/json");
  request.body() = std::move(body);
  request.prepare_payload();

  Attempt a = co_await attempt(request, timeout, generation);
  if (!a.response && a.stale) a = co_await attempt(request, timeout, generation);
  if (!a.response) co_return a.failure;
  auto problem = status_failure(*a.response);
  if (!problem) problem = check(*a.response);
  if (problem) close_connection();
  co_return problem;
}

asio::awaitable<Result<EventsDocument, ImdsFailure>> ImdsClient::get_scheduled_events() {
  std::optional<EventsDocument> doc;
  auto problem = co_await call(http::verb::get, scheduled_events_target(), {}, scheduled_events_timeout(),
                               [&](const Response& res) -> std::optional<ImdsFailure> {
                                 if (auto f = not_200(res)) return f;
                                 auto json = parse_json(res.body());
                                 if (!json) return invalid_json(json.error(), res);
                                 auto parsed = scheduled_events_from_json(*json);
                                 if (!parsed) return failure(Kind::wrong_shape, parsed.error().message);
                                 doc = std::move(*parsed);
                                 return std::nullopt;
                               });
  if (problem) co_return *problem;
  scheduled_events_answered_ = true;
  co_return std::move(*doc);
}

asio::awaitable<std::optional<ImdsFailure>> ImdsClient::approve(std::string event_id) {
  const boost::json::object body{
      {"StartRequests", boost::json::array{boost::json::object{{"EventId", event_id}}}}};
  co_return co_await call(http::verb::post, scheduled_events_target(), boost::json::serialize(body),
                          scheduled_events_timeout(),
                          [](const Response&) { return std::optional<ImdsFailure>(); });
}

asio::awaitable<Result<ComputeInfo, ImdsFailure>> ImdsClient::get_compute() {
  std::optional<ComputeInfo> info;
  auto problem =
      co_await call(http::verb::get, "/metadata/instance/compute?api-version=2021-02-01", {},
                    options_.request_timeout, [&](const Response& res) -> std::optional<ImdsFailure> {
                      if (auto f = not_200(res)) return f;
                      auto json = parse_json(res.body());
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
