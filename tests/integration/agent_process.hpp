// Integration-test helper: runs the real cassandra-lifecycle-agent with output to files, sends signals, waits
// with limits, and writes safe configs (loopback endpoint, no HTTP listener, temp paths).
#pragma once

#include <sys/types.h>

#include <boost/asio/io_context.hpp>
#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/process/v2/process.hpp>
#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace cla::test {

// A fresh directory under the system temp dir, removed on destruction.
struct AgentTempDir {
  std::filesystem::path path;
  AgentTempDir();
  ~AgentTempDir();
};

class AgentProcess {
 public:
  // Starts the agent binary with `args`; its stdout and stderr go to files in `dir`.
  AgentProcess(const std::vector<std::string>& args, const std::filesystem::path& dir);
  ~AgentProcess();  // kill_group(5 s)
  AgentProcess(const AgentProcess&) = delete;
  AgentProcess& operator=(const AgentProcess&) = delete;

  pid_t pid() const;
  void send_signal(int number);  // to the agent alone: the children it started live on
  // SIGKILL to the agent's process group (it and every child it started), then waits until the group is
  // gone (at most `limit`).
  void kill_group(std::chrono::milliseconds limit);
  // The exit code (128 + N when killed by signal N), or nothing if it still runs after `limit`.
  std::optional<int> wait_for_exit(std::chrono::milliseconds limit);
  std::string out() const;
  std::string err() const;

 private:
  boost::asio::io_context io_;
  std::filesystem::path out_path_, err_path_;
  boost::process::v2::process process_;
  pid_t group_;
  std::optional<int> exit_code_;
};

struct AgentRun {
  std::optional<int> exit_code;  // nothing when it did not exit within the limit (then it was killed)
  std::string out;
  std::string err;
};
// Runs the agent to completion (5 s limit).
AgentRun run_agent(const std::vector<std::string>& args, const std::filesystem::path& dir);

// A config that cannot reach anything but 127.0.0.1: endpoint on a closed loopback port, HTTP endpoint off,
// state and log files inside `dir`. `overrides` keys replace the top-level keys.
std::filesystem::path write_agent_config(const std::filesystem::path& dir,
                                         boost::json::object overrides = {});

// Parsed lines of a JSON-lines file (empty when it does not exist); a line that does not parse as an object
// (one still being written) is skipped.
std::vector<boost::json::object> read_json_lines(const std::filesystem::path& file);
// An argv as a JSON array of strings (config values such as cassandra.nodetool).
boost::json::array argv_json(const std::vector<std::string>& argv);
// Polls `file` until a line has "msg" == `msg`; false after `limit`.
bool wait_for_log_msg(const std::filesystem::path& file, const std::string& msg,
                      std::chrono::milliseconds limit);

}  // namespace cla::test

// The names a test of the agent kind uses unqualified (everything of cla::test it includes,
// agent_scenario.hpp's too): `using namespace cla::test::agent_tests;` at the top of the test file.
namespace cla::test::agent_tests {

using namespace cla::test;
using namespace std::chrono_literals;
namespace json = boost::json;
using Strings = std::vector<std::string>;

}  // namespace cla::test::agent_tests
