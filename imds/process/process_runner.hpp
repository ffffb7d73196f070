// Runs one child process (argv, never a shell) with a timeout and bounded, concurrently drained
// stdout/stderr.
#pragma once

#include <boost/asio/awaitable.hpp>
#include <chrono>
#include <cstddef>
#include <memory>
#include <set>
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
  bool abandoned = false;   // killed by ProcessGroups::kill_all: a more urgent step did not wait for it
  int term_signal = 0;      // the signal that ended the child (SIGKILL after a timeout), else 0
  std::string spawn_error;  // non-empty when the program could not be started
  std::chrono::milliseconds duration{0};
  // Just before the spawn, and once the child was reaped: what the agent adds around commands is measured
  // from these (SPEC 4).
  std::chrono::steady_clock::time_point started{}, ended{};

  bool ok() const { return spawn_error.empty() && !timed_out && exit_code == 0; }
  // One line for logs: exit code, signal, timeout or spawn failure, then the first line of err (else out);
  // "(output cut at N bytes)" when truncated.
  std::string summary() const;
};

// The process groups of commands that may be given up before they end (the agent's read-only nodetool calls):
// run_command registers each such child's group while it runs, and kill_all() kills them (SPEC 3.9: a forced
// or emergency drain does not wait for a read). Lives on the loop's thread, as run_command does; shared with
// the runs, whose frames may outlive its first owner when the io_context is torn down.
class ProcessGroups {
 public:
  // SIGKILL to every registered group; their outcomes say `abandoned`. Returns how many groups there were.
  std::size_t kill_all();
  std::size_t size() const { return groups_.size(); }

 private:
  friend struct ProcessGroupEntry;
  std::set<int> groups_;
  std::set<int> killed_;
};

// When run_command's call is over.
enum class CommandEnd {
  // Once the leader has exited and every process holding its stdout/stderr has closed them: all output read.
  output_closed,
  // Once the leader has exited: its output read for kLeaderExitGrace more (or until closed), then the pipes
  // closed. After a clean exit (0) nothing kills the group, neither the end of the run nor a cancelled
  // caller: a daemon the command started (restart_command's Cassandra) runs on, holding the pipes or not.
  leader_exit,
};

// How long a CommandEnd::leader_exit command's output is still read after its leader exited. What the leader
// wrote is in the pipe when it exits, one read away: 1 s leaves that read room on a VM whose two cores a
// starting JVM keeps busy, and adds at most 1 s to a restart that takes tens of seconds.
inline constexpr std::chrono::milliseconds kLeaderExitGrace{1000};

inline constexpr std::size_t kDefaultOutputLimit = 64 * 1024;

// Starts argv[0] (looked up in PATH when it has no '/') with argv[1..] on the caller's executor, stdin from
// /dev/null, the environment inherited plus extra_env (which overrides), in a process group of its own. On
// timeout the whole group is killed with SIGKILL (a wrapper that forks, a script without exec, leaves nothing
// behind) and the child reaped. If the awaiting coroutine is cancelled, the group is killed and the child
// reaped too (with CommandEnd::leader_exit, only until the leader exited cleanly). With `abandonable`, the
// group is registered there while the command runs.
// Never throws for a failing program: every failure is in the outcome (cancellation propagates as usual).
// Output past output_limit is read and dropped (the child never blocks on a full pipe) and sets `truncated`:
// a caller that parses the output must refuse it then, not read a shorter listing as the whole.
boost::asio::awaitable<CommandOutcome> run_command(
    std::vector<std::string> argv, std::chrono::milliseconds timeout,
    std::vector<std::pair<std::string, std::string>> extra_env = {},
    std::size_t output_limit = kDefaultOutputLimit, std::shared_ptr<ProcessGroups> abandonable = nullptr,
    CommandEnd end = CommandEnd::output_closed);

inline boost::asio::awaitable<CommandOutcome> run_command(std::vector<std::string> argv,
                                                          std::chrono::milliseconds timeout, CommandEnd end) {
  return run_command(std::move(argv), timeout, {}, kDefaultOutputLimit, nullptr, end);
}

// The file execvp would run for `name`: name itself when it contains '/', else the first executable
// regular file found in the ':'-separated path_env (an empty entry means the current directory).
Result<std::string> resolve_program(const std::string& name, std::string_view path_env);

}  // namespace cla
