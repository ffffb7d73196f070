// Fuzzes decode_state (the state file): a state it accepts encodes, decodes again and encodes to the same
// JSON, so nothing the agent persisted changes across a restart.
#include <boost/json/serialize.hpp>

#include "state/state_codec.hpp"
#include "tests/fuzz/fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto decoded = cla::decode_state(cla::fuzz::as_text(data, size));
  if (!decoded) {
    FUZZ_CHECK(!decoded.error().message.empty());
    return 0;
  }
  const boost::json::value encoded = cla::encode_state(*decoded);
  const auto again = cla::decode_state(boost::json::serialize(encoded));
  FUZZ_CHECK(again.ok());
  FUZZ_CHECK(cla::encode_state(*again) == encoded);
  return 0;
}
