// sd_notify wrapper: messages reach a NOTIFY_SOCKET we bind (a path, or a name in the abstract namespace, for
// the kept-open watchdog pinger too); nothing is sent and nothing fails without one.
#include "agent/daemon/systemd_notify.hpp"

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <boost/test/unit_test.hpp>
#include <cstddef>
#include <cstdlib>
#include <filesystem>
#include <string>

namespace {

// A datagram socket standing in for systemd's notification socket, named by NOTIFY_SOCKET while alive.
struct FakeNotifySocket {
  std::string path =
      (std::filesystem::temp_directory_path() / ("cla-notify-" + std::to_string(getpid()))).string();
  int fd = -1;

  bool abstract = false;

  // `abstract`: bound to the same name in the abstract namespace, named "@name" by NOTIFY_SOCKET.
  explicit FakeNotifySocket(bool in_abstract_namespace = false) : abstract(in_abstract_namespace) {
    fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    path.copy(addr.sun_path + (abstract ? 1 : 0), sizeof addr.sun_path - 2);
    if (!abstract) unlink(path.c_str());
    const auto length = abstract ? static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + path.size())
                                 : static_cast<socklen_t>(sizeof addr);
    BOOST_REQUIRE(bind(fd, reinterpret_cast<sockaddr*>(&addr), length) == 0);
    setenv("NOTIFY_SOCKET", ((abstract ? "@" : "") + path).c_str(), 1);
  }
  ~FakeNotifySocket() {
    unsetenv("NOTIFY_SOCKET");
    close(fd);
    if (!abstract) unlink(path.c_str());
  }
  std::string receive() const {
    char buf[256];
    const ssize_t n = recv(fd, buf, sizeof buf, 0);
    return n > 0 ? std::string(buf, static_cast<std::size_t>(n)) : std::string();
  }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(systemd_notify_test)

BOOST_AUTO_TEST_CASE(messages_reach_the_notify_socket) {
  FakeNotifySocket systemd;
  BOOST_TEST(cla::systemd::ready());
  BOOST_TEST(systemd.receive() == "READY=1");
  BOOST_TEST(cla::systemd::watchdog());
  BOOST_TEST(systemd.receive() == "WATCHDOG=1");
  BOOST_TEST(cla::systemd::stopping());
  BOOST_TEST(systemd.receive() == "STOPPING=1");
}

BOOST_AUTO_TEST_CASE(the_pinger_pings_over_its_one_socket) {
  for (const bool abstract : {false, true}) {
    FakeNotifySocket systemd(abstract);
    const cla::systemd::WatchdogPinger pinger;
    for (int i = 0; i < 2; ++i) {
      BOOST_TEST(pinger.ping());
      BOOST_TEST(systemd.receive() == "WATCHDOG=1");
    }
  }
}

BOOST_AUTO_TEST_CASE(outside_systemd_nothing_is_sent) {
  unsetenv("NOTIFY_SOCKET");
  unsetenv("WATCHDOG_USEC");
  BOOST_TEST(!cla::systemd::ready());
  BOOST_TEST(!cla::systemd::watchdog());
  BOOST_TEST(!cla::systemd::WatchdogPinger().ping());
  BOOST_TEST(!cla::systemd::watchdog_interval().has_value());
}

BOOST_AUTO_TEST_CASE(watchdog_interval_comes_from_the_environment) {
  setenv("WATCHDOG_USEC", "30000000", 1);
  setenv("WATCHDOG_PID", std::to_string(getpid()).c_str(), 1);
  auto interval = cla::systemd::watchdog_interval();
  BOOST_TEST(interval.has_value());
  if (interval) BOOST_TEST(interval->count() == 30'000'000);
  setenv("WATCHDOG_PID", std::to_string(getpid() + 1).c_str(), 1);  // meant for another process
  BOOST_TEST(!cla::systemd::watchdog_interval().has_value());
  unsetenv("WATCHDOG_USEC");
  unsetenv("WATCHDOG_PID");
}

BOOST_AUTO_TEST_SUITE_END()
