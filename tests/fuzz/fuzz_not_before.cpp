// Fuzzes parse_not_before: an accepted date formats as RFC 1123 and parses back to the same second.
#include <chrono>

#include "imds/not_before.hpp"
#include "tests/fuzz/fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto parsed = cla::parse_not_before(cla::fuzz::as_text(data, size));
  if (!parsed) {
    FUZZ_CHECK(!parsed.error().message.empty());
    return 0;
  }
  const std::string formatted = cla::format_not_before(*parsed);
  const auto again = cla::parse_not_before(formatted);
  FUZZ_CHECK(again.ok());
  FUZZ_CHECK(*again == std::chrono::floor<std::chrono::seconds>(*parsed));
  return 0;
}
