// Fuzzes parse_getmaxhintwindow (the node's hint window, SPEC 3.10): never throws; a refusal says why; a
// window it reads is a Java int that is not negative, from a text that holds nodetool's line.
#include <limits>

#include "cassandra/nodetool_output/max_hint_window_parser.hpp"
#include "tests/fuzz/fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = cla::fuzz::as_text(data, size);
  const auto parsed = cla::parse_getmaxhintwindow(text);
  if (!parsed) {
    FUZZ_CHECK(!parsed.error().message.empty());
    return 0;
  }
  FUZZ_CHECK(parsed->count() >= 0 && parsed->count() <= std::numeric_limits<std::int32_t>::max());
  FUZZ_CHECK(text.find("Current max hint window: ") != std::string_view::npos);
  return 0;
}
