// Parser for `nodetool ring`: sections per datacenter; rows read from both ends (the rack may hold blanks).
#include "cassandra/nodetool_output/ring_parser.hpp"

#include <algorithm>
#include <array>
#include <optional>

#include "state/text.hpp"

namespace cla {

namespace {

constexpr std::array<std::string_view, 12> kLoadUnits{"bytes", "B",   "KiB", "MiB", "GiB", "TiB",
                                                      "PiB",   "EiB", "KB",  "MB",  "GB",  "TB"};
constexpr std::array<std::string_view, 3> kStatuses{"Up", "Down", "?"};
constexpr std::array<std::string_view, 4> kStates{"Normal", "Joining", "Leaving", "Moving"};

template <std::size_t N>
bool one_of(const std::array<std::string_view, N>& set, std::string_view word) {
  return std::find(set.begin(), set.end(), word) != set.end();
}

bool is_owns(std::string_view word) {
  return word == "?" || (word.size() > 1 && word.back() == '%');
}

Result<RingRow> parse_row(std::string_view line, const std::string& dc) {
  const auto words = split_words(line);
  // address, rack (one word at least; a long one glued to the status), status, state, load (1 or 2), owns,
  // token
  if (words.size() < 6) return make_error("fewer cells than a ring row has");
  RingRow row;
  row.datacenter = dc;
  row.address = std::string(words.front());
  std::size_t right = words.size() - 1;
  row.token = std::string(words[right--]);
  if (!is_owns(words[right]))
    return make_error("Owns '" + std::string(words[right]) + "' is not a percentage or '?'");
  row.owns = std::string(words[right--]);
  if (words[right] == "?") {
    row.load = "?";
    --right;
  } else if (one_of(kLoadUnits, words[right]) && right >= 4) {
    row.load = std::string(words[right - 1]) + " " + std::string(words[right]);
    right -= 2;
  } else {
    return make_error("Load '" + std::string(words[right]) + "' is not a size or '?'");
  }
  if (!one_of(kStates, words[right]))
    return make_error("State '" + std::string(words[right]) + "' is unknown");
  row.state = std::string(words[right--]);
  // Status. A rack of 12 characters or more runs into it ("%-12s" pads, never cuts): "fault-domain-1Up".
  const std::string_view word = words[right];
  const char* end = nullptr;  // where the rack ends
  if (one_of(kStatuses, word)) {
    row.status = std::string(word);
    if (--right < 1) return make_error("no rack");
    end = words[right].data() + words[right].size();
  } else {
    const auto glued = std::find_if(kStatuses.begin(), kStatuses.end(), [&](std::string_view s) {
      return word.size() > s.size() && word.ends_with(s);
    });
    if (glued == kStatuses.end() || right < 1)
      return make_error("Status '" + std::string(word) + "' is unknown");
    row.status = std::string(*glued);
    end = word.data() + word.size() - glued->size();
  }
  // The rack is the text from its first word to its last, inner blanks kept as printed.
  const char* begin = words[1].data();
  row.rack = std::string(begin, static_cast<std::size_t>(end - begin));
  return row;
}

std::string line_error(std::size_t number, std::string_view line, const std::string& why) {
  return "nodetool ring line " + std::to_string(number) + " '" + std::string(trim(line)) + "': " + why;
}

}  // namespace

std::ostream& operator<<(std::ostream& os, const RingRow& row) {
  return os << "{" << row.datacenter << " " << row.address << " " << row.rack << " " << row.status << " "
            << row.state << " " << row.load << " " << row.owns << " " << row.token << "}";
}

std::ostream& operator<<(std::ostream& os, const RingTable& table) {
  os << "{" << table.rows.size() << " rows:";
  for (const auto& row : table.rows) os << " " << row;
  for (const auto& note : table.notes) os << " " << note;
  return os << (table.vnodes_warning ? " (vnodes warning)}" : "}");
}

Result<RingTable> parse_nodetool_ring(std::string_view stdout_text) {
  RingTable table;
  std::optional<std::string> dc;
  bool header = false, after_header = false;
  std::size_t number = 0;
  for (std::string_view raw : split_lines(stdout_text)) {
    ++number;
    const std::string_view line = trim(raw);
    if (line.empty()) continue;
    const bool just_after_header = after_header;
    after_header = false;
    if (just_after_header && split_words(line).size() == 1) {
      continue;  // the DC's last token, where its ring wraps around (whatever the token reads like)
    } else if (line.starts_with("Datacenter:")) {
      dc = std::string(trim(line.substr(11)));
      if (dc->empty()) return make_error(line_error(number, raw, "datacenter without a name"));
      header = false;
    } else if (line.starts_with("Note:")) {
      table.notes.emplace_back(line);
    } else if (line.starts_with("Warning: \"nodetool ring\"")) {
      table.vnodes_warning = true;
    } else if (line.starts_with("To view status related info")) {
      continue;  // the warning's second line
    } else if (line.starts_with("Error:")) {
      return make_error(line_error(number, raw, "nodetool reported an error"));
    } else if (!dc) {
      continue;  // nothing before the first section is part of the table
    } else if (line.find_first_not_of('=') == std::string_view::npos) {
      continue;
    } else if (line.starts_with("Address") && split_words(line).back() == "Token") {
      header = after_header = true;
    } else if (!header) {
      return make_error(line_error(number, raw, "row before the header line of datacenter " + *dc));
    } else {
      auto row = parse_row(line, *dc);
      if (!row) return make_error(line_error(number, raw, "cannot read row: " + row.error().message));
      table.rows.push_back(std::move(row.value()));
    }
  }
  if (!dc) return make_error("nodetool ring output has no 'Datacenter:' section");
  if (table.rows.empty()) return make_error("nodetool ring output has no token");
  return table;
}

}  // namespace cla
