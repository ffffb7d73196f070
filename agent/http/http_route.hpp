// What the agent's HTTP endpoint answers (/healthz, /metrics, /state): pure, so tests call it directly.
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "state/scheduled_event.hpp"

namespace cla {

struct HttpResponse {
  unsigned status = 200;
  std::string content_type;
  std::string body;
};

// Called once per request with the method and the request target as received.
using HttpHandler = std::function<HttpResponse(std::string_view method, std::string_view target)>;

// Where the answers come from; called only for the path that needs them, on the server's executor.
struct EndpointSources {
  std::function<std::optional<WallTime>()> last_poll_success;  // last successful IMDS poll, if any
  std::chrono::milliseconds poll_interval{1000};
  std::function<std::string()> metrics_text;  // Prometheus text exposition
  std::function<std::string()> state_json;    // the agent's state as a JSON document
};

inline constexpr std::string_view kPrometheusContentType = "text/plain; version=0.0.4; charset=utf-8";

// GET /healthz: 200 "ok" when the last poll succeeded within 5 poll intervals of now, else 503 and why.
// GET /metrics, GET /state. Unknown paths get 404, known paths with another method 405. A query string
// is ignored.
HttpResponse route_request(std::string_view method, std::string_view target, const EndpointSources& sources,
                           WallTime now);

// The handler the server calls: route_request with the current wall-clock time.
HttpHandler make_http_handler(EndpointSources sources);

}  // namespace cla
