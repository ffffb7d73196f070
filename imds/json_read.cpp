// Small no-throw helpers for reading JSON from IMDS and from the emulator's admin API.
#include "imds/json_read.hpp"

#include <boost/json/parser.hpp>
#include <charconv>
#include <limits>

namespace cla {

Result<boost::json::value> parse_json(std::string_view text) {
  boost::json::parser parser;
  boost::system::error_code ec;
  const std::size_t used = parser.write(text.data(), text.size(), ec);
  if (ec) return make_error("invalid JSON at byte " + std::to_string(used) + ": " + ec.message());
  return parser.release();
}

std::optional<std::int64_t> to_int64(const boost::json::value& v, bool allow_string) {
  if (v.is_int64()) return v.get_int64();
  if (v.is_uint64()) {
    if (v.get_uint64() > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
      return std::nullopt;
    return static_cast<std::int64_t>(v.get_uint64());
  }
  if (!allow_string || !v.is_string()) return std::nullopt;
  const auto& s = v.get_string();
  if (s.empty() || s.size() > 20) return std::nullopt;
  std::int64_t out = 0;
  const char* end = s.data() + s.size();
  auto [ptr, ec] = std::from_chars(s.data(), end, out);
  if (ec != std::errc() || ptr != end) return std::nullopt;
  return out;
}

std::string_view kind_name(const boost::json::value& v) {
  switch (v.kind()) {
    case boost::json::kind::null:
      return "null";
    case boost::json::kind::bool_:
      return "a boolean";
    case boost::json::kind::int64:
    case boost::json::kind::uint64:
      return "an integer";
    case boost::json::kind::double_:
      return "a decimal number";
    case boost::json::kind::string:
      return "a string";
    case boost::json::kind::array:
      return "an array";
    case boost::json::kind::object:
      return "an object";
  }
  return "an unknown value";
}

std::string quoted_excerpt(std::string_view text, std::size_t max) {
  std::string out = "\"";
  const std::string_view kept = text.substr(0, max);
  std::size_t i = 0;
  while (i < kept.size()) {
    const std::size_t n = utf8_sequence_length(text, i);
    if (n > 1 && i + n > kept.size()) break;  // a character cut by `max`
    const auto u = static_cast<unsigned char>(text[i]);
    if (n == 0 || u < 0x20 || u == 0x7f) {
      out += '?';  // control bytes would garble a log line; invalid UTF-8 would make JSON invalid
      ++i;
      continue;
    }
    out.append(text.substr(i, n));
    i += n;
  }
  out += text.size() > max ? "...\"" : "\"";
  return out;
}

std::size_t utf8_sequence_length(std::string_view s, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char b = byte(i);
  if (b < 0x80) return 1;
  std::size_t n = b >= 0xF0 && b <= 0xF4 ? 4 : b >= 0xE0 && b <= 0xEF ? 3 : b >= 0xC2 && b <= 0xDF ? 2 : 0;
  if (n == 0 || i + n > s.size()) return 0;
  for (std::size_t k = 1; k < n; ++k)
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
  if (n == 3 && ((b == 0xE0 && byte(i + 1) < 0xA0) || (b == 0xED && byte(i + 1) >= 0xA0))) return 0;
  if (n == 4 && ((b == 0xF0 && byte(i + 1) < 0x90) || (b == 0xF4 && byte(i + 1) >= 0x90))) return 0;
  return n;
}

}  // namespace cla
