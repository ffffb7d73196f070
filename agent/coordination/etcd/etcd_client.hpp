// EtcdClient: etcd's v3 API over its JSON gateway (POST /v3/...), with fail-over across members and password
// auth.
#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "agent/coordination/etcd/etcd_types.hpp"
#include "imds/transport/tls_settings.hpp"
#include "state/result.hpp"

namespace cla {

struct EtcdClientOptions {
  std::vector<std::string> endpoints;  // "http(s)://host:port" each, as coordination.etcd_endpoints
  // The member the first call tries (modulo their count). Agents spread over the members as etcd's own
  // client does: started at the first endpoint, 450 agents made that one member decode every request and
  // forward every transaction to the leader (bench-fleet, issue 40).
  std::size_t first_endpoint = 0;
  // Limit for one attempt at one member (connect, send, whole answer); a call that fails over may take
  // this once per endpoint.
  std::chrono::milliseconds request_timeout{2000};
  std::string username;  // empty: no authentication
  std::string password;
  std::size_t body_limit = 4 << 20;  // the largest answer accepted
  std::optional<TlsSettings> tls;    // for https:// endpoints (required with them)
  // Called with each TLS failure at a member (before the call fails over), so that the shell can log it
  // even when another member then answers.
  std::function<void(const EtcdFailure&)> on_tls_failure;
};

// One client per agent (or per independent task: the lease keeper may have its own). Calls may overlap:
// they queue and run one at a time on the executor. Each call tries the members in turn, starting with the
// last one that answered (the first call: first_endpoint), and moves on after a connect failure, a timeout, a
// 5xx or an "unavailable" answer; it returns the last member's failure (its detail names every member tried)
// when none answered. One kept-alive HTTP/1.1 connection per member, re-opened after any failure; over TLS
// for https:// members (a TLS failure fails over too). With a username, the token from /v3/auth/authenticate
// goes in the Authorization header of every request; an "invalid auth token" answer (expired, or lost when
// the member restarted) fetches a new token once and repeats the request. Adapters do not log: every outcome
// comes back as a value. The client must outlive its calls.
class EtcdClient {
 public:
  // Endpoints are checked by parse_etcd_endpoint; one it rejects fails every attempt at it with
  // Kind::connect (validate the configuration first).
  EtcdClient(boost::asio::any_io_executor ex, EtcdClientOptions options);
  ~EtcdClient();
  EtcdClient(const EtcdClient&) = delete;
  EtcdClient& operator=(const EtcdClient&) = delete;

  // The keys in [key, range_end) (just `key` when range_end is empty), with the store's revision.
  boost::asio::awaitable<Result<EtcdRange, EtcdFailure>> range(std::string key, std::string range_end = {});
  // The store's revision after the put.
  boost::asio::awaitable<Result<std::int64_t, EtcdFailure>> put(EtcdPut put);
  // The number of keys deleted.
  boost::asio::awaitable<Result<std::int64_t, EtcdFailure>> delete_range(EtcdDelete del);
  // If every comparison holds, runs `success`, else `failure`; atomically.
  boost::asio::awaitable<Result<EtcdTxnResult, EtcdFailure>> txn(std::vector<EtcdCompare> compare,
                                                                 std::vector<EtcdOp> success,
                                                                 std::vector<EtcdOp> failure);
  // A new lease of (at least) `ttl`: its id.
  boost::asio::awaitable<Result<std::int64_t, EtcdFailure>> lease_grant(std::chrono::seconds ttl);
  // Refreshes the lease: the TTL it has again, 0 s when the lease is gone (expired or revoked).
  boost::asio::awaitable<Result<std::chrono::seconds, EtcdFailure>> lease_keepalive(std::int64_t id);
  // Revokes the lease, deleting the keys bound to it. A lease already gone is a lease_not_found failure.
  boost::asio::awaitable<Result<void, EtcdFailure>> lease_revoke(std::int64_t id);

  // Aborts the call in flight and those queued behind it; each returns Kind::cancelled. Later calls run
  // normally. Call from the executor's thread.
  void cancel();

  // The member the next call tries first (the last one that answered).
  const std::string& current_endpoint() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace cla
