// The daemon's process life: startup line, SIGTERM/SIGINT stop, SIGHUP log reopen, fatal errors.
#include "agent/daemon/daemon_life.hpp"

#include <unistd.h>

#include <boost/asio/co_spawn.hpp>
#include <csignal>
#include <exception>
#include <optional>
#include <string>

#include "agent/cli.hpp"
#include "agent/daemon/failpoint.hpp"
#include "agent/log.hpp"

namespace cla {
namespace {

std::string_view signal_name(int number) {
  switch (number) {
    case SIGTERM:
      return "SIGTERM";
    case SIGINT:
      return "SIGINT";
    default:
      return "signal";
  }
}

boost::json::object started_fields(const Config& config, bool dry_run) {
  return {{"version", CLA_VERSION},
          {"pid", ::getpid()},
          {"dry_run", dry_run},
          {"imds_endpoint", config.imds.endpoint},
          {"resource_name", config.node.resource_name},
          {"fault_domain", config.node.fault_domain},
          {"replication_factor", config.topology.replication_factor},
          {"drain_lead_s", config.policy.drain_lead_s.count()},
          {"unsafe_drain_lead_s", config.policy.unsafe_drain_lead_s.count()},
          {"state_file", config.state_file},
          {"config", config_to_json(config)}};
}

}  // namespace

DaemonLife::DaemonLife(Config config, bool dry_run)
    : config_(std::move(config)),
      dry_run_(dry_run),
      stop_signals_(io_, SIGTERM, SIGINT),
      reopen_signals_(io_, SIGHUP) {
  // Writes to a closed pipe (a child's stdin, a vanished stderr) must fail with EPIPE, not kill the agent.
  std::signal(SIGPIPE, SIG_IGN);
  wait_for_stop_signal();
  wait_for_reopen_signal();
}

void DaemonLife::spawn(boost::asio::awaitable<void> task) {
  boost::asio::co_spawn(io_, std::move(task), [](std::exception_ptr error) {
    if (error) std::rethrow_exception(error);  // out of io_.run(), into run()'s fatal_error
  });
}

void DaemonLife::on_stop(std::function<void()> hook) {
  stop_hooks_.push_back(std::move(hook));
}

void DaemonLife::request_stop(const std::string& reason) {
  if (stopping_) return;
  stopping_ = true;
  stop_reason_ = reason;
  for (auto& hook : stop_hooks_) hook();
  stop_signals_.cancel();
  reopen_signals_.cancel();
  io_.stop();
}

void DaemonLife::wait_for_stop_signal() {
  stop_signals_.async_wait([this](const boost::system::error_code& ec, int number) {
    if (!ec) request_stop(std::string(signal_name(number)));
  });
}

void DaemonLife::wait_for_reopen_signal() {
  reopen_signals_.async_wait([this](const boost::system::error_code& ec, int) {
    if (ec) return;
    if (auto reopened = reopen_log_file(); reopened)
      log_line(LogLevel::info, "log_reopened", {{"file", config_.log.file}});
    else
      log_line(LogLevel::error, "log_reopen_failed",
               {{"file", config_.log.file}, {"error", reopened.error().message}});
    wait_for_reopen_signal();
  });
}

void DaemonLife::finish_cancelled_work() {
  io_.restart();
  for (int round = 0; round < 100 && io_.poll() > 0; ++round) {
  }
}

int DaemonLife::run(TickSource* ticks) {
  started_at_ = std::chrono::steady_clock::now();
  log_line(LogLevel::info, "agent_started", started_fields(config_, dry_run_));
  if (!enabled_failpoints().empty())
    log_line(
        LogLevel::warning, "failpoints_enabled",
        {{"failpoints", enabled_failpoints()}, {"note", "CLA_FAILPOINTS is for tests: these places throw"}});
  std::optional<std::string> fatal;
  try {
    if (ticks)
      run_with_ticks(io_, *ticks);
    else
      io_.run();
  } catch (const std::exception& e) {
    fatal = e.what();
  } catch (...) {
    fatal = "unknown exception";
  }
  if (fatal) log_line(LogLevel::error, "fatal_error", {{"error", *fatal}});
  // What the stop cancelled resumes and ends before agent_stopped, so that what it logs comes first.
  finish_cancelled_work();
  if (fatal) return kExitFatal;
  const auto uptime = std::chrono::steady_clock::now() - started_at_;
  log_line(LogLevel::info, "agent_stopped",
           {{"reason", stop_reason_},
            {"uptime_ms", std::chrono::duration_cast<std::chrono::milliseconds>(uptime).count()}});
  return kExitClean;
}

}  // namespace cla
