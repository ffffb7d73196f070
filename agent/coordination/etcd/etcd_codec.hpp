// The pure codec of etcd's v3 JSON gateway: each request's path and body, and each answer decoded from its
// HTTP status and body into a value or a classified EtcdFailure. No I/O; the decoders take any bytes and
// never throw (they are the fuzzing entry points).
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "agent/coordination/etcd/etcd_types.hpp"
#include "state/result.hpp"

namespace cla::etcd_codec {

// Paths, relative to a member's client URL.
inline constexpr std::string_view kRangePath = "/v3/kv/range";
inline constexpr std::string_view kPutPath = "/v3/kv/put";
inline constexpr std::string_view kDeleteRangePath = "/v3/kv/deleterange";
inline constexpr std::string_view kTxnPath = "/v3/kv/txn";
inline constexpr std::string_view kLeaseGrantPath = "/v3/lease/grant";
inline constexpr std::string_view kLeaseKeepAlivePath = "/v3/lease/keepalive";
inline constexpr std::string_view kLeaseRevokePath = "/v3/lease/revoke";
inline constexpr std::string_view kAuthenticatePath = "/v3/auth/authenticate";

// Request bodies (JSON): keys and values in base64, int64s as decimal strings, as the gateway expects.
std::string encode_range(std::string_view key, std::string_view range_end);
std::string encode_put(const EtcdPut& put);
std::string encode_delete_range(const EtcdDelete& del);
std::string encode_txn(const std::vector<EtcdCompare>& compare, const std::vector<EtcdOp>& success,
                       const std::vector<EtcdOp>& failure);
std::string encode_lease_grant(std::chrono::seconds ttl);
std::string encode_lease_id(std::int64_t id);  // keepalive and revoke
std::string encode_authenticate(std::string_view name, std::string_view password);

// A gRPC error as etcd reports it, classified: lease not found, compacted, auth (invalid token, wrong
// password, permission denied...), unavailable (gRPC Unavailable or DeadlineExceeded: no leader, leader
// changed, request timed out...; and "too many requests"), else grpc_error. The detail is etcd's message.
EtcdFailure classify_grpc_error(int grpc_code, std::string_view message, int http_status);

// The failure an answer carries, if any: an error body ({"error","code","message"}, or the streaming form
// {"error":{"grpc_code","http_code","message"}}) classified by gRPC code and message as Patroni does, or a
// non-200 status without one. Failures have no endpoint; the client adds it.
std::optional<EtcdFailure> answer_failure(int http_status, std::string_view body);

// Answers. Each first applies answer_failure, then reads the 200 body: zero-valued fields may be absent (the
// gateway omits them); int64s may be strings or numbers; keys and values are base64.
Result<EtcdRange, EtcdFailure> decode_range(int http_status, std::string_view body);
Result<std::int64_t, EtcdFailure> decode_put(int http_status, std::string_view body);           // revision
Result<std::int64_t, EtcdFailure> decode_delete_range(int http_status, std::string_view body);  // deleted
Result<EtcdTxnResult, EtcdFailure> decode_txn(int http_status, std::string_view body);
Result<std::int64_t, EtcdFailure> decode_lease_grant(int http_status, std::string_view body);  // lease id
// The keepalive is a streaming call: its body is newline-separated {"result":{...}} messages (one per
// request; the first counts). A missing TTL is 0 s: the lease is gone.
Result<std::chrono::seconds, EtcdFailure> decode_lease_keepalive(int http_status, std::string_view body);
Result<void, EtcdFailure> decode_lease_revoke(int http_status, std::string_view body);
Result<std::string, EtcdFailure> decode_authenticate(int http_status, std::string_view body);  // token

}  // namespace cla::etcd_codec
