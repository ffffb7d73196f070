// Integration-test helper: the real agent binary as a child process, safe configs, and log-file polling.
#include "agent_process.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <boost/json.hpp>
#include <boost/process/v2/stdio.hpp>
#include <cerrno>
#include <csignal>
#include <fstream>
#include <iostream>
#include <sstream>
#include <thread>

namespace cla::test {
namespace {

namespace fs = std::filesystem;
namespace bp = boost::process::v2;

std::string read_file(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// An empty file at `path` (the child's output is appended to it without truncation).
fs::path empty_file(const fs::path& path) {
  std::ofstream(path, std::ios::trunc).flush();
  return path;
}

// Puts the child in a process group of its own, so the agent and the nodetool-sim/hook children it leaves
// behind can be ended together before the test's temp dir goes.
struct OwnProcessGroup {
  template <typename Launcher>
  bp::error_code on_exec_setup(Launcher&, const bp::filesystem::path&, const char* const*&) {
    if (::setpgid(0, 0) != 0) return bp::error_code(errno, bp::system_category());
    return {};
  }
};

bool group_alive(pid_t group) {
  return ::kill(-group, 0) == 0 || errno == EPERM;
}

}  // namespace

AgentTempDir::AgentTempDir() {
  std::string tmpl = (fs::temp_directory_path() / "cla-agent-XXXXXX").string();
  path = ::mkdtemp(tmpl.data());
}

// Never throws (a destructor's exception aborts the whole test binary): a process that outlived its test by a
// moment (a hook's child, a nodetool run being reaped) may still add a file while the tree is removed, so a
// failed removal is tried again for a while, then reported and left behind.
AgentTempDir::~AgentTempDir() {
  std::error_code ec;
  for (int attempt = 0; attempt < 20; ++attempt) {
    fs::remove_all(path, ec);
    if (!ec) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  std::cerr << "warning: could not remove " << path << ": " << ec.message() << "\n";
}

AgentProcess::AgentProcess(const std::vector<std::string>& args, const fs::path& dir)
    : out_path_(empty_file(dir / "stdout.txt")),
      err_path_(empty_file(dir / "stderr.txt")),
      process_(io_, CLA_BIN_DIR "/cassandra-lifecycle-agent", args,
               bp::process_stdio{nullptr, out_path_, err_path_}, OwnProcessGroup{}),
      group_(process_.id()) {}

AgentProcess::~AgentProcess() {
  kill_group(std::chrono::seconds(5));
}

void AgentProcess::kill_group(std::chrono::milliseconds limit) {
  ::kill(-group_, SIGKILL);
  if (!exit_code_) wait_for_exit(limit);
  // The orphans are reaped by init; wait until none of them can still write into the test's files.
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (group_alive(group_) && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
}

pid_t AgentProcess::pid() const {
  return process_.id();
}

void AgentProcess::send_signal(int number) {
  ::kill(process_.id(), number);
}

std::optional<int> AgentProcess::wait_for_exit(std::chrono::milliseconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!exit_code_) {
    boost::system::error_code ec;
    if (!process_.running(ec) && !ec) {
      const int status = process_.native_exit_code();
      exit_code_ = WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
    } else if (std::chrono::steady_clock::now() >= deadline) {
      return std::nullopt;
    } else {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }
  return exit_code_;
}

std::string AgentProcess::out() const {
  return read_file(out_path_);
}
std::string AgentProcess::err() const {
  return read_file(err_path_);
}

AgentRun run_agent(const std::vector<std::string>& args, const fs::path& dir) {
  AgentProcess agent(args, dir);
  AgentRun run;
  run.exit_code = agent.wait_for_exit(std::chrono::seconds(5));
  run.out = agent.out();
  run.err = agent.err();
  return run;
}

fs::path write_agent_config(const fs::path& dir, boost::json::object overrides) {
  boost::json::object config{
      {"imds", {{"endpoint", "http://127.0.0.1:9"}}},
      {"node", {{"resource_name", "vm0"}, {"fault_domain", 0}}},
      {"cassandra", {{"nodetool", {"/bin/false"}}}},
      {"state_file", (dir / "state" / "state.json").string()},
      {"log", {{"file", (dir / "log" / "agent.jsonl").string()}, {"level", "debug"}}},
      {"http", {{"listen", ""}}},
  };
  for (auto& [key, value] : overrides) config[key] = value;
  const fs::path path = dir / "config.json";
  std::ofstream(path) << boost::json::serialize(config);
  return path;
}

std::vector<boost::json::object> read_json_lines(const fs::path& file) {
  std::vector<boost::json::object> lines;
  std::ifstream in(file);
  for (std::string text; std::getline(in, text);) {
    boost::system::error_code ec;
    auto value = boost::json::parse(text, ec);
    if (!ec && value.is_object()) lines.push_back(std::move(value.as_object()));
  }
  return lines;
}

boost::json::array argv_json(const std::vector<std::string>& argv) {
  return boost::json::array(argv.begin(), argv.end());
}

bool wait_for_log_msg(const fs::path& file, const std::string& msg, std::chrono::milliseconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  for (;;) {
    std::ifstream in(file);
    for (std::string text; std::getline(in, text);) {
      boost::system::error_code ec;
      auto line = boost::json::parse(text, ec);  // the last line may still be being written
      const auto* m = !ec && line.is_object() ? line.as_object().if_contains("msg") : nullptr;
      if (m && m->is_string() && m->get_string() == msg) return true;
    }
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

}  // namespace cla::test
