// Fuzzes parse_nodetool_describecluster: what it accepts, printed back in 5.0's layout (the simulator's
// printer), parses to the same description; factors stay within what the parser promises.
#include "cassandra/nodetool_output/describecluster_parser.hpp"
#include "cassandra/sim/sim_schema_output.hpp"
#include "tests/fuzz/fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto parsed = cla::parse_nodetool_describecluster(cla::fuzz::as_text(data, size));
  if (!parsed) {
    FUZZ_CHECK(!parsed.error().message.empty());
    return 0;
  }
  FUZZ_CHECK(!parsed->schema_versions.empty());
  if (parsed->keyspaces)
    for (const auto& ks : *parsed->keyspaces) {
      const auto& r = ks.replication;
      FUZZ_CHECK(!ks.name.empty() && !r.strategy_class.empty());
      FUZZ_CHECK(r.kind == cla::StrategyKind::network_topology || r.dc_factors.empty());
      for (const auto& [dc, count] : r.dc_factors)
        FUZZ_CHECK(count.all >= 0 && count.transient_replicas >= 0 &&
                   (count.transient_replicas == 0 || count.transient_replicas < count.all));
      FUZZ_CHECK(r.total_factor() >= 0);
    }
  const auto again = cla::parse_nodetool_describecluster(cla::format_describecluster(*parsed));
  FUZZ_CHECK(again.ok());
  FUZZ_CHECK(*again == *parsed);
  return 0;
}
