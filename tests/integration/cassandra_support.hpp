// Helpers for the cassandra integration suites: run a coroutine to completion, temp dirs, files,
// nodetool-sim.
#pragma once

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <exception>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "imds/process/process_runner.hpp"

namespace cla::test {

// Runs one awaitable on a private io_context until it finishes; rethrows what it threw.
template <class T>
T run_blocking(boost::asio::awaitable<T> op) {
  boost::asio::io_context io;
  std::optional<T> result;
  std::exception_ptr error;
  boost::asio::co_spawn(io, std::move(op), [&](std::exception_ptr e, T value) {
    error = e;
    if (!e) result = std::move(value);
  });
  io.run();
  if (error) std::rethrow_exception(error);
  return std::move(*result);
}

// A fresh directory under the system temp dir, removed with everything in it.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

std::string read_text(const std::string& path);
void write_text(const std::string& path, const std::string& text);

// True when this process has no child left, running or zombie (every child was reaped).
bool no_children_left();

std::string nodetool_sim_path();
// nodetool-sim --cluster FILE --node ADDRESS, ready for a subcommand to be appended.
std::vector<std::string> sim_prefix(const std::string& cluster_file, const std::string& address);
// Runs nodetool-sim --cluster FILE --node ADDRESS SUBCOMMAND and waits for it.
CommandOutcome sim(const std::string& cluster_file, const std::string& address,
                   const std::string& subcommand);

}  // namespace cla::test
