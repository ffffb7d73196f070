// sd_notify(3) and sd_watchdog_enabled(3) from libsystemd, behind three calls and a query; watchdog pings
// over a socket kept open.
#include "agent/daemon/systemd_notify.hpp"

#include <sys/socket.h>
#include <sys/un.h>
#include <systemd/sd-daemon.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string_view>

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

WatchdogPinger::WatchdogPinger() {
  const char* name = std::getenv("NOTIFY_SOCKET");
  if (!name || (name[0] != '/' && name[0] != '@')) return;
  address_ = name;
  if (address_.size() >= sizeof(sockaddr_un::sun_path)) return;
  if (address_[0] == '@') address_[0] = '\0';
  fd_ = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
}

WatchdogPinger::~WatchdogPinger() {
  if (fd_ >= 0) ::close(fd_);
}

bool WatchdogPinger::ping() const {
  if (fd_ < 0) return watchdog();
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::memcpy(addr.sun_path, address_.data(), address_.size());
  const auto length = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + address_.size());
  constexpr std::string_view message = "WATCHDOG=1";
  return ::sendto(fd_, message.data(), message.size(), MSG_NOSIGNAL, reinterpret_cast<const sockaddr*>(&addr),
                  length) == static_cast<ssize_t>(message.size());
}

std::optional<std::chrono::microseconds> watchdog_interval() {
  std::uint64_t usec = 0;
  if (sd_watchdog_enabled(0, &usec) <= 0 || usec == 0) return std::nullopt;
  return std::chrono::microseconds(usec);
}

}  // namespace cla::systemd
