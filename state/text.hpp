// Small string helpers shared by the nodetool output parsers and the simulator (no allocation surprises).
#pragma once

#include <optional>
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

// The items of a Java List.toString, "[a, b, c]" (trimmed; "[]" has none); nullopt without the brackets.
std::optional<std::vector<std::string_view>> split_java_list(std::string_view text);

// An integer as nodetool prints it: an optional '-', then digits only.
bool is_integer_text(std::string_view s);

}  // namespace cla
