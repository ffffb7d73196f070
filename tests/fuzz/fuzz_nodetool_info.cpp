// Fuzzes parse_nodetool_info: what it accepts, printed back as nodetool prints it ("%-23s: %s"), parses to
// the same values.
#include <cstdio>

#include "cassandra/nodetool_output/info_parser.hpp"
#include "tests/fuzz/fuzz_check.hpp"

namespace {

std::string info_line(const char* key, const std::string& value) {
  char label[32];
  std::snprintf(label, sizeof label, "%-23s: ", key);
  return label + value + '\n';
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto parsed = cla::parse_nodetool_info(cla::fuzz::as_text(data, size));
  if (!parsed) {
    FUZZ_CHECK(!parsed.error().message.empty());
    return 0;
  }
  FUZZ_CHECK(!parsed->host_id.empty() && !parsed->datacenter.empty() && !parsed->rack.empty());
  const std::string printed =
      info_line("ID", parsed->host_id) +
      info_line("Gossip active", parsed->gossip_active ? "true" : "false") +
      info_line("Native Transport active", parsed->native_transport_active ? "true" : "false") +
      info_line("Data Center", parsed->datacenter) + info_line("Rack", parsed->rack);
  const auto again = cla::parse_nodetool_info(printed);
  FUZZ_CHECK(again.ok());
  FUZZ_CHECK(again->host_id == parsed->host_id && again->datacenter == parsed->datacenter &&
             again->rack == parsed->rack && again->gossip_active == parsed->gossip_active &&
             again->native_transport_active == parsed->native_transport_active);
  return 0;
}
