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

// `text` in double quotes, cut to `max` bytes, for error messages that quote untrusted input. The result is
// valid UTF-8 (messages end up in JSON): control bytes and bytes of no valid UTF-8 sequence become '?', and
// the cut never splits a character.
std::string quoted_excerpt(std::string_view text, std::size_t max = 64);

// Length of the valid UTF-8 sequence starting at s[i], or 0 when there is none.
std::size_t utf8_sequence_length(std::string_view s, std::size_t i);

}  // namespace cla
