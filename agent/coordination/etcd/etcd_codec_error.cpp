// etcd's gRPC errors (etcdserver/api/v3rpc/rpctypes) classified into EtcdFailure kinds, as Patroni does.
#include <array>

#include "agent/coordination/etcd/etcd_codec.hpp"
#include "imds/json_read.hpp"

namespace cla::etcd_codec {
namespace {

// google.golang.org/grpc/codes
constexpr int kDeadlineExceeded = 4;
constexpr int kPermissionDenied = 7;
constexpr int kUnavailable = 14;
constexpr int kUnauthenticated = 16;

bool contains(std::string_view text, std::string_view part) {
  return text.find(part) != std::string_view::npos;
}

// Messages of authentication and authorisation errors that carry a generic code (InvalidArgument,
// FailedPrecondition).
constexpr std::array<std::string_view, 8> kAuthMessages = {
    "etcdserver: invalid auth token",
    "etcdserver: user name is empty",
    "etcdserver: authentication failed, invalid user ID or password",
    "etcdserver: revision of auth store is old",
    "etcdserver: authentication is not enabled",
    "etcdserver: permission denied",
    "etcdserver: user name not found",
    "etcdserver: role is not granted to the user",
};

EtcdFailure::Kind kind_of(int grpc_code, std::string_view message) {
  using Kind = EtcdFailure::Kind;
  if (contains(message, "etcdserver: requested lease not found")) return Kind::lease_not_found;
  if (contains(message, "etcdserver: mvcc: required revision has been compacted")) return Kind::compacted;
  if (grpc_code == kUnauthenticated || grpc_code == kPermissionDenied) return Kind::auth;
  for (const auto auth_message : kAuthMessages)
    if (contains(message, auth_message)) return Kind::auth;
  // Unavailable: no leader, leader changed, not capable, server stopped, request timed out (the proposal may
  // or may not be applied), unhealthy cluster. DeadlineExceeded, or "context deadline exceeded" with code 2
  // (Unknown), which is what a member without quorum answers a put after its deadline. All say "this member
  // cannot answer now", as does "too many requests" (ResourceExhausted, unlike "database space exceeded",
  // which every member shares).
  if (grpc_code == kUnavailable || grpc_code == kDeadlineExceeded ||
      contains(message, "context deadline exceeded") || contains(message, "etcdserver: too many requests"))
    return Kind::unavailable;
  return Kind::grpc_error;
}

}  // namespace

EtcdFailure classify_grpc_error(int grpc_code, std::string_view message, int http_status) {
  EtcdFailure failure;
  failure.kind = kind_of(grpc_code, message);
  failure.grpc_code = grpc_code;
  failure.http_status = http_status;
  // etcd's message, bounded and without control bytes; quoted_excerpt adds quotes, which we drop.
  const std::string quoted = quoted_excerpt(message, 300);
  failure.detail = quoted.substr(1, quoted.size() - 2);
  if (failure.detail.empty())
    failure.detail = "gRPC error " + std::to_string(grpc_code) + " without a message";
  return failure;
}

}  // namespace cla::etcd_codec
