// Ticker: the poll loop's clock, a tick every interval on a fixed grid, at no system call per tick.
#pragma once

#include <boost/asio/any_completion_handler.hpp>
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/async_result.hpp>
#include <chrono>
#include <functional>
#include <optional>

#include "agent/daemon/tick_loop.hpp"

namespace cla {

// Driven by the run loop (run_with_ticks), not by a timer, so that a tick costs no system call of its own. A
// tick resumes the waiting consumer right inside fire() (nothing posted: a post from outside the loop wakes
// the reactor with an epoll_ctl). A tick that finds the consumer busy is kept for it (one; later ones are
// dropped), so a slow poll is followed by the next at once, not by a burst; each such tick is also reported
// to `while_busy` (e.g. to end a request past its deadline).
class Ticker : public TickSource {
 public:
  Ticker(boost::asio::any_io_executor ex, std::chrono::milliseconds interval,
         std::function<void(Clock::time_point now)> while_busy = {});

  // First tick one interval from now.
  void start();
  // Ends the ticks; a waiting async_next completes with operation_aborted.
  void stop();
  // Completes with the next tick's scheduled instant, or with operation_aborted once stopped. One consumer at
  // a time. An Asio operation, not a coroutine of its own: the idle poll resumes one frame fewer. A tick kept
  // while the consumer was busy, and the end after stop(), complete through the event loop.
  template <class Token>
  auto async_next(Token&& token) {
    return boost::asio::async_initiate<Token, void(boost::system::error_code, Clock::time_point)>(
        [this](auto handler) { wait(Waiting(std::move(handler))); }, token);
  }

  Clock::time_point due() const override { return due_; }
  // The tick scheduled at due(); the grid goes on from there, or from `now` after a stall (a suspended
  // process) rather than catching up.
  void fire(Clock::time_point now) override;

 private:
  using Waiting = boost::asio::any_completion_handler<void(boost::system::error_code, Clock::time_point)>;
  // async_next's initiation: keeps the handler for fire(), or posts its completion when a tick is kept or the
  // ticker stopped.
  void wait(Waiting handler);

  boost::asio::any_io_executor ex_;
  std::chrono::milliseconds interval_;
  std::function<void(Clock::time_point)> while_busy_;
  Clock::time_point due_ = Clock::time_point::max();  // max: not started, or stopped
  // The consumer's async_next, when it waits. Only ever move-constructed, never move-assigned: in Boost 1.81
  // any_completion_handler's move assignment picks its converting constructor, which wraps the handler in
  // itself without end (a stack overflow: AddressSanitizer shows the recursion).
  std::optional<Waiting> waiting_;
  std::optional<Clock::time_point> kept_;  // a tick that found the consumer busy
  bool stopped_ = false;
};

}  // namespace cla
