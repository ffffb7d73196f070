// A process's or a thread's scheduler state as /proc shows it: the field after the command name in `stat`.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <system_error>
#include <thread>

namespace cla::test {

// The state letter of a /proc/.../stat file ('R', 'S', 'D', 'T', 'Z', ...), or nullopt when it cannot be
// read (the process is gone). The command name may hold blanks and parentheses: the state follows its last
// closing parenthesis.
inline std::optional<char> stat_state(const std::filesystem::path& stat_file) {
  std::ifstream in(stat_file);
  const std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto close = stat.rfind(") ");
  if (close == std::string::npos || close + 2 >= stat.size()) return std::nullopt;
  return stat[close + 2];
}

inline std::optional<char> process_state(pid_t pid) {
  return stat_state("/proc/" + std::to_string(pid) + "/stat");
}

// Running, not a zombie waiting for a reaper (an orphan's new parent may be an init that never reaps).
inline bool process_running(pid_t pid) {
  const auto state = process_state(pid);
  return state && *state != 'Z' && *state != 'X';
}

// Whether every thread of `pid` is stopped ('T' in /proc/PID/task/TID/stat); false when it has none left.
inline bool all_threads_stopped(pid_t pid) {
  std::error_code ec;
  bool any = false;
  for (const auto& task : std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/task", ec)) {
    if (stat_state(task.path() / "stat") != 'T') return false;
    any = true;
  }
  return any && !ec;
}

// How long SIGSTOP may take to stop every thread of a process (a failure bound, not a wait a test's timing
// depends on: a stop is normally done in microseconds).
inline constexpr std::chrono::seconds kStopBound{5};

// After SIGSTOP: whether every thread of `pid` stopped within kStopBound. A thread stops only when it next
// leaves the kernel: one in a long fsync can still serve a request after kill() returned.
inline bool threads_stopped_within_bound(pid_t pid) {
  const auto deadline = std::chrono::steady_clock::now() + kStopBound;
  while (!all_threads_stopped(pid)) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}

}  // namespace cla::test
