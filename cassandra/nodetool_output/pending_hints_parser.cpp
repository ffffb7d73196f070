// Parser for `nodetool listpendinghints`: the "no pending hints" line, or TableBuilder's table whose header
// gives every column's start (each cell padded to its column's width, columns one space apart).
#include "cassandra/nodetool_output/pending_hints_parser.hpp"

#include <array>
#include <charconv>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "state/text.hpp"

namespace cla {

namespace {

constexpr std::string_view kNone = "This node does not have any pending hints";
constexpr std::array<std::string_view, 8> kColumns = {"Host ID", "Address",     "Rack",   "DC",
                                                      "Status",  "Total files", "Newest", "Oldest"};
enum Column : std::size_t { kHostId = 0, kTotalFiles = 5, kNewest = 6, kOldest = 7 };

// Strips trailing spaces and a CR (a cell's padding), keeping what precedes.
std::string_view rtrim(std::string_view s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

// Where each column starts in the header, when the header is the eight names in order, each followed by
// padding or the end of the line; nullopt otherwise.
std::optional<std::array<std::size_t, kColumns.size()>> column_starts(std::string_view header) {
  std::array<std::size_t, kColumns.size()> starts{};
  std::size_t at = 0;
  for (std::size_t i = 0; i < kColumns.size(); ++i) {
    if (i > 0) {
      if (at >= header.size() || header[at] != ' ') return std::nullopt;  // one space at least between
      while (at < header.size() && header[at] == ' ') ++at;
    }
    if (header.substr(at, kColumns[i].size()) != kColumns[i]) return std::nullopt;
    starts[i] = at;
    at += kColumns[i].size();
  }
  if (!rtrim(header.substr(at)).empty()) return std::nullopt;
  return starts;
}

bool is_hex(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

// A UUID as Java prints it: 8-4-4-4-12 hex digits.
bool is_uuid(std::string_view s) {
  if (s.size() != 36) return false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const bool dash = i == 8 || i == 13 || i == 18 || i == 23;
    if (dash ? s[i] != '-' : !is_hex(s[i])) return false;
  }
  return true;
}

// The digits at s[at, at + n) as a number; nullopt unless all are digits.
std::optional<int> digits(std::string_view s, std::size_t at, std::size_t n) {
  int value = 0;
  for (std::size_t i = at; i < at + n; ++i) {
    if (s[i] < '0' || s[i] > '9') return std::nullopt;
    value = value * 10 + (s[i] - '0');
  }
  return value;
}

// "yyyy-MM-dd HH:mm:ss,SSS" (UTC) as epoch milliseconds; nullopt unless exactly that, with a real date and
// time.
std::optional<std::int64_t> epoch_ms(std::string_view s) {
  if (s.size() != 23 || s[4] != '-' || s[7] != '-' || s[10] != ' ' || s[13] != ':' || s[16] != ':' ||
      s[19] != ',')
    return std::nullopt;
  const auto year = digits(s, 0, 4), month = digits(s, 5, 2), day = digits(s, 8, 2);
  const auto hour = digits(s, 11, 2), minute = digits(s, 14, 2), second = digits(s, 17, 2);
  const auto milli = digits(s, 20, 3);
  if (!year || !month || !day || !hour || !minute || !second || !milli) return std::nullopt;
  const std::chrono::year_month_day date{std::chrono::year{*year}, std::chrono::month{unsigned(*month)},
                                         std::chrono::day{unsigned(*day)}};
  if (!date.ok() || *hour > 23 || *minute > 59 || *second > 59) return std::nullopt;
  using std::chrono::milliseconds;
  const auto at = std::chrono::sys_days{date} + std::chrono::hours{*hour} + std::chrono::minutes{*minute} +
                  std::chrono::seconds{*second} + milliseconds{*milli};
  return std::chrono::duration_cast<milliseconds>(at.time_since_epoch()).count();
}

Error row_error(const std::string& what, std::string_view line) {
  return make_error("nodetool listpendinghints: " + what + " in \"" + std::string(rtrim(line)) + "\"");
}

}  // namespace

Result<PendingHintsList> parse_listpendinghints(std::string_view stdout_text) {
  const auto lines = split_lines(stdout_text);
  std::size_t at = 0;
  while (at < lines.size() && trim(lines[at]).empty()) ++at;
  if (at == lines.size()) return make_error("nodetool listpendinghints printed nothing");

  PendingHintsList hints;
  if (trim(lines[at]) == kNone) {
    for (++at; at < lines.size(); ++at)
      if (!trim(lines[at]).empty())
        return make_error("nodetool listpendinghints: a line after \"" + std::string(kNone) + "\": \"" +
                          std::string(trim(lines[at])) + "\"");
    return hints;
  }
  const std::string_view header = trim(lines[at]);
  const auto starts = column_starts(rtrim(lines[at]));
  if (!starts)
    return make_error("nodetool listpendinghints: neither \"" + std::string(kNone) +
                      "\" nor the header \"Host ID Address Rack DC Status Total files Newest Oldest\": \"" +
                      std::string(header) + "\"");

  for (++at; at < lines.size(); ++at) {
    const std::string_view line = rtrim(lines[at]);
    if (trim(line).empty()) continue;
    std::array<std::string_view, kColumns.size()> cells{};
    for (std::size_t i = 0; i < cells.size(); ++i) {
      const std::size_t begin = (*starts)[i];
      if (i + 1 < cells.size()) {
        const std::size_t next = (*starts)[i + 1];
        if (line.size() <= next || line[next - 1] != ' ')
          return row_error("a row not aligned to the header's columns", line);
        cells[i] = rtrim(line.substr(begin, next - 1 - begin));
      } else {
        cells[i] = line.substr(begin);
      }
    }
    PendingHints row;
    if (!is_uuid(cells[kHostId])) return row_error("not a host id", line);
    row.host_id = std::string(cells[kHostId]);
    const std::string_view files = cells[kTotalFiles];
    if (files.empty() || !is_integer_text(files) ||
        std::from_chars(files.data(), files.data() + files.size(), row.total_files).ec != std::errc{} ||
        row.total_files < 0)
      return row_error("not a count of files", line);
    const auto newest = epoch_ms(cells[kNewest]), oldest = epoch_ms(cells[kOldest]);
    if (!newest || !oldest) return row_error("not a time \"yyyy-MM-dd HH:mm:ss,SSS\"", line);
    row.newest_ms = *newest;
    row.oldest_ms = *oldest;
    hints.push_back(std::move(row));
  }
  if (hints.empty())
    return make_error("nodetool listpendinghints: a header and no row: \"" + std::string(header) + "\"");
  return hints;
}

}  // namespace cla
