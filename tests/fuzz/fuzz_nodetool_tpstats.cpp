// Fuzzes parse_tpstats (the replica stages' completed tasks, SPEC 3.10): never throws; a refusal says why;
// the counts it reads are never negative.
#include "cassandra/nodetool_output/tpstats_parser.hpp"
#include "tests/fuzz/fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto parsed = cla::parse_tpstats(cla::fuzz::as_text(data, size));
  if (!parsed) {
    FUZZ_CHECK(!parsed.error().message.empty());
    return 0;
  }
  FUZZ_CHECK(parsed->read >= 0 && parsed->mutation >= 0 && parsed->counter_mutation >= 0);
  return 0;
}
