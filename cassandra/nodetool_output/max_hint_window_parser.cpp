// Parser for `nodetool getmaxhintwindow`: "Current max hint window: " + an int + " ms", on a line of its own.
#include "cassandra/nodetool_output/max_hint_window_parser.hpp"

#include <charconv>
#include <cstdint>
#include <limits>
#include <string>

#include "state/text.hpp"

namespace cla {

namespace {

constexpr std::string_view kPrefix = "Current max hint window: ";
constexpr std::string_view kSuffix = " ms";

}  // namespace

Result<std::chrono::milliseconds> parse_getmaxhintwindow(std::string_view stdout_text) {
  std::string_view line;
  for (const std::string_view raw : split_lines(stdout_text)) {
    const std::string_view l = trim(raw);
    if (l.empty()) continue;
    if (!line.empty())
      return make_error("nodetool getmaxhintwindow: a second line \"" + std::string(l) + "\" after \"" +
                        std::string(line) + "\"");
    line = l;
  }
  if (line.empty()) return make_error("nodetool getmaxhintwindow printed nothing");
  if (!line.starts_with(kPrefix) || !line.ends_with(kSuffix) || line.size() < kPrefix.size() + kSuffix.size())
    return make_error("nodetool getmaxhintwindow: not \"" + std::string(kPrefix) + "N" +
                      std::string(kSuffix) + "\": \"" + std::string(line) + "\"");
  const std::string_view number = line.substr(kPrefix.size(), line.size() - kPrefix.size() - kSuffix.size());
  if (!is_integer_text(number))
    return make_error("nodetool getmaxhintwindow: not a number of milliseconds in \"" + std::string(line) +
                      "\"");
  std::int64_t ms = 0;
  // Cassandra's MaxHintWindow is a Java int: more cannot come from it.
  if (std::from_chars(number.data(), number.data() + number.size(), ms).ec != std::errc{} || ms < 0 ||
      ms > std::numeric_limits<std::int32_t>::max())
    return make_error("nodetool getmaxhintwindow: window out of range in \"" + std::string(line) + "\"");
  return std::chrono::milliseconds{ms};
}

}  // namespace cla
