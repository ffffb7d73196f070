// Small no-throw helpers for reading JSON from IMDS and from the emulator's admin API.
#pragma once

#include <boost/json/value.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "state/result.hpp"

namespace cla {

// Parses JSON text. Syntax errors give "invalid JSON at byte N: <reason>"; nothing throws.
Result<boost::json::value> parse_json(std::string_view text);

// An integer given as a JSON integer, or (when allow_string) as a string of decimal digits with an optional
// leading '-'. Doubles, booleans, out-of-range values and other strings give nullopt.
std::optional<std::int64_t> to_int64(const boost::json::value& v, bool allow_string);

// The value's JSON kind in words ("a string", "an array"...), for error messages.
std::string_view kind_name(const boost::json::value& v);

// `text` in double quotes, cut to `max` characters, for error messages that quote untrusted input.
std::string quoted_excerpt(std::string_view text, std::size_t max = 64);

}  // namespace cla
