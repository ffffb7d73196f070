// CallQueue: lets a client's overlapping calls run one at a time on its executor, and cancels them together.
#include "imds/transport/call_queue.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/use_awaitable.hpp>

namespace cla {

CallQueue::CallQueue(boost::asio::any_io_executor ex) : wake_(std::move(ex)) {
  wake_.expires_at(boost::asio::steady_timer::time_point::max());
}

std::optional<CallQueue::Turn> CallQueue::try_acquire(std::uint64_t generation) {
  if (busy_ || cancelled_since(generation)) return std::nullopt;
  busy_ = true;
  return Turn(*this);
}

boost::asio::awaitable<std::optional<CallQueue::Turn>> CallQueue::acquire(std::uint64_t generation) {
  while (busy_) {
    co_await wake_.async_wait(boost::asio::as_tuple(boost::asio::use_awaitable));
    if (cancelled_since(generation)) co_return std::nullopt;
  }
  co_return try_acquire(generation);
}

void CallQueue::cancel() {
  ++generation_;
  wake_.cancel();
}

void CallQueue::release() {
  busy_ = false;
  wake_.cancel();
}

}  // namespace cla
