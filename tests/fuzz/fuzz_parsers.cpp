// libFuzzer target: every parser that reads bytes from outside the agent (IMDS, nodetool, the state file).
// The first input byte picks the parser, the rest is its input; any crash or sanitizer report is a bug.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "cassandra/info_parser.hpp"
#include "cassandra/running_parser.hpp"
#include "cassandra/status_parser.hpp"
#include "imds/compute_parser.hpp"
#include "imds/document_parser.hpp"
#include "imds/not_before.hpp"
#include "state/state_codec.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  switch (data[0] % 7) {
    case 0:
      (void)cla::parse_scheduled_events(text);
      break;
    case 1:
      (void)cla::parse_not_before(text);
      break;
    case 2:
      (void)cla::parse_compute(text);
      break;
    case 3:
      (void)cla::parse_nodetool_status(text);
      break;
    case 4:
      (void)cla::parse_nodetool_info(text);
      break;
    case 5:
      (void)cla::parse_running(text);
      break;
    case 6:
      (void)cla::decode_state(text);
      break;
  }
  return 0;
}
