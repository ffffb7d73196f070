// The daemon's process life around its work: agent_started, stop and log-reopen signals, the io_context run,
// agent_stopped, and fatal errors escaping the work.
#pragma once

#include <boost/asio/awaitable.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "agent/config/config.hpp"
#include "agent/daemon/tick_loop.hpp"

namespace cla {

class DaemonLife {
 public:
  // Installs the signal handlers at once, so a signal arriving after this is handled, not fatal.
  DaemonLife(Config config, bool dry_run);

  boost::asio::io_context& io() { return io_; }
  const Config& config() const { return config_; }
  bool dry_run() const { return dry_run_; }

  // Runs `task` on the io_context; an exception escaping it ends run() as a fatal error.
  void spawn(boost::asio::awaitable<void> task);
  // Called once when a stop is requested, before the io_context stops: for work in flight to wind down.
  void on_stop(std::function<void()> hook);
  // What SIGTERM and SIGINT do; `reason` goes into agent_stopped.
  void request_stop(const std::string& reason);

  // Logs agent_started, then runs until a stop (logs agent_stopped last, returns kExitClean) or until an
  // exception escapes the work (logs fatal_error, returns kExitFatal); either way it finishes the cancelled
  // work before it returns. With `ticks`, the loop also fires them when due (run_with_ticks), an exception
  // from fire() as fatal as one from the work.
  int run(TickSource* ticks = nullptr);

 private:
  // Lets the coroutines that the stop hooks cancelled resume and finish (handlers that are ready only,
  // nothing waits), so their frames unwind while what they use still exists.
  void finish_cancelled_work();
  void wait_for_stop_signal();
  void wait_for_reopen_signal();

  Config config_;
  bool dry_run_;
  boost::asio::io_context io_{1};
  boost::asio::signal_set stop_signals_;
  boost::asio::signal_set reopen_signals_;
  std::vector<std::function<void()>> stop_hooks_;
  std::string stop_reason_;
  bool stopping_ = false;
  std::chrono::steady_clock::time_point started_at_;
};

}  // namespace cla
