// The agent under a systemd watchdog (NOTIFY_SOCKET, WATCHDOG_USEC): READY=1, then WATCHDOG=1 about every
// WatchdogSec/2 from its poll ticks, not one per tick, while every poll fails (IMDS unreachable).
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <boost/test/unit_test.hpp>
#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "agent_process.hpp"

namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

// A datagram socket standing in for systemd's notification socket; NOTIFY_SOCKET names it while alive.
struct NotifySocket {
  std::string path;
  int fd = -1;

  explicit NotifySocket(const std::filesystem::path& dir) : path((dir / "notify").string()) {
    fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    path.copy(addr.sun_path, sizeof addr.sun_path - 1);
    BOOST_REQUIRE(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
    setenv("NOTIFY_SOCKET", path.c_str(), 1);
  }
  ~NotifySocket() {
    unsetenv("NOTIFY_SOCKET");
    close(fd);
  }
  // The messages received so far.
  std::vector<std::string> drain() const {
    std::vector<std::string> messages;
    char buf[256];
    for (ssize_t n; (n = recv(fd, buf, sizeof buf, 0)) > 0;)
      messages.emplace_back(buf, static_cast<std::size_t>(n));
    return messages;
  }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(agent_watchdog_test)

BOOST_AUTO_TEST_CASE(the_ticks_ping_the_watchdog_every_half_watchdog_interval) {
  constexpr auto poll_interval = 100ms;
  constexpr auto watchdog_usec = 1000ms;  // pings every 500 ms: five poll intervals
  constexpr auto period = watchdog_usec / 2;
  constexpr int wanted_pings = 4;
  cla::test::AgentTempDir dir;
  NotifySocket systemd(dir.path);
  setenv("WATCHDOG_USEC", std::to_string(std::chrono::microseconds(watchdog_usec).count()).c_str(), 1);
  unsetenv("WATCHDOG_PID");
  const auto config = cla::test::write_agent_config(
      dir.path,
      {{"imds", {{"endpoint", "http://127.0.0.1:9"}, {"poll_interval_ms", poll_interval.count()}}}});
  cla::test::AgentProcess agent({"--config", config.string()}, dir.path);
  unsetenv("WATCHDOG_USEC");

  std::vector<std::string> messages;
  int pings = 0;
  std::optional<Clock::time_point> first_ping;
  Clock::time_point last_ping;
  const auto limit = Clock::now() + 20 * period;  // generous: only reached when pings stop coming
  while (pings < wanted_pings && Clock::now() < limit) {
    for (auto& message : systemd.drain()) {
      if (message == "WATCHDOG=1") {
        ++pings;
        last_ping = Clock::now();
        if (!first_ping) first_ping = last_ping;
      }
      messages.push_back(std::move(message));
    }
    std::this_thread::sleep_for(poll_interval /
                                4);  // the granularity of this watch, not a wait for an outcome
  }
  BOOST_TEST_REQUIRE(pings == wanted_pings);
  BOOST_TEST(messages.front() == "READY=1");
  // One ping a tick would have sent about five times as many over the same time.
  const auto span = last_ping - *first_ping;
  BOOST_TEST(span >= (wanted_pings - 1) * (period - poll_interval));
}

BOOST_AUTO_TEST_SUITE_END()
