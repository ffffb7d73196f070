// The standard process_* metrics (CPU, memory, start time, file descriptors), read from /proc/self at scrape
// time, as Prometheus' own client libraries export them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace cla {

struct ProcessStats {
  double cpu_seconds = 0;            // utime + stime
  double resident_memory_bytes = 0;  // rss pages * page size
  double virtual_memory_bytes = 0;   // vsize
  double start_time_seconds = 0;     // Unix time: boot time + starttime
  std::optional<double> open_fds;    // entries of /proc/self/fd (the reader's own handle left out)
  std::optional<double> max_fds;     // "Max open files", soft limit; none when unlimited or unreadable
};

// The fields of /proc/<pid>/stat this needs. The command name (field 2) is in parentheses and may hold
// spaces and parentheses itself, so fields are counted from the last ')'.
struct ProcStat {
  std::uint64_t utime_ticks = 0;      // field 14
  std::uint64_t stime_ticks = 0;      // field 15
  std::uint64_t starttime_ticks = 0;  // field 22, since boot
  std::uint64_t vsize_bytes = 0;      // field 23
  std::int64_t rss_pages = 0;         // field 24
};
std::optional<ProcStat> parse_proc_stat(std::string_view text);
// "btime N" of /proc/stat: boot time, Unix seconds.
std::optional<std::uint64_t> parse_boot_time(std::string_view proc_stat);
// The soft "Max open files" of /proc/<pid>/limits; nullopt when "unlimited" or absent.
std::optional<std::uint64_t> parse_max_open_files(std::string_view limits);

// Reads the current process's figures; a file that cannot be read leaves its figures at 0 or absent.
ProcessStats read_process_stats();

}  // namespace cla
