// Fuzzes parse_nodetool_ring: rows keep their cells within nodetool's sets, and what it accepts, printed back
// in 5.0's layout (the simulator's printer), parses to the same rows (DC sections come back sorted by name)
// and notes; the token ring built from it is ordered.
#include <algorithm>
#include <array>

#include "cassandra/gate/token_ring.hpp"
#include "cassandra/nodetool_output/ring_parser.hpp"
#include "cassandra/sim/sim_schema_output.hpp"
#include "tests/fuzz/fuzz_check.hpp"

namespace {

std::vector<cla::RingRow> by_dc(std::vector<cla::RingRow> rows) {
  std::stable_sort(rows.begin(), rows.end(),
                   [](const auto& a, const auto& b) { return a.datacenter < b.datacenter; });
  return rows;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto parsed = cla::parse_nodetool_ring(cla::fuzz::as_text(data, size));
  if (!parsed) {
    FUZZ_CHECK(!parsed.error().message.empty());
    return 0;
  }
  constexpr std::array<std::string_view, 3> kStatuses{"Up", "Down", "?"};
  constexpr std::array<std::string_view, 4> kStates{"Normal", "Joining", "Leaving", "Moving"};
  for (const auto& row : parsed->rows) {
    FUZZ_CHECK(!row.datacenter.empty() && !row.address.empty() && !row.rack.empty() && !row.token.empty());
    FUZZ_CHECK(std::find(kStatuses.begin(), kStatuses.end(), row.status) != kStatuses.end());
    FUZZ_CHECK(std::find(kStates.begin(), kStates.end(), row.state) != kStates.end());
  }
  const auto again = cla::parse_nodetool_ring(cla::format_ring(*parsed));
  FUZZ_CHECK(again.ok());
  FUZZ_CHECK(by_dc(again->rows) == by_dc(parsed->rows));
  FUZZ_CHECK(again->notes == parsed->notes);
  FUZZ_CHECK(again->vnodes_warning == parsed->vnodes_warning);
  if (const auto ring = cla::make_token_ring(*parsed)) {
    FUZZ_CHECK(ring->owners.size() == ring->tokens.size());
    for (std::size_t i = 1; i < ring->tokens.size(); ++i)
      FUZZ_CHECK(cla::compare_tokens(ring->tokens[i - 1], ring->tokens[i]) < 0);
    for (auto owner : ring->owners) FUZZ_CHECK(owner < ring->endpoints.size());
  }
  return 0;
}
