// Typed readers for config values: type checks, ranges, argv arrays, unknown keys with a suggestion.
#include "agent/config/config_fields.hpp"

#include <algorithm>
#include <boost/json/serialize.hpp>
#include <cstdio>
#include <limits>
#include <numeric>

namespace cla::config_detail {
namespace {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  std::iota(row.begin(), row.end(), std::size_t{0});
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::string join(const std::vector<std::string_view>& items) {
  std::string out;
  for (auto item : items) out += (out.empty() ? "" : ", ") + std::string(item);
  return out;
}

}  // namespace

std::string one_line(std::string_view text) {
  std::string line;
  for (const char ch : text) {
    if (static_cast<unsigned char>(ch) >= 0x20 && ch != 0x7f) {
      line += ch;
      continue;
    }
    char escaped[8];
    std::snprintf(escaped, sizeof escaped, "\\x%02x", static_cast<unsigned char>(ch));
    line += escaped;
  }
  return line;
}

std::string child_path(const std::string& parent, std::string_view key) {
  return parent.empty() ? std::string(key) : parent + "." + std::string(key);
}

std::string describe(const boost::json::value& value) {
  switch (value.kind()) {
    case boost::json::kind::null:
      return "null";
    case boost::json::kind::bool_:
      return value.get_bool() ? "boolean true" : "boolean false";
    case boost::json::kind::int64:
    case boost::json::kind::uint64:
      return "integer " + boost::json::serialize(value);
    case boost::json::kind::double_:
      return "number " + boost::json::serialize(value);
    case boost::json::kind::string: {
      std::string_view s = value.get_string();
      if (s.size() > 40)
        return "string " + boost::json::serialize(boost::json::string(s.substr(0, 40))) + "...";
      return "string " + boost::json::serialize(value);
    }
    case boost::json::kind::array:
      return "array";
    case boost::json::kind::object:
      return "object";
  }
  return "value";
}

FieldError wrong_type(const std::string& path, std::string_view expected, const boost::json::value& got) {
  return {path, "expected " + std::string(expected) + ", got " + describe(got)};
}

std::optional<std::string_view> closest_key(std::string_view key,
                                            const std::vector<std::string_view>& candidates) {
  std::optional<std::string_view> best;
  std::size_t best_distance = std::max<std::size_t>(2, key.size() / 3) + 1;
  for (auto candidate : candidates) {
    const std::size_t d = edit_distance(key, candidate);
    if (d < best_distance) best = candidate, best_distance = d;
  }
  return best;
}

ValueReader object_of(std::vector<Field> fields) {
  return [fields = std::move(fields)](const boost::json::value& value, const std::string& path) -> Check {
    const auto* object = value.if_object();
    if (!object) return wrong_type(path.empty() ? "-" : path, "object", value);
    for (const auto& member : *object) {
      const std::string_view key = member.key();
      const boost::json::value& child = member.value();
      const auto field =
          std::find_if(fields.begin(), fields.end(), [&](const Field& f) { return f.key == key; });
      if (field != fields.end()) {
        if (auto error = field->read(child, child_path(path, key))) return error;
        continue;
      }
      std::vector<std::string_view> known;
      for (const auto& f : fields) known.push_back(f.key);
      if (auto guess = closest_key(key, known))
        return FieldError{child_path(path, key),
                          "unknown key; did you mean " + child_path(path, *guess) + "?"};
      return FieldError{child_path(path, key), "unknown key; expected one of: " + join(known)};
    }
    return std::nullopt;
  };
}

ValueReader string_into(std::string& out, StringRule rule) {
  return [&out, rule = std::move(rule)](const boost::json::value& value, const std::string& path) -> Check {
    const auto* s = value.if_string();
    if (!s) return wrong_type(path, "string", value);
    if (rule)
      if (auto problem = rule(*s)) return FieldError{path, *problem};
    out = std::string(*s);
    return std::nullopt;
  };
}

ValueReader bool_into(bool& out) {
  return [&out](const boost::json::value& value, const std::string& path) -> Check {
    if (!value.is_bool()) return wrong_type(path, "boolean (true or false)", value);
    out = value.get_bool();
    return std::nullopt;
  };
}

ValueReader int64_into(std::int64_t& out, std::int64_t lo, std::int64_t hi) {
  return [&out, lo, hi](const boost::json::value& value, const std::string& path) -> Check {
    if (!value.is_int64() && !value.is_uint64()) return wrong_type(path, "integer", value);
    const bool too_big =
        value.is_uint64() && value.get_uint64() > std::uint64_t(std::numeric_limits<std::int64_t>::max());
    if (too_big || value.to_number<std::int64_t>() < lo || value.to_number<std::int64_t>() > hi)
      return FieldError{path, "must be between " + std::to_string(lo) + " and " + std::to_string(hi) +
                                  ", got " + boost::json::serialize(value)};
    out = value.to_number<std::int64_t>();
    return std::nullopt;
  };
}

ValueReader int_into(int& out, int lo, int hi, std::string range_hint) {
  return [&out, lo, hi, range_hint = std::move(range_hint)](const boost::json::value& value,
                                                            const std::string& path) -> Check {
    std::int64_t n = 0;
    auto error = int64_into(n, lo, hi)(value, path);
    if (error && !range_hint.empty() && (value.is_int64() || value.is_uint64()))
      error->what = range_hint + ", got " + boost::json::serialize(value);
    if (error) return error;
    out = static_cast<int>(n);
    return std::nullopt;
  };
}

ValueReader argv_into(std::vector<std::string>& out, bool allow_empty) {
  return [&out, allow_empty](const boost::json::value& value, const std::string& path) -> Check {
    const auto* array = value.if_array();
    if (!array) return wrong_type(path, "array of strings (an argv)", value);
    if (array->empty() && !allow_empty)
      return FieldError{path, "must not be empty: give the program and its arguments, e.g. [\"nodetool\"]"};
    std::vector<std::string> argv;
    for (std::size_t i = 0; i < array->size(); ++i) {
      const std::string element_path = path + "[" + std::to_string(i) + "]";
      const auto* s = (*array)[i].if_string();
      if (!s) return wrong_type(element_path, "string", (*array)[i]);
      if (s->empty()) return FieldError{element_path, "must not be an empty string"};
      argv.emplace_back(*s);
    }
    out = std::move(argv);
    return std::nullopt;
  };
}

}  // namespace cla::config_detail
