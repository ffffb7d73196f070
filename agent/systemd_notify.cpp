// sd_notify(3) and sd_watchdog_enabled(3) from libsystemd, behind three calls and a query.
#include "agent/systemd_notify.hpp"

#include <systemd/sd-daemon.h>

#include <cstdint>

namespace cla::systemd {

bool ready() {
  return sd_notify(0, "READY=1") > 0;
}
bool stopping() {
  return sd_notify(0, "STOPPING=1") > 0;
}
bool watchdog() {
  return sd_notify(0, "WATCHDOG=1") > 0;
}

std::optional<std::chrono::microseconds> watchdog_interval() {
  std::uint64_t usec = 0;
  if (sd_watchdog_enabled(0, &usec) <= 0 || usec == 0) return std::nullopt;
  return std::chrono::microseconds(usec);
}

}  // namespace cla::systemd
