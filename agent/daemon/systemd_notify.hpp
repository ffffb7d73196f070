// Tells systemd (Type=notify, WatchdogSec) that the agent is ready, stopping or alive; no-ops elsewhere.
#pragma once

#include <chrono>
#include <optional>
#include <string>

namespace cla::systemd {

// Each returns true when a message was sent: false outside systemd (no NOTIFY_SOCKET) or on failure.
bool ready();
bool stopping();
bool watchdog();

// Watchdog pings over one datagram socket kept open: sd_notify opens, sets up and closes a socket for each
// message (12 system calls); a ping here is one sendto. NOTIFY_SOCKET is read once, at construction: a path,
// or "@name" in the abstract namespace; another form falls back to sd_notify.
class WatchdogPinger {
 public:
  WatchdogPinger();
  ~WatchdogPinger();
  WatchdogPinger(const WatchdogPinger&) = delete;
  WatchdogPinger& operator=(const WatchdogPinger&) = delete;

  // True when the ping was sent.
  bool ping() const;

 private:
  int fd_ = -1;
  std::string address_;  // sockaddr_un's sun_path, as many bytes as the address has
};

// The watchdog timeout systemd expects pings within (WatchdogSec), when enabled for this process.
// Ping at half of it, as sd_watchdog_enabled(3) advises.
std::optional<std::chrono::microseconds> watchdog_interval();

}  // namespace cla::systemd
