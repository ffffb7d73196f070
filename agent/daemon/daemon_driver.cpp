// DaemonDriver: what the run loop drives for the Daemon: the poll's ticks, the poll's answer at the loop's
// wake-ups, and the systemd watchdog's pings from the ticks.
#include "agent/daemon/daemon_driver.hpp"

namespace cla {

void DaemonDriver::ping_watchdog_every(std::chrono::microseconds period) {
  ping_period_ = period;
  pinger_.emplace();
}

void DaemonDriver::fire(Clock::time_point now) {
  if (pinger_ && now >= next_ping_) {
    pinger_->ping();
    // From the tick's grid instant, not from `now` (a little later): else a period of whole intervals would
    // wait one more tick each time.
    next_ping_ = ticker_.due() + ping_period_;
  }
  ticker_.fire(now);
}

}  // namespace cla
