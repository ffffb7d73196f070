// ImdsClient: Scheduled Events GET/POST and compute metadata over one kept-alive HTTP/1.1 connection.
#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/verb.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "imds/compute_parser.hpp"
#include "imds/endpoint.hpp"
#include "imds/imds_failure.hpp"
#include "imds/transport/call_queue.hpp"
#include "imds/transport/http_connection.hpp"
#include "state/result.hpp"
#include "state/scheduled_event.hpp"

namespace cla {

struct ImdsClientOptions {
  std::string endpoint;  // "http://169.254.169.254" or "http://127.0.0.1:8080" (see parse_endpoint)
  std::string api_version = "2020-07-01";
  std::chrono::milliseconds request_timeout{5000};
  // Used for Scheduled Events requests until one GET has succeeded: the first call after the VM starts
  // may take up to two minutes while Azure enables the service. Compute requests always use request_timeout.
  std::chrono::milliseconds first_request_timeout{120000};
  std::size_t body_limit = 1 << 20;
  // DeadlineWatch::caller: the owner calls expire_overdue() regularly instead of the client arming a timer.
  DeadlineWatch deadline_watch = DeadlineWatch::own_timer;
  // AnswerWatch::caller: the owner calls woke() after each wake-up of the event loop.
  AnswerWatch answer_watch = AnswerWatch::asio_wait;
};

// Talks to IMDS (or imds-emulator) with `Metadata: true` on every request, never through a proxy, never
// following redirects. One connection is kept alive and reused; after any failure (transport, status or
// body) or `Connection: close` it is closed and re-opened by the next call. A reused connection the server
// had already closed is retried once on a fresh one (every request here is idempotent). Calls may overlap:
// they queue and run one at a time. Adapters do not log: every outcome comes back as a value. The client must
// outlive its calls.
class ImdsClient {
 public:
  // An endpoint that parse_endpoint rejects makes every call fail with Kind::connect (validate config first).
  ImdsClient(boost::asio::any_io_executor ex, ImdsClientOptions options);
  ImdsClient(const ImdsClient&) = delete;
  ImdsClient& operator=(const ImdsClient&) = delete;

  // GET {endpoint}/metadata/scheduledevents?api-version=X
  boost::asio::awaitable<Result<EventsDocument, ImdsFailure>> get_scheduled_events();
  // POST the same URL with {"StartRequests":[{"EventId":"..."}]}; nullopt on a 2xx answer.
  boost::asio::awaitable<std::optional<ImdsFailure>> approve(std::string event_id);
  // GET {endpoint}/metadata/instance/compute?api-version=2021-02-01
  boost::asio::awaitable<Result<ComputeInfo, ImdsFailure>> get_compute();

  // Aborts the request in flight and those queued behind it; each returns Kind::cancelled. Later calls run
  // normally. Call from the executor's thread, at any time.
  void cancel();
  // With DeadlineWatch::caller: ends the request in flight as a timeout if its deadline is at or before `at`.
  void expire_overdue(std::chrono::steady_clock::time_point at);
  // With AnswerWatch::caller: the event loop woke; reads what the request in flight has received, if any.
  void woke();

 private:
  using Response = HttpConnection::Response;
  // Accepts a 2xx answer (nullopt) or says why not; may keep what it parsed.
  using Check = std::function<std::optional<ImdsFailure>(const Response&)>;

  using Request = HttpConnection::Request;

  // One request, queued behind any in flight: a failure of any kind closes the connection.
  boost::asio::awaitable<std::optional<ImdsFailure>> call(std::string_view wire,
                                                          std::chrono::milliseconds timeout,
                                                          const Check& check);
  // A request's bytes on the wire (to_wire), with the headers every request here carries.
  std::string request(boost::beast::http::verb verb, std::string target, std::string body) const;
  std::chrono::milliseconds scheduled_events_timeout() const;
  std::string scheduled_events_target() const;
  // The document in a 200 answer's body: parsed, or the last one again when the body is the same bytes.
  Result<EventsDocument, ImdsFailure> document_in(const Response& res);

  ImdsClientOptions options_;
  Result<Endpoint> endpoint_;
  std::optional<HttpConnection> connection_;  // when the endpoint's host is usable
  CallQueue queue_;
  bool scheduled_events_answered_ = false;
  // What every poll sends and what it usually gets back, kept from one poll to the next: an idle agent
  // builds no request and parses no JSON (SPEC 4's idle footprint).
  std::string scheduled_events_get_;
  std::string last_document_body_;
  std::optional<EventsDocument> last_document_;
};

}  // namespace cla
