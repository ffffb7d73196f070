// NodetoolRunner: one nodetool attempt, or attempts retried with capped exponential backoff until a deadline.
#include "cassandra/nodetool/nodetool_runner.hpp"

#include <algorithm>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "cassandra/node_backend.hpp"
#include "state/text.hpp"

namespace cla {

namespace asio = boost::asio;

std::chrono::milliseconds retry_delay(int failed_attempts, const Backoff& backoff) {
  auto delay = backoff.initial;
  for (int i = 1; i < failed_attempts && delay < backoff.cap; ++i) delay *= 2;
  return std::min(delay, backoff.cap);
}

std::size_t output_limit_for(std::string_view subcommand) {
  const auto first = subcommand.substr(0, subcommand.find(' '));
  for (std::string_view listing : {"status", "ring", "describecluster", "describering"})
    if (first == listing) return std::size_t{32} << 20;
  return std::size_t{64} << 10;
}

NodetoolRunner::NodetoolRunner(std::vector<std::string> argv_prefix, std::chrono::seconds command_timeout,
                               Backoff backoff)
    : argv_prefix_(std::move(argv_prefix)), command_timeout_(command_timeout), backoff_(backoff) {}

asio::awaitable<CommandOutcome> NodetoolRunner::run(std::string subcommand,
                                                    std::shared_ptr<ProcessGroups> abandonable,
                                                    std::optional<std::chrono::milliseconds> timeout) {
  std::vector<std::string> argv = argv_prefix_;
  const std::size_t limit = output_limit_for(subcommand);
  argv.push_back(std::move(subcommand));
  const std::chrono::milliseconds bound =
      timeout ? std::min<std::chrono::milliseconds>(*timeout, command_timeout_) : command_timeout_;
  co_return co_await run_command(std::move(argv), bound, {}, limit, std::move(abandonable));
}

asio::awaitable<CommandOutcome> NodetoolRunner::run_until(std::string subcommand,
                                                          std::chrono::steady_clock::time_point deadline,
                                                          int* attempts) {
  int count = 0;
  for (;;) {
    ++count;
    if (attempts) *attempts = count;
    CommandOutcome outcome = co_await run(subcommand);
    if (outcome.ok()) co_return outcome;
    const auto delay = retry_delay(count, backoff_);
    if (std::chrono::steady_clock::now() + delay >= deadline) co_return outcome;
    asio::steady_timer timer(co_await asio::this_coro::executor, delay);
    co_await timer.async_wait(asio::use_awaitable);
  }
}

namespace {
bool mentions(const CommandOutcome& outcome, std::string_view text) {
  return outcome.err.find(text) != std::string::npos || outcome.out.find(text) != std::string::npos;
}
}  // namespace

bool is_connect_failure(const CommandOutcome& outcome) {
  if (!outcome.spawn_error.empty() || outcome.timed_out || outcome.exit_code == 0) return false;
  return mentions(outcome, "nodetool: Failed to connect to '") ||
         mentions(outcome, "Server is not initialized yet");
}

std::string error_despite_exit_0(const CommandOutcome& outcome) {
  if (!outcome.ok()) return {};
  for (const std::string* stream : {&outcome.err, &outcome.out})
    for (auto line : split_lines(*stream)) {
      const auto t = trim(line);
      if (t.starts_with("error:") || t.starts_with("Error:") || t.starts_with("nodetool: ") ||
          t.find("Exception") != std::string_view::npos)
        return std::string(t.substr(0, 300));
    }
  return {};
}

bool is_refused_after_drain(const CommandOutcome& outcome) {
  if (!outcome.spawn_error.empty() || outcome.timed_out || outcome.exit_code == 0) return false;
  return says_refused_after_drain(outcome.err) || says_refused_after_drain(outcome.out);
}

}  // namespace cla
