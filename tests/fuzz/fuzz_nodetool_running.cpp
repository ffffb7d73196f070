// Fuzzes parse_running (statusbinary/statusgossip): only "running" and "not running" (trimmed) are accepted.
#include "cassandra/nodetool_output/running_parser.hpp"
#include "state/text.hpp"
#include "tests/fuzz/fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = cla::fuzz::as_text(data, size);
  const auto parsed = cla::parse_running(text);
  if (!parsed) {
    FUZZ_CHECK(!parsed.error().message.empty());
    return 0;
  }
  FUZZ_CHECK(cla::trim(text) == (*parsed ? "running" : "not running"));
  return 0;
}
