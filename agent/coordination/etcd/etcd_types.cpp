// The etcd v3 values the client sends and receives (keys, ranges, transactions) and its classified failures.
#include "agent/coordination/etcd/etcd_types.hpp"

namespace cla {

bool EtcdFailure::fail_over() const {
  switch (kind) {
    case Kind::connect:
    case Kind::timeout:
    case Kind::unavailable:
    case Kind::tls:  // another member may hold a certificate that verifies
      return true;
    case Kind::http_status:
      return http_status >= 500;  // a proxy's 502/503/504, or a member answering 500 without a gRPC error
    default:
      return false;
  }
}

bool EtcdFailure::invalid_token() const {
  if (kind != Kind::auth) return false;
  return detail.find("invalid auth token") != std::string::npos ||
         detail.find("user name is empty") != std::string::npos ||
         detail.find("revision of auth store is old") != std::string::npos;
}

std::string_view to_string(EtcdFailure::Kind kind) {
  using Kind = EtcdFailure::Kind;
  switch (kind) {
    case Kind::connect:
      return "connect";
    case Kind::timeout:
      return "timeout";
    case Kind::http_status:
      return "http_status";
    case Kind::body_too_large:
      return "body_too_large";
    case Kind::invalid_json:
      return "invalid_json";
    case Kind::wrong_shape:
      return "wrong_shape";
    case Kind::unavailable:
      return "unavailable";
    case Kind::auth:
      return "auth";
    case Kind::lease_not_found:
      return "lease_not_found";
    case Kind::compacted:
      return "compacted";
    case Kind::grpc_error:
      return "grpc_error";
    case Kind::cancelled:
      return "cancelled";
    case Kind::tls:
      return "tls";
  }
  return "unknown";
}

std::string describe(const EtcdFailure& failure) {
  std::string text(to_string(failure.kind));
  if (failure.http_status != 0 || failure.grpc_code != 0) {
    text += " (";
    if (failure.http_status != 0) text += "HTTP " + std::to_string(failure.http_status);
    if (failure.http_status != 0 && failure.grpc_code != 0) text += ", ";
    if (failure.grpc_code != 0) text += "gRPC " + std::to_string(failure.grpc_code);
    text += ")";
  }
  if (!failure.tls_reason.empty()) text += " (" + failure.tls_reason + ")";
  if (!failure.endpoint.empty()) text += " at " + failure.endpoint;
  if (!failure.detail.empty()) text += ": " + failure.detail;
  return text;
}

std::string prefix_range_end(std::string_view prefix) {
  std::string end(prefix);
  while (!end.empty()) {
    auto& last = reinterpret_cast<unsigned char&>(end.back());
    if (last < 0xff) {
      ++last;
      return end;
    }
    end.pop_back();
  }
  return std::string(1, '\0');
}

}  // namespace cla
