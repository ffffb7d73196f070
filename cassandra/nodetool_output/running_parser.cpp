// Parser for `nodetool statusbinary` / `statusgossip`: compares the whole trimmed output.
#include "cassandra/nodetool_output/running_parser.hpp"

#include <string>

#include "state/text.hpp"

namespace cla {

Result<bool> parse_running(std::string_view stdout_text) {
  const auto text = trim(stdout_text);
  if (text == "running") return true;
  if (text == "not running") return false;
  constexpr std::size_t kQuoteLimit = 120;
  std::string quoted(text.substr(0, kQuoteLimit));
  if (text.size() > kQuoteLimit) quoted += "...";
  return make_error("expected 'running' or 'not running', got '" + quoted + "'");
}

}  // namespace cla
