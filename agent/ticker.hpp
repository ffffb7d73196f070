// Ticker: the poll loop's clock, a tick every interval on a fixed grid, at no system call per tick.
#pragma once

#include <array>
#include <boost/asio/any_completion_handler.hpp>
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <functional>
#include <optional>

namespace cla {

// Two timers take turns, each always waiting: when one fires the other already holds the next tick, so
// re-arming the first (two ticks on) never makes it the earliest timer, and the event loop need not be told
// (SPEC 4: at most 4 system calls per idle poll). A tick resumes the waiting consumer right inside the
// timer's handler (no hand-over through the event loop, which would cost a poll of it). A tick that finds the
// consumer busy is kept for it (one; later ones are dropped), so a slow poll is followed by the next at once,
// not by a burst; each such tick is also reported to `while_busy` (e.g. to end a request past its deadline).
class Ticker {
 public:
  using Clock = std::chrono::steady_clock;
  Ticker(boost::asio::any_io_executor ex, std::chrono::milliseconds interval,
         std::function<void(Clock::time_point now)> while_busy = {});

  // First tick one interval from now.
  void start();
  // Ends the ticks; a waiting next() returns nullopt.
  void stop();
  // The next tick's scheduled instant, or nullopt once stopped. One consumer at a time.
  boost::asio::awaitable<std::optional<Clock::time_point>> next();

 private:
  using Waiting = boost::asio::any_completion_handler<void(boost::system::error_code, Clock::time_point)>;
  void arm(std::size_t which, Clock::time_point at);
  void tick(Clock::time_point due);

  boost::asio::any_io_executor ex_;
  std::chrono::milliseconds interval_;
  std::function<void(Clock::time_point)> while_busy_;
  std::array<boost::asio::steady_timer, 2> timers_;
  // The consumer's next(), when it waits. Only ever move-constructed, never move-assigned: in Boost 1.81
  // any_completion_handler's move assignment picks its converting constructor, which wraps the handler in
  // itself without end (a stack overflow: AddressSanitizer shows the recursion).
  std::optional<Waiting> waiting_;
  std::optional<Clock::time_point> kept_;  // a tick that found the consumer busy
  bool stopped_ = false;
};

}  // namespace cla
