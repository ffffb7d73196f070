// How an IMDS request failed: a classified value the agent logs, counts (by stable label) and retries.
#pragma once

#include <string>
#include <string_view>

namespace cla {

struct ImdsFailure {
  enum class Kind {
    connect,         // could not connect, or the connection broke mid-request
    timeout,         // no complete response within the request timeout
    http_status,     // a non-200 status not covered below (mostly 4xx)
    throttled,       // 429
    server_error,    // 5xx
    redirect,        // 3xx (never followed: IMDS does not redirect, a proxy or impostor does)
    body_too_large,  // the response body exceeded ImdsClientOptions::body_limit
    invalid_json,    // the body is not JSON
    wrong_shape,     // JSON, but not the expected document (detail names the field)
    cancelled,       // ImdsClient::cancel() was called (shutdown)
  };
  Kind kind = Kind::connect;
  int http_status = 0;  // the status for http_status/throttled/server_error/redirect, else 0
  std::string detail;   // human text; for a non-200 it includes an excerpt of the body

  // Whether trying again later can help: everything except a 4xx other than 429, and cancellation.
  bool retryable() const;
};

// Stable names used as metric labels: connect, timeout, http_status, http_429, http_5xx, http_3xx,
// body_too_large, invalid_json, wrong_shape, cancelled.
std::string_view to_string(ImdsFailure::Kind kind);

// "timeout: no response within 5000 ms" — kind name, the status when there is one, and the detail.
std::string describe(const ImdsFailure& failure);

}  // namespace cla
