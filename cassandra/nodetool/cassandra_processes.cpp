// Cassandra JVMs by their command lines: NUL-separated arguments, read whole.
#include "cassandra/nodetool/cassandra_processes.hpp"

#include <algorithm>
#include <fstream>
#include <iterator>
#include <system_error>

namespace cla {

std::vector<std::vector<std::string>> cassandra_command_lines(const std::filesystem::path& proc) {
  constexpr std::string_view kMainClass = "org.apache.cassandra.service.CassandraDaemon";
  std::vector<std::vector<std::string>> found;
  std::error_code ec;
  for (std::filesystem::directory_iterator it(proc, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.empty() || !std::all_of(name.begin(), name.end(), [](char c) { return c >= '0' && c <= '9'; }))
      continue;
    std::ifstream in(it->path() / "cmdline", std::ios::binary);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
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
