// The etcd v3 values the client sends and receives (keys, ranges, transactions) and its classified failures.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace cla {

// Why an etcd request failed, classified so the shell can decide (fail over, re-authenticate, re-grant,
// treat etcd as unavailable) and log it once with its context.
struct EtcdFailure {
  enum class Kind {
    connect,          // no connection to the endpoint, or it broke mid-request
    timeout,          // no complete answer within the request timeout
    http_status,      // a non-200 answer that carries no gRPC error (e.g. 404, or a 5xx from a proxy)
    body_too_large,   // the answer exceeded EtcdClientOptions::body_limit
    invalid_json,     // the body is not JSON
    wrong_shape,      // JSON, but not the expected message (detail names the field)
    unavailable,      // etcd answered that it cannot serve now: no leader, leader changed, request timed out,
                      // too many requests, not capable (gRPC Unavailable / DeadlineExceeded)
    auth,             // authentication or permission: invalid auth token, wrong password, permission denied
    lease_not_found,  // the lease expired or was revoked
    compacted,        // the requested revision was compacted
    grpc_error,       // another gRPC error (detail holds etcd's message)
    cancelled,        // EtcdClient::cancel() was called
    tls,              // the TLS connection failed: tls_reason says why (TlsFailure's reasons)
  };
  Kind kind = Kind::connect;
  int http_status = 0;     // the HTTP status when the server answered, else 0
  int grpc_code = 0;       // the gRPC code of an error body, else 0
  std::string detail;      // human text, with an excerpt of etcd's message when there is one
  std::string endpoint;    // the endpoint that failed ("http://127.0.0.1:2379"), empty before any was tried
  std::string tls_reason;  // Kind::tls: unknown_ca, name_mismatch, expired, handshake_refused, files, ...

  // Whether another member may answer where this one failed: connect, timeout, a 5xx, unavailable, tls.
  bool fail_over() const;
  // Whether a new token may help: etcd's "invalid auth token" (expired, or lost when the member restarted),
  // "user name is empty" (no token sent: auth was enabled since) and "revision of auth store is old".
  bool invalid_token() const;
};

// Stable names used as metric labels and in logs: connect, timeout, http_status, body_too_large,
// invalid_json, wrong_shape, unavailable, auth, lease_not_found, compacted, grpc_error, cancelled, tls.
std::string_view to_string(EtcdFailure::Kind kind);

// "unavailable (HTTP 503, gRPC 14) at http://127.0.0.1:2379: etcdserver: no leader",
// "tls (unknown_ca) at https://127.0.0.1:2379: the server's certificate is not signed by ...".
std::string describe(const EtcdFailure& failure);

struct EtcdKeyValue {
  std::string key, value;
  std::int64_t create_revision = 0, mod_revision = 0, version = 0, lease = 0;
  bool operator==(const EtcdKeyValue&) const = default;
};

struct EtcdRange {
  std::vector<EtcdKeyValue> kvs;
  std::int64_t revision = 0;  // the store's revision when the range was read (the header's)
  std::int64_t count = 0;     // keys in the range (may exceed kvs.size() when more)
  bool more = false;
  bool operator==(const EtcdRange&) const = default;
};

// The request values below have constructors on purpose, so that they are not aggregates: GCC 12 destroys an
// aggregate-initialised temporary twice when it is an argument inside a co_await expression
// (`co_await client.put({key, value})` frees the key twice); through a constructor it is safe. GCC 12 also
// refuses an initializer list inside co_await ("array used as initializer"): build a vector of compares or
// ops before the co_await.

// One comparison of a transaction. etcd applies it to every key in [key, range_end) when range_end is set
// (an empty range compares a zero-valued key: MOD < n passes, a Target::value compare fails); `number` is the
// version, create or mod revision, or lease, `value` the value compared for Target::value.
struct EtcdCompare {
  enum class Target { version, create, mod, value, lease };
  enum class Op { equal, greater, less, not_equal };
  EtcdCompare(Target target, Op op, std::string key, std::string range_end, std::int64_t number,
              std::string value = {})
      : target(target),
        op(op),
        key(std::move(key)),
        range_end(std::move(range_end)),
        number(number),
        value(std::move(value)) {}
  Target target;
  Op op;
  std::string key, range_end;
  std::int64_t number;
  std::string value;
};

struct EtcdPut {
  EtcdPut(std::string key, std::string value, std::int64_t lease = 0)
      : key(std::move(key)), value(std::move(value)), lease(lease) {}
  std::string key, value;
  std::int64_t lease;  // 0: no lease
};
struct EtcdDelete {
  explicit EtcdDelete(std::string key) : key(std::move(key)) {}
  EtcdDelete(std::string key, std::string range_end) : key(std::move(key)), range_end(std::move(range_end)) {}
  std::string key, range_end;  // range_end empty: the one key
};
struct EtcdGet {
  enum class Answer {
    values,  // the keys with their values
    keys,    // the keys and revisions without their values (etcd's keys_only)
    count,   // only how many keys the range holds (count_only): EtcdRange::count
  };
  explicit EtcdGet(std::string key) : key(std::move(key)) {}
  EtcdGet(std::string key, std::string range_end, Answer answer = Answer::values)
      : key(std::move(key)), range_end(std::move(range_end)), answer(answer) {}
  std::string key, range_end;  // range_end empty: the one key
  Answer answer = Answer::values;
  // etcd's serializable range: the member answers from what it has applied, without the leader's read
  // barrier (which, in a burst of commits, waits for them to apply): cheaper, and possibly behind. Only for a
  // read whose use a later transaction's compares guard.
  bool serializable = false;
};
using EtcdOp = std::variant<EtcdPut, EtcdDelete, EtcdGet>;

struct EtcdTxnResult {
  bool succeeded = false;
  std::int64_t revision = 0;
  // One entry per EtcdGet of the branch that ran, in order (puts and deletes give none).
  std::vector<EtcdRange> ranges;
};

// The range_end that selects every key starting with `prefix` (etcd's "prefix + 1"): the prefix with its last
// byte below 0xff incremented and what follows dropped; "\0" (every key from `prefix` on) when there is none.
std::string prefix_range_end(std::string_view prefix);

}  // namespace cla
