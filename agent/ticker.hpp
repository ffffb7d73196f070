// Ticker: the poll loop's clock, a tick every interval on a fixed grid, at no system call per tick.
#pragma once

#include <array>
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/experimental/channel.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <optional>

namespace cla {

// Two timers take turns, each always waiting: when one fires the other already holds the next tick, so
// re-arming the first (two ticks on) never makes it the earliest timer, and the event loop need not be told
// (SPEC 4: at most 4 system calls per idle poll). A tick that finds the consumer busy waits for it (one is
// kept; later ones are dropped), so a slow poll is followed by the next at once, not by a burst.
class Ticker {
 public:
  using Clock = std::chrono::steady_clock;
  Ticker(boost::asio::any_io_executor ex, std::chrono::milliseconds interval);

  // First tick one interval from now.
  void start();
  // Ends the ticks; a waiting next() returns nullopt.
  void stop();
  // The next tick's scheduled instant, or nullopt once stopped.
  boost::asio::awaitable<std::optional<Clock::time_point>> next();

 private:
  void arm(std::size_t which, Clock::time_point at);

  std::chrono::milliseconds interval_;
  std::array<boost::asio::steady_timer, 2> timers_;
  boost::asio::experimental::channel<void(boost::system::error_code, Clock::time_point)> ticks_;
  bool stopped_ = false;
};

}  // namespace cla
