// Small string helpers shared by the nodetool output parsers and the simulator (no allocation surprises).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace cla {

// Strips ASCII whitespace (space, tab, CR, LF) from both ends.
std::string_view trim(std::string_view s);

// Splits on '\n'; a trailing '\r' is kept (trim() removes it). No empty last piece after a final '\n'.
std::vector<std::string_view> split_lines(std::string_view text);

// Splits on runs of spaces and tabs; no empty pieces.
std::vector<std::string_view> split_words(std::string_view s);

// The first non-blank line of text, trimmed ("" when there is none).
std::string_view first_line(std::string_view text);

}  // namespace cla
