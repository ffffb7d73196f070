// Child processes through Boost.Process v2: pipes drained concurrently, a timer raced with the exit.
#include "imds/process/process_runner.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/readable_pipe.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <utility>

// clang-format off
// Process v2 (1.81) uses boost::optional and std::unique_ptr without including them.
#include <boost/optional.hpp>
#include <memory>
#include <boost/process/v2/process.hpp>
// clang-format on

#include "state/text.hpp"

extern char** environ;

namespace cla {

namespace {

namespace asio = boost::asio;
namespace bp = boost::process::v2;
using namespace boost::asio::experimental::awaitable_operators;

// Reads to EOF keeping the first `limit` bytes; `truncated` once a byte past them came. Cancellation is
// rethrown so the race sees it as a failure.
asio::awaitable<void> drain_pipe(asio::readable_pipe& pipe, std::string& sink, std::size_t limit,
                                 bool& truncated) {
  std::array<char, 16 * 1024> buffer;
  for (;;) {
    auto [ec, n] = co_await pipe.async_read_some(asio::buffer(buffer), asio::as_tuple(asio::use_awaitable));
    if (n > limit - sink.size()) truncated = true;
    if (n > 0 && sink.size() < limit) sink.append(buffer.data(), std::min(n, limit - sink.size()));
    if (ec == asio::error::operation_aborted) throw boost::system::system_error(ec);
    if (ec) co_return;  // EOF (or the pipe broke): nothing more will come
  }
}

// Waits for the exit and reaps the child. Once reaped, the process object lets go of the pid so nothing
// (its destructor included) can signal a recycled pid.
asio::awaitable<void> wait_exit(bp::process& proc, CommandOutcome& outcome, bool& reaped) {
  auto [ec, code] = co_await proc.async_wait(asio::as_tuple(asio::use_awaitable));
  if (ec == asio::error::operation_aborted) throw boost::system::system_error(ec);
  reaped = true;
  if (!ec) {
    const int status = proc.native_exit_code();
    if (WIFEXITED(status)) outcome.exit_code = WEXITSTATUS(status);
    if (WIFSIGNALED(status)) outcome.term_signal = WTERMSIG(status);
  }
  proc.detach();
}

std::vector<std::string> child_environment(const std::vector<std::pair<std::string, std::string>>& extra) {
  std::vector<std::string> env;
  for (char** entry = environ; entry && *entry; ++entry) {
    const std::string_view kv(*entry);
    const auto key = kv.substr(0, kv.find('='));
    const bool overridden =
        std::any_of(extra.begin(), extra.end(), [&](const auto& e) { return e.first == key; });
    if (!overridden) env.emplace_back(kv);
  }
  for (const auto& [key, value] : extra) env.push_back(key + "=" + value);
  return env;
}

// Closes both ends of a pipe unless released (the child's end once posix_spawn is done with it).
struct PipeFds {
  int fd[2] = {-1, -1};
  PipeFds() = default;
  PipeFds(const PipeFds&) = delete;
  PipeFds& operator=(const PipeFds&) = delete;
  ~PipeFds() {
    for (int f : fd)
      if (f >= 0) ::close(f);
  }
  int release_read() { return std::exchange(fd[0], -1); }
};

// posix_spawn's attributes and file actions, destroyed on every path.
struct SpawnSetup {
  posix_spawnattr_t attr;
  posix_spawn_file_actions_t actions;
  SpawnSetup() {
    ::posix_spawnattr_init(&attr);
    ::posix_spawn_file_actions_init(&actions);
  }
  SpawnSetup(const SpawnSetup&) = delete;
  SpawnSetup& operator=(const SpawnSetup&) = delete;
  ~SpawnSetup() {
    ::posix_spawn_file_actions_destroy(&actions);
    ::posix_spawnattr_destroy(&attr);
  }
};

// Starts the child with stdin from /dev/null and stdout/stderr into the pipes, in a process group of its own
// led by it (so that a timeout or an abandon kills whatever it forked too: kill(-pid)), with no other
// descriptor of the agent's and the default disposition of every signal. posix_spawn, not fork: glibc's
// shares the address space until the exec (CLONE_VM | CLONE_VFORK), where a fork copied the page tables of
// the whole agent at each nodetool call (two thirds of the agents' CPU in bench-fleet's wave, perf record),
// and it reports a failed exec as its result. The child's ends of the pipes are closed on return, so the
// reads see EOF once the child and anything it forked are gone.
Result<bp::process> launch(const asio::any_io_executor& executor, const std::string& program,
                           const std::vector<std::string>& argv, asio::readable_pipe& out_pipe,
                           asio::readable_pipe& err_pipe, const std::vector<std::string>& env) {
  PipeFds out, err;
  if (::pipe2(out.fd, O_CLOEXEC) != 0 || ::pipe2(err.fd, O_CLOEXEC) != 0)
    return make_error("cannot create pipes for " + program + ": " + std::strerror(errno));
  SpawnSetup setup;
  sigset_t none, all;
  ::sigemptyset(&none);
  ::sigfillset(&all);
  ::posix_spawnattr_setflags(&setup.attr,
                             POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  ::posix_spawnattr_setpgroup(&setup.attr, 0);
  ::posix_spawnattr_setsigmask(&setup.attr, &none);
  ::posix_spawnattr_setsigdefault(&setup.attr, &all);
  ::posix_spawn_file_actions_addopen(&setup.actions, 0, "/dev/null", O_RDONLY, 0);
  ::posix_spawn_file_actions_adddup2(&setup.actions, out.fd[1], 1);
  ::posix_spawn_file_actions_adddup2(&setup.actions, err.fd[1], 2);
  // Not every descriptor of the agent is close-on-exec (Asio's sockets are not): a daemon the child starts
  // (a Cassandra JVM from restart_command) would hold them for its lifetime (the agent's HTTP port, its etcd
  // connections).
  ::posix_spawn_file_actions_addclosefrom_np(&setup.actions, 3);
  std::vector<char*> args, envp;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  for (const auto& e : env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  pid_t pid = -1;
  if (const int rc =
          ::posix_spawn(&pid, program.c_str(), &setup.actions, &setup.attr, args.data(), envp.data()))
    return make_error("cannot start " + program + ": " + std::strerror(rc));
  boost::system::error_code ec;
  out_pipe.assign(out.release_read(), ec);
  if (!ec) err_pipe.assign(err.release_read(), ec);
  try {
    if (ec) throw boost::system::system_error(ec);
    return bp::process(executor, pid);
  } catch (const boost::system::system_error& e) {
    // pidfd_open refused (seccomp, kernel < 5.3, valgrind): a child that cannot be watched cannot be bounded
    // in time either, so it is stopped at once.
    ::kill(-pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
    return make_error("cannot watch " + program + ": " + e.code().message());
  }
}

// Signals the child's whole group. The group outlives its leader only while a member lives; the pid of a
// reaped leader is not reused as another group's id while that group has members.
void kill_group(int pgid) {
  if (pgid > 0) ::kill(-pgid, SIGKILL);
}

bool is_executable_file(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

}  // namespace

// Registers a running child's group in a ProcessGroups for as long as the command runs; kills the group if
// the command is left (its coroutine cancelled) while members may still run.
struct ProcessGroupEntry {
  std::shared_ptr<ProcessGroups> groups;
  int pgid;
  bool done = false;
  ProcessGroupEntry(std::shared_ptr<ProcessGroups> g, int id) : groups(std::move(g)), pgid(id) {
    if (groups) groups->groups_.insert(pgid);
  }
  ProcessGroupEntry(const ProcessGroupEntry&) = delete;
  ProcessGroupEntry& operator=(const ProcessGroupEntry&) = delete;
  bool killed = false;
  // Unregisters the group, which nothing here kills from then on. True when kill_all killed it.
  bool release() {
    if (done) return killed;
    done = true;
    if (!groups) return false;
    groups->groups_.erase(pgid);
    killed = groups->killed_.erase(pgid) > 0;
    return killed;
  }
  ~ProcessGroupEntry() {
    if (done) return;
    kill_group(pgid);
    release();
  }
};

namespace {

// CommandEnd::output_closed: until the pipes are closed and the leader reaped. True when the timer fired
// first.
asio::awaitable<bool> wait_output_closed(bp::process& proc, CommandOutcome& outcome, bool& reaped,
                                         asio::readable_pipe& out_pipe, asio::readable_pipe& err_pipe,
                                         std::size_t output_limit, asio::steady_timer& timer) {
  const auto winner = co_await ((drain_pipe(out_pipe, outcome.out, output_limit, outcome.truncated) &&
                                 drain_pipe(err_pipe, outcome.err, output_limit, outcome.truncated) &&
                                 wait_exit(proc, outcome, reaped)) ||
                                timer.async_wait(asio::use_awaitable));
  co_return winner.index() == 1;
}

// The leader's exit, then kLeaderExitGrace for the output still in the pipes. A clean exit releases the group
// at once: a daemon left in it is the command's work, not a leftover.
asio::awaitable<void> leader_exit_then_grace(bp::process& proc, CommandOutcome& outcome, bool& reaped,
                                             ProcessGroupEntry& group) {
  co_await wait_exit(proc, outcome, reaped);
  if (outcome.exit_code == 0) group.release();
  asio::steady_timer grace(co_await asio::this_coro::executor, kLeaderExitGrace);
  co_await grace.async_wait(asio::use_awaitable);
}

// CommandEnd::leader_exit: until the leader is reaped and either the pipes are closed or the grace is over
// (the pipes are closed by the caller then). True when the timer fired before the leader exited.
asio::awaitable<bool> wait_leader_exit(bp::process& proc, CommandOutcome& outcome, bool& reaped,
                                       asio::readable_pipe& out_pipe, asio::readable_pipe& err_pipe,
                                       std::size_t output_limit, asio::steady_timer& timer,
                                       ProcessGroupEntry& group) {
  const auto first = co_await ((drain_pipe(out_pipe, outcome.out, output_limit, outcome.truncated) &&
                                drain_pipe(err_pipe, outcome.err, output_limit, outcome.truncated)) ||
                               leader_exit_then_grace(proc, outcome, reaped, group) ||
                               timer.async_wait(asio::use_awaitable));
  if (first.index() == 0 && !reaped) {
    // The output closed while the leader runs on: its exit, within the timeout.
    const auto second = co_await (wait_exit(proc, outcome, reaped) || timer.async_wait(asio::use_awaitable));
    co_return second.index() == 1;
  }
  co_return !reaped;
}

}  // namespace

std::size_t ProcessGroups::kill_all() {
  const std::size_t n = groups_.size();
  for (int pgid : groups_) {
    kill_group(pgid);
    killed_.insert(pgid);
  }
  return n;
}

Result<std::string> resolve_program(const std::string& name, std::string_view path_env) {
  if (name.empty()) return make_error("empty program name");
  if (name.find('/') != std::string::npos) return name;
  std::size_t start = 0;
  while (start <= path_env.size()) {
    const auto end = std::min(path_env.find(':', start), path_env.size());
    std::string dir(path_env.substr(start, end - start));
    const std::string candidate = (dir.empty() ? std::string(".") : dir) + "/" + name;
    if (is_executable_file(candidate)) return candidate;
    start = end + 1;
  }
  return make_error("'" + name + "' not found in PATH (" + std::string(path_env) + ")");
}

asio::awaitable<CommandOutcome> run_command(std::vector<std::string> argv, std::chrono::milliseconds timeout,
                                            std::vector<std::pair<std::string, std::string>> extra_env,
                                            std::size_t output_limit,
                                            std::shared_ptr<ProcessGroups> abandonable, CommandEnd end) {
  CommandOutcome outcome;
  outcome.argv = argv;
  const auto started = std::chrono::steady_clock::now();
  auto finish = [&] {
    outcome.ended = std::chrono::steady_clock::now();
    outcome.duration = std::chrono::duration_cast<std::chrono::milliseconds>(outcome.ended - started);
    return std::move(outcome);
  };
  if (argv.empty()) {
    outcome.spawn_error = "empty command";
    co_return finish();
  }
  const char* path_env = std::getenv("PATH");
  auto program = resolve_program(argv.front(), path_env ? path_env : "/usr/local/bin:/usr/bin:/bin");
  if (!program) {
    outcome.spawn_error = program.error().message;
    co_return finish();
  }

  auto executor = co_await asio::this_coro::executor;
  asio::readable_pipe out_pipe(executor), err_pipe(executor);
  outcome.started = std::chrono::steady_clock::now();
  auto launched = launch(executor, program.value(), argv, out_pipe, err_pipe, child_environment(extra_env));
  if (!launched) {
    outcome.spawn_error = launched.error().message;
    co_return finish();
  }
  bp::process& proc = launched.value();
  const int pgid = proc.id();  // kept: the process object forgets the pid once the child is reaped
  ProcessGroupEntry group(std::move(abandonable), pgid);

  bool reaped = false;
  asio::steady_timer timer(executor, timeout);
  const bool timed_out =
      end == CommandEnd::output_closed
          ? co_await wait_output_closed(proc, outcome, reaped, out_pipe, err_pipe, output_limit, timer)
          : co_await wait_leader_exit(proc, outcome, reaped, out_pipe, err_pipe, output_limit, timer, group);
  if (timed_out) {
    // The whole group: the child, and whatever it forked that still holds the pipes or ignores SIGTERM.
    outcome.timed_out = true;
    kill_group(pgid);
    if (!reaped) co_await wait_exit(proc, outcome, reaped);
  }
  outcome.abandoned = group.release();
  co_return finish();
}

std::string CommandOutcome::summary() const {
  std::string text;
  if (!spawn_error.empty())
    text = "could not start: " + spawn_error;
  else if (timed_out)
    text = "timed out after " + std::to_string(duration.count()) + " ms, its process group killed";
  else if (abandoned)
    text =
        "abandoned after " + std::to_string(duration.count()) + " ms (killed: a forced or emergency drain)";
  else if (term_signal != 0)
    text = "killed by signal " + std::to_string(term_signal);
  else
    text = "exit " + std::to_string(exit_code);
  // Skip the JVM's "Picked up JAVA_TOOL_OPTIONS: ..." notice, which some distributions print first.
  std::string_view detail;
  for (auto line : split_lines(err))
    if (auto t = trim(line); !t.empty() && !t.starts_with("Picked up ")) {
      detail = t;
      break;
    }
  if (detail.empty()) detail = first_line(out);
  constexpr std::size_t kDetailLimit = 300;
  if (!detail.empty()) text += ": " + std::string(detail.substr(0, kDetailLimit));
  if (truncated) text += " (output cut at " + std::to_string(std::max(out.size(), err.size())) + " bytes)";
  return text;
}

}  // namespace cla
