// Runs nodetool subcommands (configured argv prefix + subcommand) with a timeout, once or retried with
// backoff.
#pragma once

#include <boost/asio/awaitable.hpp>
#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "imds/process/process_runner.hpp"

namespace cla {

// Delay before retry number n (n = failed attempts so far, >= 1): initial, doubling, capped.
struct Backoff {
  std::chrono::milliseconds initial{1000};
  std::chrono::milliseconds cap{10000};
};
std::chrono::milliseconds retry_delay(int failed_attempts, const Backoff& backoff);

// What a nodetool subcommand may print before its output counts as cut short (CommandOutcome::truncated):
// the listings that grow with the cluster (status, ring, describecluster, describering: `ring` is ~130 bytes
// a token, 310 KB for 150 nodes x 16 tokens) get 32 MiB, the others 64 KiB.
std::size_t output_limit_for(std::string_view subcommand);

class NodetoolRunner {
 public:
  NodetoolRunner(std::vector<std::string> argv_prefix, std::chrono::seconds command_timeout,
                 Backoff backoff = {});

  // prefix + subcommand, one attempt bounded by the command timeout (or by `timeout` when shorter), its
  // output by output_limit_for. With `abandonable`, the attempt can be killed through it (ProcessGroups).
  boost::asio::awaitable<CommandOutcome> run(std::string subcommand,
                                             std::shared_ptr<ProcessGroups> abandonable = nullptr,
                                             std::optional<std::chrono::milliseconds> timeout = std::nullopt);

  // Retries failed attempts with exponential backoff (1 s doubling, capped at 10 s) until one is ok or the
  // next attempt could not start before `deadline`; returns the last outcome. The first attempt always
  // runs. Each attempt keeps its own command timeout. *attempts (if given) counts attempts as they start.
  boost::asio::awaitable<CommandOutcome> run_until(std::string subcommand,
                                                   std::chrono::steady_clock::time_point deadline,
                                                   int* attempts = nullptr);

 private:
  std::vector<std::string> argv_prefix_;
  std::chrono::seconds command_timeout_;
  Backoff backoff_;
};

// JMX not reachable (Cassandra down or still starting): "nodetool: Failed to connect to '..." (either JDK
// wording) or "Server is not initialized yet".
bool is_connect_failure(const CommandOutcome& outcome);

// Cassandra refused because of a drain: a failed run whose output says_refused_after_drain
// (node_backend.hpp).
bool is_refused_after_drain(const CommandOutcome& outcome);

// The error a mutating command (drain, disable*, enable*: silent when they work) printed although it exited
// 0, e.g. "error: ...", "nodetool: ...", an exception; empty when it printed nothing of the kind. Such a
// command did not do its work as far as we can know, so it counts as failed.
std::string error_despite_exit_0(const CommandOutcome& outcome);

}  // namespace cla
