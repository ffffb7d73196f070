// Tells systemd (Type=notify, WatchdogSec) that the agent is ready, stopping or alive; no-ops elsewhere.
#pragma once

#include <chrono>
#include <optional>

namespace cla::systemd {

// Each returns true when a message was sent: false outside systemd (no NOTIFY_SOCKET) or on failure.
bool ready();
bool stopping();
bool watchdog();

// The watchdog timeout systemd expects pings within (WatchdogSec), when enabled for this process.
// Ping at half of it, as sd_watchdog_enabled(3) advises.
std::optional<std::chrono::microseconds> watchdog_interval();

}  // namespace cla::systemd
