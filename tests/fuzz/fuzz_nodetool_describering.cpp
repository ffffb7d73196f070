// Fuzzes parse_nodetool_describering: what it accepts, printed back in 5.0's layout (the simulator's
// printer), parses to the same ranges.
#include "cassandra/nodetool_output/describering_parser.hpp"
#include "cassandra/sim/sim_schema_output.hpp"
#include "tests/fuzz/fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto parsed = cla::parse_nodetool_describering(cla::fuzz::as_text(data, size));
  if (!parsed) {
    FUZZ_CHECK(!parsed.error().message.empty());
    return 0;
  }
  for (const auto& range : parsed->ranges) {
    FUZZ_CHECK(!range.start_token.empty() && !range.end_token.empty());
    for (const auto& e : range.endpoints) FUZZ_CHECK(!e.empty());
  }
  const auto again = cla::parse_nodetool_describering(cla::format_describering(*parsed));
  FUZZ_CHECK(again.ok());
  FUZZ_CHECK(*again == *parsed);
  return 0;
}
