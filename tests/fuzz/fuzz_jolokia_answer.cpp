// Fuzzes the readers of Jolokia's answers: the first byte picks a read of jolokia_reads.hpp (or a step), the
// rest is its first answer and, after a NUL byte, its second. Failures are named and never claim a refusal
// without Jolokia's status; what reads come out as nodetool's parsers would give it: status and ring cells in
// their sets, ring rows in ring order within each DC, describecluster's counts and DCs consistent.
#include <algorithm>
#include <array>

#include "cassandra/gate/token_ring.hpp"
#include "cassandra/jolokia/jolokia_reads.hpp"
#include "tests/fuzz/fuzz_check.hpp"

namespace {

using namespace cla;

// A refusal carries Jolokia's status (an HTTP-like code other than 200), a bad answer none.
void check_error(const JolokiaError& e) {
  FUZZ_CHECK(!e.message.empty());
  if (e.kind == JolokiaError::Kind::refused)
    FUZZ_CHECK(e.status >= 100 && e.status <= 999 && e.status != 200);
  else
    FUZZ_CHECK(e.status == 0 && e.error_type.empty());
}

// The read run over the two answers, as JolokiaClient runs it; the result, or nothing after a checked error.
template <class Read>
std::optional<typename Read::Value> run(std::string_view first_text, std::string_view second_text) {
  const auto first_calls = Read::first();
  const auto first = parse_jolokia_answer(first_text, first_calls);
  if (!first) {
    check_error(first.error());
    return std::nullopt;
  }
  FUZZ_CHECK(first->size() == first_calls.size());
  for (const auto& value : *first)
    if (!value) check_error(value.error());
  const auto second_calls = Read::second(*first);
  if (!second_calls) {
    check_error(second_calls.error());
    return std::nullopt;
  }
  std::vector<JolokiaValue> second;
  if (!second_calls->empty()) {
    auto answers = parse_jolokia_answer(second_text, *second_calls);
    if (!answers) {
      check_error(answers.error());
      return std::nullopt;
    }
    second = std::move(answers.value());
  }
  auto value = Read::finish(*first, second);
  if (!value) {
    check_error(value.error());
    return std::nullopt;
  }
  return std::move(value.value());
}

void check_status(const ClusterStatus& status) {
  for (const auto& row : status.rows) {
    FUZZ_CHECK(row.status == 'U' || row.status == 'D' || row.status == '?');
    FUZZ_CHECK(std::string_view("NLJM").find(row.state) != std::string_view::npos);
    FUZZ_CHECK(!row.load.empty());
  }
  FUZZ_CHECK(std::is_sorted(status.rows.begin(), status.rows.end(),
                            [](const auto& a, const auto& b) { return a.datacenter < b.datacenter; }));
  FUZZ_CHECK(!status.note);
}

void check_ring(const RingTable& ring) {
  constexpr std::array<std::string_view, 3> kStatuses{"Up", "Down", "?"};
  constexpr std::array<std::string_view, 4> kStates{"Normal", "Joining", "Leaving", "Moving"};
  for (std::size_t i = 0; i < ring.rows.size(); ++i) {
    const RingRow& row = ring.rows[i];
    FUZZ_CHECK(std::find(kStatuses.begin(), kStatuses.end(), row.status) != kStatuses.end());
    FUZZ_CHECK(std::find(kStates.begin(), kStates.end(), row.state) != kStates.end());
    FUZZ_CHECK(row.owns == "?");
    if (i > 0 && ring.rows[i - 1].datacenter == row.datacenter)
      FUZZ_CHECK(compare_tokens(ring.rows[i - 1].token, row.token) <= 0);
    if (i > 0) FUZZ_CHECK(ring.rows[i - 1].datacenter <= row.datacenter);
  }
  FUZZ_CHECK(ring.notes.empty());
}

void check_description(const ClusterDescription& d) {
  FUZZ_CHECK(d.counts && d.keyspaces);
  int down = 0;
  for (std::size_t i = 0; i < d.datacenters.size(); ++i) {
    FUZZ_CHECK(d.datacenters[i].down <= d.datacenters[i].nodes);
    if (i > 0) FUZZ_CHECK(d.datacenters[i - 1].name < d.datacenters[i].name);
    down += d.datacenters[i].down;
  }
  FUZZ_CHECK(down <= d.counts->unreachable);
  FUZZ_CHECK(d.notes.empty());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const std::string_view text = fuzz::as_text(data + 1, size - 1);
  const auto nul = text.find('\0');
  const std::string_view first = text.substr(0, nul);
  const std::string_view second = nul == std::string_view::npos ? std::string_view() : text.substr(nul + 1);
  switch (data[0] % 10) {
    case 0:
      if (auto status = run<StatusRead>(first, second)) check_status(*status);
      break;
    case 1:
      if (auto ring = run<RingRead>(first, second)) check_ring(*ring);
      break;
    case 2:
      if (auto description = run<DescribeClusterRead>(first, second)) check_description(*description);
      break;
    case 3:
      run<InfoRead>(first, second);
      break;
    case 4:
      run<RunningRead>(first, second);
      break;
    case 6:
      if (auto stages = run<StagesRead>(first, second))
        FUZZ_CHECK(stages->read >= 0 && stages->mutation >= 0 && stages->counter_mutation >= 0);
      break;
    case 7:
      run<JvmArgumentsRead>(first, second);
      break;
    case 8:
      if (auto hints = run<PendingHintsRead>(first, second))
        for (const auto& h : *hints) FUZZ_CHECK(!h.host_id.empty() && h.undelivered >= 0);
      break;
    case 9:
      if (auto window = run<MaxHintWindowRead>(first, second)) FUZZ_CHECK(window->count() >= 0);
      break;
    case 5: {
      const JolokiaStep step = static_cast<JolokiaStep>(size % 5);
      const JolokiaCall calls[] = {step_call(step)};
      const auto answers = parse_jolokia_answer(first, calls);
      if (!answers) {
        check_error(answers.error());
        break;
      }
      if (auto done = read_step_answer(step, *answers); !done) check_error(done.error());
      break;
    }
  }
  return 0;
}
