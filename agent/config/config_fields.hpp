// Typed readers that walk the config JSON in file order, each stopping at the first problem with its key
// path.
#pragma once

#include <boost/json/value.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cla::config_detail {

// A problem found at a key path such as `imds.poll_interval_ms` or `cassandra.nodetool[1]`.
struct FieldError {
  std::string path;
  std::string what;
};
using Check = std::optional<FieldError>;

// Reads one JSON value found at `path` into its destination (captured by the reader).
using ValueReader = std::function<Check(const boost::json::value& value, const std::string& path)>;
// Validates a string value; returns what is wrong with it, if anything.
using StringRule = std::function<std::optional<std::string>(std::string_view)>;

struct Field {
  std::string_view key;
  ValueReader read;
};

// A message kept on one line whatever a file name or key holds: control characters shown escaped (\x0a).
std::string one_line(std::string_view text);
std::string child_path(const std::string& parent, std::string_view key);
std::string describe(const boost::json::value& value);  // e.g. `string "abc"`, `integer 5`, `array`
FieldError wrong_type(const std::string& path, std::string_view expected, const boost::json::value& got);

// An object whose keys are `fields` (each optional; absent keys keep their default). An unknown key is an
// error naming the closest known key.
ValueReader object_of(std::vector<Field> fields);

ValueReader string_into(std::string& out, StringRule rule = {});
ValueReader bool_into(bool& out);
// `range_hint` replaces the default "must be between lo and hi" wording when given.
ValueReader int_into(int& out, int lo, int hi, std::string range_hint = {});
ValueReader int64_into(std::int64_t& out, std::int64_t lo, std::int64_t hi);
// An argv: an array of non-empty strings, empty only when `allow_empty`.
ValueReader argv_into(std::vector<std::string>& out, bool allow_empty);

template <class Rep, class Period>
ValueReader duration_into(std::chrono::duration<Rep, Period>& out, std::int64_t lo, std::int64_t hi) {
  return [&out, lo, hi](const boost::json::value& value, const std::string& path) -> Check {
    std::int64_t n = 0;
    if (auto error = int64_into(n, lo, hi)(value, path)) return error;
    out = std::chrono::duration<Rep, Period>(n);
    return std::nullopt;
  };
}

// Closest of `candidates` to `key` by edit distance, when close enough to be a likely typo.
std::optional<std::string_view> closest_key(std::string_view key,
                                            const std::vector<std::string_view>& candidates);

}  // namespace cla::config_detail
