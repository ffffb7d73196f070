// Runs one child process (argv, never a shell) with a timeout and bounded, concurrently drained
// stdout/stderr.
#pragma once

#include <boost/asio/awaitable.hpp>
#include <chrono>
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "state/result.hpp"

namespace cla {

struct CommandOutcome {
  std::vector<std::string> argv;
  int exit_code = -1;      // -1 when the child did not exit normally (not started, killed by a signal)
  std::string out, err;    // the first output_limit bytes of each stream
  bool truncated = false;  // a stream printed more than output_limit: out or err is not all of it
  bool timed_out = false;
  int term_signal = 0;      // the signal that ended the child (SIGKILL after a timeout), else 0
  std::string spawn_error;  // non-empty when the program could not be started
  std::chrono::milliseconds duration{0};
  // Just before the fork, and once the child was reaped: what the agent adds around commands is measured
  // from these (SPEC 4).
  std::chrono::steady_clock::time_point started{}, ended{};

  bool ok() const { return spawn_error.empty() && !timed_out && exit_code == 0; }
  // One line for logs: exit code, signal, timeout or spawn failure, then the first line of err (else out);
  // "(output cut at N bytes)" when truncated.
  std::string summary() const;
};

// Starts argv[0] (looked up in PATH when it has no '/') with argv[1..] on the caller's executor, stdin from
// /dev/null, the environment inherited plus extra_env (which overrides). On timeout the child is killed
// with SIGKILL and reaped. If the awaiting coroutine is cancelled, the child is killed and reaped too.
// Never throws for a failing program: every failure is in the outcome (cancellation propagates as usual).
// Output past output_limit is read and dropped (the child never blocks on a full pipe) and sets `truncated`:
// a caller that parses the output must refuse it then, not read a shorter listing as the whole.
boost::asio::awaitable<CommandOutcome> run_command(
    std::vector<std::string> argv, std::chrono::milliseconds timeout,
    std::vector<std::pair<std::string, std::string>> extra_env = {}, std::size_t output_limit = 64 * 1024);

// The file execvp would run for `name`: name itself when it contains '/', else the first executable
// regular file found in the ':'-separated path_env (an empty entry means the current directory).
Result<std::string> resolve_program(const std::string& name, std::string_view path_env);

}  // namespace cla
