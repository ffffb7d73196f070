// The event loop with a tick driven by its own wait: io_context::run_one_until the tick's instant, no timer.
#pragma once

#include <boost/asio/io_context.hpp>
#include <chrono>

namespace cla {

// Something the run loop calls at instants of its choosing, instead of from an Asio timer: Asio's epoll
// reactor re-programs its timerfd after every timer expiry (a timerfd_settime), so a timer-driven tick costs
// a system call each time, while a loop that waits with run_one_until(due()) leaves the waiting to
// epoll_wait's own timeout when no timer is armed (SPEC 4: at most 4 system calls per idle poll).
class TickSource {
 public:
  using Clock = std::chrono::steady_clock;
  virtual ~TickSource() = default;
  // When fire() is due next; Clock::time_point::max() for never.
  virtual Clock::time_point due() const = 0;
  // Called once due() has come, outside any handler: whatever it posts to the io_context costs an epoll_ctl
  // to wake the reactor, so a tick should resume work in place rather than post it.
  virtual void fire(Clock::time_point now) = 0;
  // Called after each wake-up of the loop that ran a handler (an event came: e.g. an answer arrived on a
  // socket that no operation reads), before fire(). Outside any handler too.
  virtual void woke() {}
};

// Runs `io` until it is stopped or out of work, calling ticks.woke() after each handler and ticks.fire()
// whenever it is due. An exception escaping a handler, woke() or fire() ends it, as it ends
// io_context::run().
void run_with_ticks(boost::asio::io_context& io, TickSource& ticks);

}  // namespace cla
