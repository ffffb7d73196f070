// Routing of the agent's HTTP endpoint: health from the last successful poll, metrics and state as text.
#include "agent/http/http_route.hpp"

#include <cstdio>

namespace cla {
namespace {

constexpr int kHealthyIntervals = 5;

HttpResponse text(unsigned status, std::string body) {
  return HttpResponse{status, "text/plain; charset=utf-8", std::move(body)};
}

HttpResponse health(const EndpointSources& sources, WallTime now) {
  const std::optional<WallTime> last = sources.last_poll_success ? sources.last_poll_success() : std::nullopt;
  if (!last) return text(503, "no successful IMDS poll yet\n");
  const auto limit = kHealthyIntervals * sources.poll_interval;
  const auto age = now - *last;
  if (age <= limit) return text(200, "ok\n");
  const double age_s = std::chrono::duration<double>(age).count();
  const double limit_s = std::chrono::duration<double>(limit).count();
  char reason[128];
  std::snprintf(reason, sizeof reason, "last successful IMDS poll %.1f s ago (limit %.1f s)\n", age_s,
                limit_s);
  return text(503, reason);
}

}  // namespace

HttpResponse route_request(std::string_view method, std::string_view target, const EndpointSources& sources,
                           WallTime now) {
  const std::string_view path = target.substr(0, target.find('?'));
  const bool known = path == "/healthz" || path == "/metrics" || path == "/state";
  if (!known) return text(404, "not found\n");
  if (method != "GET") return text(405, "method not allowed: use GET\n");
  if (path == "/healthz") return health(sources, now);
  if (path == "/metrics")
    return HttpResponse{200, std::string(kPrometheusContentType),
                        sources.metrics_text ? sources.metrics_text() : std::string()};
  return HttpResponse{200, "application/json", sources.state_json ? sources.state_json() : "{}"};
}

HttpHandler make_http_handler(EndpointSources sources) {
  return [sources = std::move(sources)](std::string_view method, std::string_view target) {
    return route_request(method, target, sources, WallClock::now());
  };
}

}  // namespace cla
