// Standard base64 (RFC 4648, with padding).
#include "imds/transport/base64.hpp"

#include <array>
#include <cstdint>

namespace cla {
namespace {

constexpr std::string_view kAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

// Each byte's 6-bit value, or -1 outside the alphabet.
constexpr std::array<std::int8_t, 256> make_values() {
  std::array<std::int8_t, 256> values{};
  values.fill(-1);
  for (std::size_t i = 0; i < kAlphabet.size(); ++i)
    values[static_cast<unsigned char>(kAlphabet[i])] = static_cast<std::int8_t>(i);
  return values;
}
constexpr auto kValues = make_values();

}  // namespace

std::string base64_encode(std::string_view bytes) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  std::size_t i = 0;
  for (; i + 3 <= bytes.size(); i += 3) {
    const std::uint32_t n = static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[i])) << 16 |
                            static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[i + 1])) << 8 |
                            static_cast<unsigned char>(bytes[i + 2]);
    out += kAlphabet[n >> 18 & 63];
    out += kAlphabet[n >> 12 & 63];
    out += kAlphabet[n >> 6 & 63];
    out += kAlphabet[n & 63];
  }
  const std::size_t rest = bytes.size() - i;
  if (rest > 0) {
    std::uint32_t n = static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[i])) << 16;
    if (rest == 2) n |= static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[i + 1])) << 8;
    out += kAlphabet[n >> 18 & 63];
    out += kAlphabet[n >> 12 & 63];
    out += rest == 2 ? kAlphabet[n >> 6 & 63] : '=';
    out += '=';
  }
  return out;
}

std::optional<std::string> base64_decode(std::string_view text) {
  if (text.size() % 4 != 0) return std::nullopt;
  std::size_t padding = 0;
  if (!text.empty() && text.back() == '=') ++padding;
  if (text.size() >= 2 && text[text.size() - 2] == '=') ++padding;
  std::string out;
  out.reserve(text.size() / 4 * 3);
  const std::size_t data_chars = text.size() - padding;
  std::uint32_t n = 0;
  for (std::size_t i = 0; i < data_chars; ++i) {
    const std::int8_t value = kValues[static_cast<unsigned char>(text[i])];
    if (value < 0) return std::nullopt;  // includes '=' before the end
    n = n << 6 | static_cast<std::uint32_t>(value);
    if (i % 4 == 3) {
      out += static_cast<char>(n >> 16 & 0xff);
      out += static_cast<char>(n >> 8 & 0xff);
      out += static_cast<char>(n & 0xff);
      n = 0;
    }
  }
  if (padding == 2) {  // 2 characters: 12 bits, of which the last 4 must be zero
    if ((n & 0x0f) != 0) return std::nullopt;
    out += static_cast<char>(n >> 4 & 0xff);
  } else if (padding == 1) {  // 3 characters: 18 bits, of which the last 2 must be zero
    if ((n & 0x03) != 0) return std::nullopt;
    out += static_cast<char>(n >> 10 & 0xff);
    out += static_cast<char>(n >> 2 & 0xff);
  }
  return out;
}

}  // namespace cla
