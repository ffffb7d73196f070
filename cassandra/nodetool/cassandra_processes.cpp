// Cassandra JVMs by their command lines: NUL-separated arguments, read whole.
#include "cassandra/nodetool/cassandra_processes.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <optional>
#include <system_error>

namespace cla {
namespace {

// A process's whole command line, or nothing when it cannot be read: the process may exit between the
// directory listing and the read, and reading a dead process's cmdline fails with ESRCH (std::filebuf throws
// on a failed read, which took the whole check down as an internal_error at 450 agents).
std::optional<std::string> read_whole(const std::filesystem::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  std::string text;
  char buffer[4096];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      ::close(fd);
      if (n < 0) return std::nullopt;
      return text;
    }
    text.append(buffer, static_cast<std::size_t>(n));
  }
}

}  // namespace

std::vector<std::vector<std::string>> cassandra_command_lines(const std::filesystem::path& proc) {
  constexpr std::string_view kMainClass = "org.apache.cassandra.service.CassandraDaemon";
  std::vector<std::vector<std::string>> found;
  std::error_code ec;
  for (std::filesystem::directory_iterator it(proc, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.empty() || !std::all_of(name.begin(), name.end(), [](char c) { return c >= '0' && c <= '9'; }))
      continue;
    const std::optional<std::string> read = read_whole(it->path() / "cmdline");
    if (!read) continue;
    const std::string& text = *read;
    std::vector<std::string> arguments;
    for (std::size_t start = 0; start < text.size();) {
      const std::size_t end_of = std::min(text.find('\0', start), text.size());
      arguments.emplace_back(text.substr(start, end_of - start));
      start = end_of + 1;
    }
    if (std::find(arguments.begin(), arguments.end(), kMainClass) != arguments.end())
      found.push_back(std::move(arguments));
  }
  return found;
}

}  // namespace cla
