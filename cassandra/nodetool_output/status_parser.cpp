// Parser for `nodetool status`: sections per datacenter, columns from each header line, rows field by field.
#include "cassandra/nodetool_output/status_parser.hpp"

#include <algorithm>
#include <array>
#include <cctype>

#include "state/text.hpp"

namespace cla {

namespace {

enum class Column { status, address, load, tokens, owns, host_id, token, rack };

struct ColumnName {
  std::string_view text;
  Column column;
};

// Longest names first so "Owns (effective)" wins over "Owns" and "Tokens" over "Token".
constexpr std::array<ColumnName, 8> kColumnNames{{{"Owns (effective)", Column::owns},
                                                  {"Address", Column::address},
                                                  {"Host ID", Column::host_id},
                                                  {"Tokens", Column::tokens},
                                                  {"Token", Column::token},
                                                  {"Load", Column::load},
                                                  {"Owns", Column::owns},
                                                  {"Rack", Column::rack}}};

constexpr std::array<std::string_view, 13> kLoadUnits{"bytes", "B",  "KiB", "MiB", "GiB", "TiB", "PiB",
                                                      "KB",    "MB", "GB",  "TB",  "PB",  "EiB"};

Result<std::vector<Column>> parse_header(std::string_view header) {
  std::vector<Column> columns{Column::status};
  std::string_view rest = trim(header.substr(2));  // after "--"
  while (!rest.empty()) {
    const auto match = std::find_if(kColumnNames.begin(), kColumnNames.end(), [&](const ColumnName& c) {
      return rest.substr(0, c.text.size()) == c.text &&
             (rest.size() == c.text.size() || rest[c.text.size()] == ' ' || rest[c.text.size()] == '\t');
    });
    if (match == kColumnNames.end())
      return make_error("unknown column '" + std::string(split_words(rest).front()) + "'");
    if (std::find(columns.begin(), columns.end(), match->column) != columns.end())
      return make_error("column '" + std::string(match->text) + "' given twice");
    columns.push_back(match->column);
    rest = trim(rest.substr(match->text.size()));
  }
  for (Column required : {Column::address, Column::host_id, Column::rack})
    if (std::find(columns.begin(), columns.end(), required) == columns.end())
      return make_error("missing column (Address, Host ID and Rack are required)");
  if (columns.back() != Column::rack) return make_error("Rack is not the last column");
  return columns;
}

// Reads a row left to right, one whitespace-separated field at a time; the rack is the rest of the line.
class RowCursor {
 public:
  explicit RowCursor(std::string_view line) : rest_(trim(line)) {}
  std::string_view peek() const { return rest_.substr(0, rest_.find_first_of(" \t")); }
  std::string_view next() {
    const auto word = peek();
    rest_ = trim(rest_.substr(word.size()));
    return word;
  }
  std::string_view rest() const { return rest_; }

 private:
  std::string_view rest_;
};

bool is_uuid(std::string_view s) {
  if (s.size() != 36) return false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const bool dash = i == 8 || i == 13 || i == 18 || i == 23;
    if (dash ? s[i] != '-' : !std::isxdigit(static_cast<unsigned char>(s[i]))) return false;
  }
  return true;
}

bool is_integer(std::string_view s) {
  if (!s.empty() && s.front() == '-') s.remove_prefix(1);
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

Result<StatusRow> parse_row(std::string_view line, const std::vector<Column>& columns,
                            const std::string& dc) {
  StatusRow row;
  row.datacenter = dc;
  RowCursor cursor(line);
  for (Column column : columns) {
    switch (column) {
      case Column::status: {
        const auto word = cursor.next();
        if (word.size() != 2 || std::string_view("UD?").find(word[0]) == std::string_view::npos ||
            std::string_view("NLJM").find(word[1]) == std::string_view::npos)
          return make_error("status/state '" + std::string(word) + "' is not one of U/D/? x N/L/J/M");
        row.status = word[0];
        row.state = word[1];
        break;
      }
      case Column::address:
        row.address = std::string(cursor.next());
        if (row.address.empty()) return make_error("no address");
        break;
      case Column::load: {
        row.load = std::string(cursor.next());
        const auto unit = cursor.peek();
        if (row.load != "?" && std::find(kLoadUnits.begin(), kLoadUnits.end(), unit) != kLoadUnits.end())
          row.load += " " + std::string(cursor.next());
        break;
      }
      case Column::tokens:
        if (const auto word = cursor.next(); !is_integer(word))
          return make_error("Tokens value '" + std::string(word) + "' is not a number");
        break;
      case Column::owns:
        if (const auto word = cursor.next(); word != "?" && (word.empty() || word.back() != '%'))
          return make_error("Owns value '" + std::string(word) + "' is neither a percentage nor '?'");
        break;
      case Column::host_id:
        // An empty Host ID cell is possible (endpoint without host id); then the next word is not a UUID.
        if (is_uuid(cursor.peek())) row.host_id = std::string(cursor.next());
        break;
      case Column::token:
        if (const auto word = cursor.next(); !is_integer(word))
          return make_error("Token value '" + std::string(word) + "' is not a number");
        break;
      case Column::rack:
        row.rack = std::string(cursor.rest());
        if (row.rack.empty()) return make_error("no rack");
        break;
    }
  }
  return row;
}

std::string line_error(std::size_t number, std::string_view line, const std::string& why) {
  return "nodetool status line " + std::to_string(number) + " '" + std::string(trim(line)) + "': " + why;
}

}  // namespace

std::ostream& operator<<(std::ostream& os, const StatusRow& row) {
  return os << "{" << row.datacenter << " " << row.status << row.state << " " << row.address << " "
            << row.load << " " << row.host_id << " " << row.rack << "}";
}

std::ostream& operator<<(std::ostream& os, const ClusterStatus& status) {
  os << "{" << status.rows.size() << " rows:";
  for (const auto& row : status.rows) os << " " << row;
  return os << (status.note ? " Note: " + *status.note + "}" : "}");
}

Result<ClusterStatus> parse_nodetool_status(std::string_view stdout_text) {
  ClusterStatus status;
  std::optional<std::string> dc;
  std::optional<std::vector<Column>> columns;
  std::size_t number = 0;
  for (std::string_view raw : split_lines(stdout_text)) {
    ++number;
    const std::string_view line = trim(raw);
    if (line.empty()) continue;
    if (line.starts_with("Datacenter:")) {
      dc = std::string(trim(line.substr(11)));
      if (dc->empty()) return make_error(line_error(number, raw, "datacenter without a name"));
      columns.reset();
    } else if (line.starts_with("Note:")) {
      const std::string text(trim(line.substr(5)));
      status.note = status.note ? *status.note + "\n" + text : text;
    } else if (line.starts_with("Error:")) {
      return make_error(line_error(number, raw, "nodetool reported an error"));
    } else if (!dc) {
      continue;  // nothing before the first section is part of the table
    } else if (line.find_first_not_of('=') == std::string_view::npos || line.starts_with("Status=") ||
               line.starts_with("|/ State=")) {
      continue;
    } else if (line.starts_with("--")) {
      auto parsed = parse_header(line);
      if (!parsed) return make_error(line_error(number, raw, "bad header: " + parsed.error().message));
      columns = std::move(parsed.value());
    } else if (!columns) {
      return make_error(line_error(number, raw, "row before the header line of datacenter " + *dc));
    } else {
      auto row = parse_row(line, *columns, *dc);
      if (!row) return make_error(line_error(number, raw, "cannot read row: " + row.error().message));
      status.rows.push_back(std::move(row.value()));
    }
  }
  if (!dc) return make_error("nodetool status output has no 'Datacenter:' section");
  return status;
}

}  // namespace cla
