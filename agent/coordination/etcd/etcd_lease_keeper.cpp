// EtcdLeaseKeeper: holds one etcd lease for the agent: grants it, keeps it alive at TTL/3 from the event
// loop, and grants a new one when it was lost, telling its owner each time.
#include "agent/coordination/etcd/etcd_lease_keeper.hpp"

#include <algorithm>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/use_awaitable.hpp>

namespace cla {
namespace {

using std::chrono::milliseconds;

// Refresh three times per TTL: one lost or slow keepalive (failing over to another member within the
// request timeout) still leaves two more chances before the lease runs out.
milliseconds keepalive_interval(std::chrono::seconds ttl) {
  return std::max(milliseconds(1), std::chrono::duration_cast<milliseconds>(ttl) / 3);
}

}  // namespace

EtcdLeaseKeeper::EtcdLeaseKeeper(boost::asio::any_io_executor ex, EtcdClient& client,
                                 std::chrono::seconds ttl, EtcdLeaseHandlers handlers)
    : client_(client), ttl_(ttl), handlers_(std::move(handlers)), timer_(std::move(ex)) {}

void EtcdLeaseKeeper::stop() {
  stopped_ = true;
  timer_.cancel();
}

boost::asio::awaitable<void> EtcdLeaseKeeper::run() {
  const milliseconds retry = std::min(milliseconds(1000), keepalive_interval(ttl_));
  auto report = [this](const EtcdFailure& failure, milliseconds retry_in) {
    if (handlers_.failed) handlers_.failed(failure, retry_in);
  };
  while (!stopped_) {
    milliseconds wait = retry;
    if (lease_ == 0) {
      auto granted = co_await client_.lease_grant(ttl_);
      if (stopped_) break;
      if (granted) {
        lease_ = granted.value();
        wait = keepalive_interval(ttl_);
        if (handlers_.granted) handlers_.granted(lease_);
      } else {
        report(granted.error(), retry);
      }
    } else {
      auto kept = co_await client_.lease_keepalive(lease_);
      if (stopped_) break;
      const bool gone =
          kept ? kept.value().count() <= 0 : kept.error().kind == EtcdFailure::Kind::lease_not_found;
      if (gone) {
        const std::int64_t lost = std::exchange(lease_, 0);
        if (handlers_.lost) handlers_.lost(lost);
        continue;  // grant a new one at once
      }
      if (kept) {
        wait = keepalive_interval(std::chrono::seconds(kept.value()));
      } else {
        report(kept.error(), retry);
      }
    }
    if (stopped_) break;
    timer_.expires_after(wait);
    co_await timer_.async_wait(boost::asio::as_tuple(boost::asio::use_awaitable));
  }
}

}  // namespace cla
