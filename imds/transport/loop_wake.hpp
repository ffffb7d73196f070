// LoopWake: a coroutine waits for the event loop's next wake-up; whoever runs the loop resumes it in place.
#pragma once

#include <boost/asio/any_completion_handler.hpp>
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/async_result.hpp>
#include <optional>

namespace cla {

// For a read that watches its socket without an Asio operation (HttpConnection, AnswerWatch::caller): Asio
// 1.81 starts every read with a system call (a recvfrom tried at once, which fails with EAGAIN when the
// answer is not there yet, or an epoll_ctl), while the socket stays in epoll anyway: an answer's arrival
// wakes the loop, and the loop's runner calls woke(), which resumes the reader right there (nothing posted).
class LoopWake {
 public:
  explicit LoopWake(boost::asio::any_io_executor ex);

  // Completes at the next woke() (no error) or cancel() (operation_aborted). One waiter at a time. An Asio
  // operation rather than a coroutine of its own: the idle poll runs one coroutine frame fewer.
  template <class Token>
  auto async_next(Token&& token) {
    return boost::asio::async_initiate<Token, void(boost::system::error_code)>(
        [this](auto handler) { waiting_.emplace(std::move(handler)); }, token);
  }
  // The event loop woke (a handler ran): resumes a waiting async_next here.
  void woke();
  // Ends a waiting async_next with operation_aborted, through the event loop (so it may be called from the
  // waiter's own call chain).
  void cancel();

 private:
  using Waiting = boost::asio::any_completion_handler<void(boost::system::error_code)>;
  boost::asio::any_io_executor ex_;
  // Only ever move-constructed, never move-assigned: see Ticker::waiting_ (Boost 1.81's
  // any_completion_handler move assignment recurses without end).
  std::optional<Waiting> waiting_;
};

}  // namespace cla
