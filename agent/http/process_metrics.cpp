// process_* figures from /proc/self: the parsers are pure, the reader does the file I/O at scrape time.
#include "agent/http/process_metrics.hpp"

#include <dirent.h>
#include <unistd.h>

#include <charconv>
#include <fstream>
#include <iterator>
#include <vector>

namespace cla {
namespace {

std::string read_file(const char* path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

template <class T>
bool to_number(std::string_view text, T& out) {
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && end == text.data() + text.size();
}

std::vector<std::string_view> split_spaces(std::string_view text) {
  std::vector<std::string_view> out;
  std::size_t at = 0;
  while (at < text.size()) {
    while (at < text.size() && (text[at] == ' ' || text[at] == '\t' || text[at] == '\n')) ++at;
    std::size_t end = at;
    while (end < text.size() && text[end] != ' ' && text[end] != '\t' && text[end] != '\n') ++end;
    if (end > at) out.push_back(text.substr(at, end - at));
    at = end;
  }
  return out;
}

// Entries of /proc/self/fd, less the one this count holds open while it reads them.
std::optional<double> count_open_fds() {
  DIR* dir = opendir("/proc/self/fd");
  if (!dir) return std::nullopt;
  double count = 0;
  while (const dirent* entry = readdir(dir))
    if (entry->d_name[0] != '.') ++count;
  closedir(dir);
  return count > 0 ? count - 1 : 0;
}

// Constant while the machine runs: read once.
double boot_time_seconds() {
  static const double boot = [] {
    const auto btime = parse_boot_time(read_file("/proc/stat"));
    return btime ? static_cast<double>(*btime) : 0.0;
  }();
  return boot;
}

}  // namespace

std::optional<ProcStat> parse_proc_stat(std::string_view text) {
  const std::size_t close = text.rfind(')');
  if (close == std::string_view::npos) return std::nullopt;
  // Field 3 (state) is the first after the command name.
  const auto fields = split_spaces(text.substr(close + 1));
  auto field = [&](std::size_t n) { return fields[n - 3]; };
  if (fields.size() < 24 - 2) return std::nullopt;
  ProcStat s;
  if (!to_number(field(14), s.utime_ticks) || !to_number(field(15), s.stime_ticks) ||
      !to_number(field(22), s.starttime_ticks) || !to_number(field(23), s.vsize_bytes) ||
      !to_number(field(24), s.rss_pages))
    return std::nullopt;
  return s;
}

std::optional<std::uint64_t> parse_boot_time(std::string_view proc_stat) {
  std::size_t at = 0;
  while (at < proc_stat.size()) {
    std::size_t end = proc_stat.find('\n', at);
    if (end == std::string_view::npos) end = proc_stat.size();
    const auto words = split_spaces(proc_stat.substr(at, end - at));
    std::uint64_t value = 0;
    if (words.size() == 2 && words[0] == "btime" && to_number(words[1], value)) return value;
    at = end + 1;
  }
  return std::nullopt;
}

std::optional<std::uint64_t> parse_max_open_files(std::string_view limits) {
  constexpr std::string_view kName = "Max open files";
  const std::size_t at = limits.find(kName);
  if (at == std::string_view::npos) return std::nullopt;
  std::size_t end = limits.find('\n', at);
  if (end == std::string_view::npos) end = limits.size();
  // "Max open files            1024                 1048576              files"
  const auto words = split_spaces(limits.substr(at + kName.size(), end - at - kName.size()));
  std::uint64_t soft = 0;
  if (words.empty() || !to_number(words[0], soft)) return std::nullopt;  // "unlimited"
  return soft;
}

ProcessStats read_process_stats() {
  static const double ticks = static_cast<double>(sysconf(_SC_CLK_TCK));
  static const double page = static_cast<double>(sysconf(_SC_PAGESIZE));
  ProcessStats out;
  if (const auto stat = parse_proc_stat(read_file("/proc/self/stat"))) {
    out.cpu_seconds = static_cast<double>(stat->utime_ticks + stat->stime_ticks) / ticks;
    out.resident_memory_bytes = static_cast<double>(stat->rss_pages) * page;
    out.virtual_memory_bytes = static_cast<double>(stat->vsize_bytes);
    out.start_time_seconds = boot_time_seconds() + static_cast<double>(stat->starttime_ticks) / ticks;
  }
  out.open_fds = count_open_fds();
  if (const auto max = parse_max_open_files(read_file("/proc/self/limits")))
    out.max_fds = static_cast<double>(*max);
  return out;
}

}  // namespace cla
