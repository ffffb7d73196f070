// Fuzzes parse_listpendinghints (the hints a node holds per target host, SPEC 3.10): never throws; a refusal
// says why; every row it reads has a host id of 36 characters, a count of files that is not negative, and
// times within the four-digit years nodetool prints (0000-9999).
#include "cassandra/nodetool_output/pending_hints_parser.hpp"
#include "tests/fuzz/fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto parsed = cla::parse_listpendinghints(cla::fuzz::as_text(data, size));
  if (!parsed) {
    FUZZ_CHECK(!parsed.error().message.empty());
    return 0;
  }
  constexpr std::int64_t kYear0 = -62167219200000, kAfterYear9999 = 253402300800000;
  for (const auto& row : *parsed) {
    FUZZ_CHECK(row.host_id.size() == 36);
    FUZZ_CHECK(row.total_files >= 0);
    FUZZ_CHECK(row.oldest_ms >= kYear0 && row.oldest_ms < kAfterYear9999);
    FUZZ_CHECK(row.newest_ms >= kYear0 && row.newest_ms < kAfterYear9999);
  }
  return 0;
}
