// Fuzzes parse_config (the agent's configuration from JSON text, validated): an error is one line naming the
// file; an accepted configuration, rendered by config_to_json, parses back to the same Config.
#include <boost/json/serialize.hpp>

#include "agent/config/config.hpp"
#include "tests/fuzz/fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::string kFile = "fuzz.json";
  const auto parsed = cla::parse_config(cla::fuzz::as_text(data, size), kFile);
  if (!parsed) {
    const std::string& message = parsed.error().message;
    FUZZ_CHECK(message.starts_with("config error: fuzz.json: "));
    for (const char ch : message) FUZZ_CHECK(static_cast<unsigned char>(ch) >= 0x20 && ch != 0x7f);
    return 0;
  }
  const auto again = cla::parse_config(boost::json::serialize(cla::config_to_json(*parsed)), kFile);
  FUZZ_CHECK(again.ok());
  FUZZ_CHECK(*again == *parsed);
  return 0;
}
