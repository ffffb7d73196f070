// Fuzzes parse_compute: accepted metadata has a name and a fault domain in 0..1000, and the two written back
// in IMDS's shape (every primitive a string) parse to the same values.
#include <boost/json/serialize.hpp>

#include "imds/compute_parser.hpp"
#include "tests/fuzz/fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto parsed = cla::parse_compute(cla::fuzz::as_text(data, size));
  if (!parsed) {
    FUZZ_CHECK(!parsed.error().message.empty());
    return 0;
  }
  FUZZ_CHECK(!parsed->name.empty());
  FUZZ_CHECK(parsed->platform_fault_domain >= 0 && parsed->platform_fault_domain <= 1000);
  const boost::json::object written{{"name", parsed->name},
                                    {"platformFaultDomain", std::to_string(parsed->platform_fault_domain)}};
  const auto again = cla::parse_compute(boost::json::serialize(written));
  FUZZ_CHECK(again.ok());
  FUZZ_CHECK(again->name == parsed->name && again->platform_fault_domain == parsed->platform_fault_domain);
  return 0;
}
