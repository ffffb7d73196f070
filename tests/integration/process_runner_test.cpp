// run_command against real children (/bin/sh scripts on the test side only): exit codes, streams, timeout
// kill, bounded output, spawn failures, environment, argv without a shell, cancellation, no zombies.
#include "imds/process/process_runner.hpp"

#include <fcntl.h>
#include <signal.h>

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/test/unit_test.hpp>
#include <cerrno>
#include <filesystem>

#include "agent_scenario.hpp"
#include "cassandra_support.hpp"
#include "tests/support/proc_state.hpp"

using namespace std::chrono_literals;
using cla::CommandOutcome;
using cla::test::kMargin;
using cla::test::process_running;
using cla::test::run_blocking;

namespace {

CommandOutcome run(std::vector<std::string> argv, std::chrono::milliseconds timeout = 10s,
                   std::vector<std::pair<std::string, std::string>> env = {}, std::size_t limit = 64 * 1024) {
  return run_blocking(cla::run_command(std::move(argv), timeout, std::move(env), limit));
}

CommandOutcome sh(const std::string& script, std::chrono::milliseconds timeout = 10s) {
  return run({"/bin/sh", "-c", script}, timeout);
}

bool process_gone(pid_t pid) {
  return ::kill(pid, 0) == -1 && errno == ESRCH;
}

// Every case must leave no child behind: neither running nor a zombie.
struct NoLeftovers {
  ~NoLeftovers() { BOOST_TEST(cla::test::no_children_left()); }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(process_runner_test)

BOOST_FIXTURE_TEST_CASE(exit_code_and_separate_streams, NoLeftovers) {
  const auto outcome = sh("echo out; echo err >&2; exit 3");
  BOOST_TEST(outcome.exit_code == 3);
  BOOST_TEST(outcome.out == "out\n");
  BOOST_TEST(outcome.err == "err\n");
  BOOST_TEST(!outcome.ok());
  BOOST_TEST(!outcome.timed_out);
  BOOST_TEST(outcome.summary() == "exit 3: err");
  BOOST_TEST(outcome.argv.size() == 3u);
}

BOOST_FIXTURE_TEST_CASE(program_found_through_path_and_stdin_is_dev_null, NoLeftovers) {
  constexpr auto timeout = 5s;
  const auto outcome = run({"cat"}, timeout);  // would wait forever on an inherited terminal or pipe
  BOOST_TEST(outcome.ok());
  BOOST_TEST(outcome.out.empty());
  BOOST_TEST(outcome.duration < timeout);
}

// The child gets the three streams and nothing else of the agent's (a descriptor not close-on-exec here
// included), leads a process group of its own, and starts with every signal at its default disposition even
// when the agent ignores one.
BOOST_FIXTURE_TEST_CASE(the_child_holds_only_its_streams_in_a_group_of_its_own_with_default_signals,
                        NoLeftovers) {
  const int leaked = ::open("/dev/null", O_RDONLY);  // no O_CLOEXEC
  BOOST_REQUIRE(leaked > 2);
  struct sigaction ignore = {}, previous = {};
  ignore.sa_handler = SIG_IGN;
  ::sigaction(SIGHUP, &ignore, &previous);
  // SigIgn's bit 0 is SIGHUP. (glibc's posix_spawn leaves its own internal signals, 32 and 33, ignored.) The
  // shell's descriptors are listed by a simple command writing to the shell's own stdout: in a pipeline or a
  // $(...) the shell itself holds a pipe's end while ls reads its fd directory.
  const auto outcome =
      sh("ls /proc/$$/fd; ignored=$(grep SigIgn /proc/$$/status | cut -f2); "
         "[ $((0x$ignored & 1)) -eq 0 ] && echo SIGHUP at its default; "
         "[ \"$(cut -d' ' -f5 /proc/$$/stat)\" = $$ ] && echo leads its group");
  ::sigaction(SIGHUP, &previous, nullptr);
  ::close(leaked);
  BOOST_TEST(outcome.ok(), outcome.summary());
  BOOST_TEST(outcome.out == "0\n1\n2\nSIGHUP at its default\nleads its group\n");
}

BOOST_FIXTURE_TEST_CASE(arguments_are_never_interpreted_by_a_shell, NoLeftovers) {
  const auto outcome = run({"printf", "%s\\n", "$(echo injected); `id` > /tmp/x; *"});
  BOOST_TEST(outcome.ok());
  BOOST_TEST(outcome.out == "$(echo injected); `id` > /tmp/x; *\n");
}

BOOST_FIXTURE_TEST_CASE(timeout_kills_and_reaps_the_child, NoLeftovers) {
  constexpr auto timeout = 300ms;
  constexpr auto sleeps = 30s;
  static_assert(timeout + kMargin < sleeps, "a timeout that never fires must fail the bound below");
  const auto outcome = sh("echo $$; exec sleep " + std::to_string(sleeps.count()), timeout);
  BOOST_TEST(outcome.timed_out);
  BOOST_TEST(outcome.term_signal == SIGKILL);
  BOOST_TEST(outcome.exit_code == -1);
  BOOST_TEST(!outcome.ok());
  BOOST_TEST(outcome.duration >= timeout);
  BOOST_TEST(outcome.duration < timeout + kMargin);  // killed at the timeout, then reaped
  BOOST_TEST(outcome.summary().starts_with("timed out after "));
  BOOST_TEST(process_gone(std::stoi(outcome.out)));
}

// SPEC 3.9: a wrapper that forks (sudo -u, a script without exec) and a child that ignores SIGTERM leave
// nothing behind a timeout: the whole process group is killed. Killing only the direct child left the
// grandchild running for its whole sleep.
BOOST_FIXTURE_TEST_CASE(timeout_kills_the_whole_process_group_of_a_forking_wrapper, NoLeftovers) {
  constexpr auto timeout = 500ms;
  constexpr auto sleeps = 30s;
  constexpr auto outlives_at_most = 1s;  // SPEC 4: no process of a timed-out command outlives it by 1 s
  static_assert(timeout + outlives_at_most + kMargin < sleeps, "a survivor must fail the bound below");
  const auto outcome = sh(
      "sh -c 'trap \"\" TERM; echo $$; exec sleep " + std::to_string(sleeps.count()) + "' & wait", timeout);
  BOOST_TEST(outcome.timed_out);
  BOOST_TEST(outcome.summary().find("process group killed") != std::string::npos, outcome.summary());
  BOOST_REQUIRE(!outcome.out.empty());
  const pid_t grandchild = std::stoi(outcome.out);
  BOOST_TEST(cla::test::wait_until([&] { return !process_running(grandchild); }, outlives_at_most),
             "the forked child outlived the timeout");
  if (process_running(grandchild)) ::kill(grandchild, SIGKILL);
}

// ProcessGroups::kill_all (a forced or emergency drain gives up the reads in flight): the run ends at once,
// its group killed, and says it was abandoned rather than timed out.
BOOST_FIXTURE_TEST_CASE(kill_all_abandons_a_registered_command_and_its_children, NoLeftovers) {
  cla::test::TempDir dir;
  const std::string pid_file = dir.file("pid");
  boost::asio::io_context io;
  auto reads = std::make_shared<cla::ProcessGroups>();
  constexpr auto timeout = 30s;  // as long as the children sleep: only kill_all ends the call earlier
  CommandOutcome outcome;
  boost::asio::co_spawn(io,
                        cla::run_command({"/bin/sh", "-c",
                                          "sh -c 'echo $$ > " + pid_file + "; exec sleep " +
                                              std::to_string(timeout.count()) + "' & wait"},
                                         timeout, {}, 64 * 1024, reads),
                        [&](std::exception_ptr, CommandOutcome o) { outcome = std::move(o); });
  boost::asio::steady_timer poll(io);
  std::size_t killed = 0;
  std::function<void()> wait_for_child = [&] {
    poll.expires_after(20ms);
    poll.async_wait([&](boost::system::error_code) {
      if (std::filesystem::exists(pid_file) && std::filesystem::file_size(pid_file) > 0)
        killed = reads->kill_all();
      else
        wait_for_child();
    });
  };
  wait_for_child();
  const auto started = std::chrono::steady_clock::now();
  io.run();
  BOOST_TEST(killed == 1u);
  BOOST_TEST(outcome.abandoned);
  BOOST_TEST(!outcome.timed_out);
  BOOST_TEST(!outcome.ok());
  BOOST_TEST(outcome.summary().starts_with("abandoned after "), outcome.summary());
  BOOST_TEST((std::chrono::steady_clock::now() - started < timeout));
  BOOST_TEST(reads->size() == 0u, "the group is unregistered once its command ended");
  const pid_t grandchild = std::stoi(cla::test::read_text(pid_file));
  BOOST_TEST(cla::test::wait_until([&] { return !process_running(grandchild); }, 1s));
}

BOOST_FIXTURE_TEST_CASE(a_daemon_the_child_started_with_its_own_output_does_not_hold_the_call, NoLeftovers) {
  // As `cassandra-cluster.sh start` in a restart_command: the call ends when the child exits, while the
  // daemon (its output elsewhere) runs on. An fd of the pipes leaked to the daemon would hold the call until
  // the timeout, which the daemon outlives.
  const auto outcome = sh("sleep 600 </dev/null >/dev/null 2>&1 & echo $!", 20s);
  const pid_t daemon = std::stoi(outcome.out);
  const bool daemon_ran_on = process_running(daemon);
  ::kill(daemon, SIGKILL);
  BOOST_TEST(!outcome.timed_out);
  BOOST_TEST(outcome.ok());
  BOOST_TEST(daemon_ran_on);
}

BOOST_FIXTURE_TEST_CASE(big_output_is_bounded_and_drained, NoLeftovers) {
  // 2 MB on each stream: without draining past the limit the child would block on a full pipe.
  const auto outcome = run(
      {"/bin/sh", "-c", "head -c 2000000 /dev/zero; head -c 2000000 /dev/zero >&2; exit 4"}, 10s, {}, 1000);
  BOOST_TEST(outcome.exit_code == 4);
  BOOST_TEST(outcome.out.size() == 1000u);
  BOOST_TEST(outcome.err.size() == 1000u);
  BOOST_TEST(outcome.truncated);
  BOOST_TEST(outcome.summary().find("(output cut at 1000 bytes)") != std::string::npos, outcome.summary());
  const auto default_limit = sh("head -c 200000 /dev/zero | tr '\\0' x");
  BOOST_TEST(default_limit.out.size() == 64u * 1024u);
  BOOST_TEST(default_limit.out.find_first_not_of('x') == std::string::npos);
  BOOST_TEST(default_limit.truncated);
  // Exactly the limit is all of it; one byte more is not.
  BOOST_TEST(!run({"/bin/sh", "-c", "head -c 1000 /dev/zero"}, 10s, {}, 1000).truncated);
  BOOST_TEST(run({"/bin/sh", "-c", "head -c 1001 /dev/zero"}, 10s, {}, 1000).truncated);
}

BOOST_FIXTURE_TEST_CASE(spawn_failures_are_reported_not_thrown, NoLeftovers) {
  const auto missing = run({"no-such-program-cla-test"});
  BOOST_TEST(missing.spawn_error.find("not found in PATH") != std::string::npos, missing.spawn_error);
  BOOST_TEST(!missing.ok());
  BOOST_TEST(missing.summary().starts_with("could not start: "));
  const auto bad_path = run({"/nonexistent/nodetool", "status"});
  BOOST_TEST(bad_path.spawn_error.find("No such file") != std::string::npos, bad_path.spawn_error);
  BOOST_TEST(run({}).spawn_error == "empty command");

  cla::test::TempDir dir;
  const std::string not_executable = dir.file("plain.txt");
  cla::test::write_text(not_executable, "echo hi\n");
  BOOST_TEST(!run({not_executable}).spawn_error.empty());
  // Executable, but its interpreter does not exist: execve fails in the child, which must still be reaped.
  const std::string bad_interpreter = dir.file("bad.sh");
  cla::test::write_text(bad_interpreter, "#!/nonexistent/interpreter\n");
  std::filesystem::permissions(bad_interpreter, std::filesystem::perms::owner_all);
  BOOST_TEST(!run({bad_interpreter}).spawn_error.empty());
}

BOOST_FIXTURE_TEST_CASE(environment_is_inherited_plus_extra, NoLeftovers) {
  const auto outcome = run({"/bin/sh", "-c", "printf '%s|%s|%s' \"$CLA_EXTRA\" \"$HOME\" \"$PATH\""}, 10s,
                           {{"CLA_EXTRA", "two words"}, {"HOME", "/override"}});
  BOOST_TEST(outcome.ok());
  BOOST_TEST(outcome.out == std::string("two words|/override|") + std::getenv("PATH"));
}

// A condition, not a stopwatch: each command waits until every one has started (a file each in one
// directory) before it answers; run one after another, the first would wait until its timeout.
BOOST_FIXTURE_TEST_CASE(commands_run_concurrently_on_one_executor, NoLeftovers) {
  cla::test::AgentTempDir dir;
  boost::asio::io_context io;
  std::vector<CommandOutcome> outcomes(5);
  const std::string started = dir.path.string() + "/started";
  std::filesystem::create_directory(started);
  for (std::size_t i = 0; i < outcomes.size(); ++i) {
    const std::string script = "touch " + started + "/" + std::to_string(i) + "; while [ $(ls " + started +
                               " | wc -l) -lt " + std::to_string(outcomes.size()) +
                               " ]; do sleep 0.01; done; echo " + std::to_string(i);
    boost::asio::co_spawn(
        io, cla::run_command({"/bin/sh", "-c", script}, 10s),
        [&, i](std::exception_ptr, CommandOutcome outcome) { outcomes[i] = std::move(outcome); });
  }
  io.run();
  for (std::size_t i = 0; i < outcomes.size(); ++i)
    BOOST_TEST(outcomes[i].out == std::to_string(i) + "\n", outcomes[i].summary());
}

BOOST_FIXTURE_TEST_CASE(cancelling_the_caller_kills_and_reaps_the_child, NoLeftovers) {
  cla::test::TempDir dir;
  const std::string pid_file = dir.file("pid");
  boost::asio::io_context io;
  boost::asio::cancellation_signal cancel;
  bool finished = false;
  std::exception_ptr error;
  constexpr auto timeout = 30s;  // as long as the child sleeps: only the cancel ends the call earlier
  boost::asio::co_spawn(
      io,
      cla::run_command(
          {"/bin/sh", "-c", "echo $$ > " + pid_file + "; exec sleep " + std::to_string(timeout.count())},
          timeout),
      boost::asio::bind_cancellation_slot(cancel.slot(), [&](std::exception_ptr e, CommandOutcome) {
        finished = true;
        error = e;
      }));
  // Cancel once the child has written its pid.
  boost::asio::steady_timer poll(io);
  std::function<void()> wait_for_child = [&] {
    poll.expires_after(20ms);
    poll.async_wait([&](boost::system::error_code) {
      if (std::filesystem::exists(pid_file) && std::filesystem::file_size(pid_file) > 0)
        cancel.emit(boost::asio::cancellation_type::terminal);
      else
        wait_for_child();
    });
  };
  wait_for_child();
  const auto started = std::chrono::steady_clock::now();
  io.run();
  BOOST_TEST(finished);
  BOOST_TEST(static_cast<bool>(error));  // cancellation reaches the caller as an exception
  BOOST_TEST((std::chrono::steady_clock::now() - started < timeout));
  BOOST_TEST(process_gone(std::stoi(cla::test::read_text(pid_file))));
}

BOOST_FIXTURE_TEST_CASE(a_daemon_the_child_starts_does_not_hold_its_output_open, NoLeftovers) {
  // As restart_command starting a Cassandra JVM: the daemon's own output goes elsewhere, so the run ends when
  // the child exits. It leaked the pipes' write ends under Boost 1.81 and the run lasted until the timeout.
  const auto outcome = sh("sleep 60 </dev/null >/dev/null 2>&1 & echo $!", 20s);
  BOOST_TEST(outcome.ok(), outcome.summary());
  BOOST_TEST(!outcome.timed_out);
  const pid_t daemon = std::stoi(outcome.out);
  BOOST_TEST(::kill(daemon, SIGKILL) == 0);
  BOOST_TEST(cla::test::wait_until([&] { return process_gone(daemon); }, kMargin));
}

BOOST_AUTO_TEST_CASE(resolve_program_follows_path_order) {
  BOOST_TEST(cla::resolve_program("sh", "/nonexistent:/bin:/usr/bin").value() == "/bin/sh");
  BOOST_TEST(cla::resolve_program("./relative/tool", "/bin").value() == "./relative/tool");
  BOOST_TEST(!cla::resolve_program("no-such-program-cla-test", "/bin:/usr/bin").ok());
  BOOST_TEST(!cla::resolve_program("", "/bin").ok());
}

BOOST_AUTO_TEST_SUITE_END()
