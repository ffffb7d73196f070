// DaemonDriver: what the run loop drives for the Daemon: the poll's ticks, the poll's answer at the loop's
// wake-ups, and the systemd watchdog's pings from the ticks.
#pragma once

#include <chrono>
#include <optional>

#include "agent/daemon/systemd_notify.hpp"
#include "agent/daemon/tick_loop.hpp"
#include "agent/daemon/ticker.hpp"
#include "imds/imds_client.hpp"

namespace cla {

class DaemonDriver : public TickSource {
 public:
  DaemonDriver(Ticker& ticker, ImdsClient& poll_client) : ticker_(ticker), poll_client_(poll_client) {}

  // Pings the watchdog from the ticks, at the first tick `period` or more after the last ping's tick (the
  // first at the first tick). The ticks go on while a poll is in flight, and they come from the run loop
  // itself, so they prove it alive; a wedged loop stops them. No timer, no wake-up of its own, one sendto a
  // ping.
  void ping_watchdog_every(std::chrono::microseconds period);

  Clock::time_point due() const override { return ticker_.due(); }
  void fire(Clock::time_point now) override;
  void woke() override { poll_client_.woke(); }

 private:
  Ticker& ticker_;
  ImdsClient& poll_client_;
  std::optional<systemd::WatchdogPinger> pinger_;
  std::chrono::microseconds ping_period_{0};
  Clock::time_point next_ping_{};
};

}  // namespace cla
