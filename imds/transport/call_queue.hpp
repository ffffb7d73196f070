// CallQueue: lets a client's overlapping calls run one at a time on its executor, and cancels them together.
#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/steady_timer.hpp>
#include <cstdint>
#include <optional>
#include <utility>

namespace cla {

// Usage, in a client's call:
//   const auto generation = queue_.generation();
//   auto turn = co_await queue_.acquire(generation);
//   if (!turn) co_return <cancelled while queued>;
//   ... the request; queue_.cancelled_since(generation) says whether cancel() came meanwhile ...
class CallQueue {
 public:
  // Held by the call whose turn it is; the next queued call runs once it is destroyed.
  class Turn {
   public:
    explicit Turn(CallQueue& queue) : queue_(&queue) {}
    Turn(Turn&& other) noexcept : queue_(std::exchange(other.queue_, nullptr)) {}
    Turn(const Turn&) = delete;
    Turn& operator=(const Turn&) = delete;
    Turn& operator=(Turn&&) = delete;
    ~Turn() {
      if (queue_) queue_->release();
    }

   private:
    CallQueue* queue_;
  };

  explicit CallQueue(boost::asio::any_io_executor ex);

  std::uint64_t generation() const { return generation_; }
  bool cancelled_since(std::uint64_t generation) const { return generation != generation_; }

  // The turn at once when no call holds it (nullopt when one does, or cancel() was called since
  // `generation`): a call that finds the queue empty, such as every idle poll, needs no coroutine for it.
  std::optional<Turn> try_acquire(std::uint64_t generation);
  // Waits until no other call holds the turn; nullopt when cancel() was called since `generation`.
  boost::asio::awaitable<std::optional<Turn>> acquire(std::uint64_t generation);
  // Every call started before now ends as cancelled: the queued ones wake at once.
  void cancel();

 private:
  void release();

  boost::asio::steady_timer wake_;  // never expires; cancelled to wake the queued calls
  bool busy_ = false;
  std::uint64_t generation_ = 0;
};

}  // namespace cla
