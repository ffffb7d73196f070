// How an IMDS request failed: a classified value the agent logs, counts (by stable label) and retries.
#include "imds/imds_failure.hpp"

namespace cla {

bool ImdsFailure::retryable() const {
  if (kind == Kind::cancelled) return false;
  if (kind == Kind::http_status && http_status >= 400 && http_status < 500 && http_status != 429)
    return false;
  return true;
}

std::string_view to_string(ImdsFailure::Kind kind) {
  switch (kind) {
    case ImdsFailure::Kind::connect:
      return "connect";
    case ImdsFailure::Kind::timeout:
      return "timeout";
    case ImdsFailure::Kind::http_status:
      return "http_status";
    case ImdsFailure::Kind::throttled:
      return "http_429";
    case ImdsFailure::Kind::server_error:
      return "http_5xx";
    case ImdsFailure::Kind::redirect:
      return "http_3xx";
    case ImdsFailure::Kind::body_too_large:
      return "body_too_large";
    case ImdsFailure::Kind::invalid_json:
      return "invalid_json";
    case ImdsFailure::Kind::wrong_shape:
      return "wrong_shape";
    case ImdsFailure::Kind::cancelled:
      return "cancelled";
  }
  return "unknown";
}

std::string describe(const ImdsFailure& failure) {
  std::string text(to_string(failure.kind));
  if (failure.http_status != 0) text += " (HTTP " + std::to_string(failure.http_status) + ")";
  if (!failure.detail.empty()) text += ": " + failure.detail;
  return text;
}

}  // namespace cla
