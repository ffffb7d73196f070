// EtcdLeaseKeeper: holds one etcd lease for the agent: grants it, keeps it alive at TTL/3 from the event
// loop, and grants a new one when it was lost, telling its owner each time.
#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <utility>

#include "agent/coordination/etcd/etcd_client.hpp"

namespace cla {

// What the keeper tells its owner. Each handler may be empty; none may block.
struct EtcdLeaseHandlers {
  // A lease was granted (the first, or a new one after a loss): put the keys bound to it (again).
  std::function<void(std::int64_t lease)> granted;
  // The lease `lease` is gone (etcd answered TTL 0 or lease not found): its keys were deleted by etcd.
  // A new grant follows at once.
  std::function<void(std::int64_t lease)> lost;
  // A grant or keepalive failed (etcd unreachable, unavailable...): retried after `retry_in`.
  std::function<void(const EtcdFailure& failure, std::chrono::milliseconds retry_in)> failed;
};

// Usage: co_spawn(ex, keeper.run(), detached); ...; keeper.stop(). The keeper and the client must outlive
// run(). While etcd is unreachable the keeper keeps asking for the same lease (an outage shorter than the TTL
// keeps it); once a member answers that it is gone, `lost` then a new grant and `granted`.
class EtcdLeaseKeeper {
 public:
  EtcdLeaseKeeper(boost::asio::any_io_executor ex, EtcdClient& client, std::chrono::seconds ttl,
                  EtcdLeaseHandlers handlers);
  EtcdLeaseKeeper(const EtcdLeaseKeeper&) = delete;
  EtcdLeaseKeeper& operator=(const EtcdLeaseKeeper&) = delete;

  // Runs until stop(): grant, then keepalive every TTL/3 (of the TTL etcd granted), retrying failures after
  // min(1 s, TTL/3).
  boost::asio::awaitable<void> run();
  // Ends run() after the request in flight, if any, returns (cancel the client to end it sooner). The lease
  // is left to expire (or revoke it with EtcdClient::lease_revoke(lease())).
  void stop();

  // The lease held now, 0 while none (before the first grant, and between a loss and the next grant).
  std::int64_t lease() const { return lease_; }

 private:
  EtcdClient& client_;
  std::chrono::seconds ttl_;
  EtcdLeaseHandlers handlers_;
  boost::asio::steady_timer timer_;
  std::int64_t lease_ = 0;
  bool stopped_ = false;
};

}  // namespace cla
