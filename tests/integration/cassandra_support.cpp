// Helpers for the cassandra integration suites (temp dirs, files, running nodetool-sim).
#include "cassandra_support.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>

namespace cla::test {

TempDir::TempDir() {
  static std::atomic<int> counter{0};
  std::random_device random;
  path_ =
      std::filesystem::temp_directory_path() / ("cla-cassandra-" + std::to_string(::getpid()) + "-" +
                                                std::to_string(counter++) + "-" + std::to_string(random()));
  std::filesystem::create_directories(path_);
}

TempDir::~TempDir() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

void write_text(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  if (!out) throw std::runtime_error("cannot write " + path);
}

bool no_children_left() {
  return ::waitpid(-1, nullptr, WNOHANG) == -1 && errno == ECHILD;
}

std::string nodetool_sim_path() {
  std::string path = CLA_BIN_DIR;
  return path.append("/nodetool-sim");
}

std::vector<std::string> sim_prefix(const std::string& cluster_file, const std::string& address) {
  return {nodetool_sim_path(), "--cluster", cluster_file, "--node", address};
}

CommandOutcome sim(const std::string& cluster_file, const std::string& address,
                   const std::string& subcommand) {
  auto argv = sim_prefix(cluster_file, address);
  argv.push_back(subcommand);
  return run_blocking(run_command(std::move(argv), std::chrono::seconds(10)));
}

}  // namespace cla::test
