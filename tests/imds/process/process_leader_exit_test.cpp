// run_command's CommandEnd::leader_exit (restart_command): a daemon the command starts in the background,
// holding its output, neither holds the call until the timeout nor is killed with the command's group.
#include <signal.h>

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/test/unit_test.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <thread>

#include "imds/process/process_runner.hpp"
#include "tests/support/proc_state.hpp"
#include "tests/support/temp_dir.hpp"

using namespace std::chrono_literals;
using cla::CommandEnd;
using cla::CommandOutcome;
using cla::kLeaderExitGrace;
using cla::test::process_running;

namespace {

// The grace after the leader's exit, and as long again for /bin/sh to start, fork and exit.
constexpr auto kEndsWithin = 2 * kLeaderExitGrace;
// Long enough that a call held until it cannot be mistaken for one that ended with its leader.
constexpr auto kTimeout = 2 * kEndsWithin;
// The background child outlives every wait of a case, so only a kill ends it earlier.
const std::string kSleepSeconds =
    std::to_string(std::chrono::duration_cast<std::chrono::seconds>(10 * kTimeout).count());
// SPEC 4: no process of a timed-out command outlives it by more than 1 s.
constexpr auto kOutlivesAtMost = 1s;

CommandOutcome run(const std::string& script, CommandEnd end, std::chrono::milliseconds timeout = kTimeout) {
  boost::asio::io_context io;
  CommandOutcome outcome;
  boost::asio::co_spawn(io, cla::run_command({"/bin/sh", "-c", script}, timeout, end),
                        [&](std::exception_ptr, CommandOutcome o) { outcome = std::move(o); });
  io.run();
  return outcome;
}

bool stops_within(pid_t pid, std::chrono::milliseconds limit) {
  const auto until = std::chrono::steady_clock::now() + limit;
  while (process_running(pid) && std::chrono::steady_clock::now() < until) std::this_thread::sleep_for(10ms);
  return !process_running(pid);
}

// The pids the script printed, e.g. "$$ $!".
std::vector<pid_t> pids_in(const std::string& text) {
  std::istringstream in(text);
  std::vector<pid_t> pids;
  for (pid_t pid; in >> pid;) pids.push_back(pid);
  return pids;
}

// A restart script that starts its daemon in the background, holding stdout and stderr, and exits 0.
const std::string kStartsADaemon = "sleep " + kSleepSeconds + " & echo $!; exit 0";

}  // namespace

BOOST_AUTO_TEST_SUITE(process_leader_exit_test)

BOOST_AUTO_TEST_CASE(a_daemon_holding_the_output_ends_the_call_with_its_leader_and_runs_on) {
  const auto outcome = run(kStartsADaemon, CommandEnd::leader_exit);
  const auto pids = pids_in(outcome.out);
  BOOST_REQUIRE_EQUAL(pids.size(), 1u);
  const bool daemon_ran_on = !stops_within(pids[0], kOutlivesAtMost);  // a kill would have landed by then
  ::kill(pids[0], SIGKILL);
  BOOST_TEST(outcome.ok(), outcome.summary());
  BOOST_TEST(!outcome.timed_out);
  BOOST_TEST(outcome.duration >= kLeaderExitGrace);  // the output was read for the grace, then left
  BOOST_TEST(outcome.duration < kEndsWithin);
  BOOST_TEST(daemon_ran_on, "the daemon was killed with the command's group");
}

// The default (nodetool, hooks) as before: the call lasts as long as anything holds the output, and at the
// timeout the whole group is killed.
BOOST_AUTO_TEST_CASE(by_default_the_call_waits_for_the_output_and_kills_the_group_at_the_timeout) {
  const auto outcome = run(kStartsADaemon, CommandEnd::output_closed);
  const auto pids = pids_in(outcome.out);
  BOOST_REQUIRE_EQUAL(pids.size(), 1u);
  const bool daemon_stopped = stops_within(pids[0], kOutlivesAtMost);
  if (!daemon_stopped) ::kill(pids[0], SIGKILL);
  BOOST_TEST(outcome.timed_out);
  BOOST_TEST(outcome.duration >= kTimeout);
  BOOST_TEST(daemon_stopped);
}

// SPEC 3.9 with the option too: a leader that does not exit in time takes its whole group with it.
BOOST_AUTO_TEST_CASE(a_leader_that_outlasts_the_timeout_is_killed_with_its_group) {
  const auto outcome = run("sleep " + kSleepSeconds + " & echo $!; exec sleep " + kSleepSeconds,
                           CommandEnd::leader_exit, kLeaderExitGrace);
  const auto pids = pids_in(outcome.out);
  BOOST_REQUIRE_EQUAL(pids.size(), 1u);
  const bool daemon_stopped = stops_within(pids[0], kOutlivesAtMost);
  if (!daemon_stopped) ::kill(pids[0], SIGKILL);
  BOOST_TEST(outcome.timed_out);
  BOOST_TEST(outcome.term_signal == SIGKILL);
  BOOST_TEST(daemon_stopped);
}

// The agent stopping while the call reads the output after a clean exit: the daemon is not killed either.
BOOST_AUTO_TEST_CASE(a_caller_cancelled_after_a_clean_exit_leaves_the_daemon_running) {
  cla::test::TempDir dir("cla-leader-exit");
  const std::string pid_file = (dir.path / "pids").string();
  boost::asio::io_context io;
  boost::asio::cancellation_signal cancel;
  bool finished = false;
  boost::asio::co_spawn(
      io,
      cla::run_command(
          {"/bin/sh", "-c", "sleep " + kSleepSeconds + " & echo $$ $! > " + pid_file + "; exit 0"}, kTimeout,
          CommandEnd::leader_exit),
      boost::asio::bind_cancellation_slot(cancel.slot(),
                                          [&](std::exception_ptr, CommandOutcome) { finished = true; }));
  // Cancels once the leader is reaped (its /proc entry gone), which the call does as it sees the exit.
  std::vector<pid_t> pids;
  boost::asio::steady_timer poll(io);
  std::function<void()> wait_for_reap = [&] {
    poll.expires_after(10ms);
    poll.async_wait([&](boost::system::error_code) {
      std::ifstream in(pid_file);
      std::stringstream text;
      text << in.rdbuf();
      pids = pids_in(text.str());
      if (pids.size() == 2 && !std::filesystem::exists("/proc/" + std::to_string(pids[0])))
        cancel.emit(boost::asio::cancellation_type::terminal);
      else
        wait_for_reap();
    });
  };
  wait_for_reap();
  const auto started = std::chrono::steady_clock::now();
  io.run();
  BOOST_REQUIRE_EQUAL(pids.size(), 2u);
  const bool daemon_ran_on = !stops_within(pids[1], kOutlivesAtMost);  // a kill would have landed by then
  ::kill(pids[1], SIGKILL);
  BOOST_TEST(finished);
  BOOST_TEST((std::chrono::steady_clock::now() - started < kEndsWithin));
  BOOST_TEST(daemon_ran_on, "the cancelled call killed the daemon");
}

BOOST_AUTO_TEST_SUITE_END()
