// Standard base64 (RFC 4648, with padding): etcd's JSON gateway carries keys and values in it, HTTP basic
// auth its credentials (the Jolokia client).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace cla {

std::string base64_encode(std::string_view bytes);

// The decoded bytes, or nullopt when `text` is not canonical padded base64 (wrong length, a character outside
// the alphabet, misplaced padding, or non-zero bits after the last character). Never throws.
std::optional<std::string> base64_decode(std::string_view text);

}  // namespace cla
