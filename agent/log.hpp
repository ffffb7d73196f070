// Structured JSON-lines logging (SPEC 2.4): one small function in front of Boost.Log, plus a test capture.
#pragma once

#include <boost/json/object.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "state/result.hpp"
#include "state/scheduled_event.hpp"

namespace cla {

enum class LogLevel { debug, info, warning, error };

std::string_view to_string(LogLevel level);
std::optional<LogLevel> parse_log_level(std::string_view text);  // exact: debug|info|warning|error

// UTC RFC 3339 with milliseconds, e.g. 2026-11-22T03:04:05.123Z (truncated, not rounded).
std::string format_rfc3339_ms(WallTime t);

// Writes one line {"ts","level","msg",...fields} (fields in the order given; a field named ts, level or msg
// is dropped). Thread-safe; each line is one write(2). Before init_logging, lines reach only LogCapture.
void log_line(LogLevel level, std::string_view msg, boost::json::object fields = {});

// Opens `file` for appending (creating parent directories, mode 0640 for a new file) and starts writing
// lines at `min_level` and above to it, and to stderr too when `also_stderr`. Replaces a previous setup.
Result<bool> init_logging(const std::string& file, LogLevel min_level, bool also_stderr);

// For SIGHUP after logrotate: opens the same path again and switches to it. On failure the old file
// stays in use and the error says why.
Result<bool> reopen_log_file();

// Stops writing lines anywhere but LogCapture and closes the file.
void shutdown_logging();

namespace detail {
// Between log.cpp (line building) and log_sink.cpp (the Boost.Log sink).
bool log_sink_installed();
void write_log_record(LogLevel level, std::string line);
}  // namespace detail

namespace detail {
// Between log.cpp (line building) and log_sink.cpp (the Boost.Log sink).
bool log_sink_installed();
void write_log_record(LogLevel level, std::string line);
}  // namespace detail

struct CaptureRegistry;

// Test helper: while alive, every line logged (whatever the level filter) is also kept as an object.
class LogCapture {
 public:
  LogCapture();
  ~LogCapture();
  LogCapture(const LogCapture&) = delete;
  LogCapture& operator=(const LogCapture&) = delete;

  std::vector<boost::json::object> lines() const;
  std::vector<boost::json::object> lines_with_msg(std::string_view msg) const;

 private:
  friend struct CaptureRegistry;
  std::vector<boost::json::object> lines_;  // guarded by the capture registry's mutex
};

}  // namespace cla
