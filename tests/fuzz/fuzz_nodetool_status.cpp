// Fuzzes parse_nodetool_status: what it accepts, printed back in the 4.x layout, parses to the same rows and
// note.
#include <algorithm>
#include <cctype>

#include "cassandra/nodetool_output/status_parser.hpp"
#include "tests/fuzz/fuzz_check.hpp"

namespace {

// Each row under a header of its own: a row read under a header without Load has no load to print.
std::string print_status(const cla::ClusterStatus& status) {
  std::string out;
  const std::string* dc = nullptr;
  for (const auto& row : status.rows) {
    if (!dc || *dc != row.datacenter) {
      dc = &row.datacenter;
      out += "Datacenter: " + row.datacenter +
             "\n=======\nStatus=Up/Down\n|/ State=Normal/Leaving/Joining/Moving\n";
    }
    out += row.load.empty() ? "--  Address  Host ID  Rack\n"
                            : "--  Address  Load  Tokens  Owns  Host ID  Rack\n";
    out += std::string{row.status, row.state} + "  " + row.address + "  " +
           (row.load.empty() ? "" : row.load + "  16  ?  ") + row.host_id + "  " + row.rack + "\n";
  }
  if (status.rows.empty()) out += "Datacenter: dc1\n";
  if (status.note) {
    std::string_view note = *status.note;
    for (std::size_t end; (end = note.find('\n')) != std::string_view::npos; note.remove_prefix(end + 1))
      out += "Note: " + std::string(note.substr(0, end)) + "\n";
    out += "Note: " + std::string(note) + "\n";
  }
  return out;
}

// A row without host id whose rack starts with a UUID prints ambiguously: read back, the UUID is the host id.
bool printable(const cla::StatusRow& row) {
  if (!row.host_id.empty() || row.rack.size() < 36) return true;
  for (std::size_t i = 0; i < 36; ++i) {
    const char c = row.rack[i];
    const bool dash = i == 8 || i == 13 || i == 18 || i == 23;
    if (dash ? c != '-' : !std::isxdigit(static_cast<unsigned char>(c))) return true;
  }
  return row.rack.size() > 36 && row.rack[36] != ' ' && row.rack[36] != '\t';
}

bool same_rows(const cla::ClusterStatus& a, const cla::ClusterStatus& b) {
  if (a.rows.size() != b.rows.size() || a.note != b.note) return false;
  for (std::size_t i = 0; i < a.rows.size(); ++i) {
    const auto &x = a.rows[i], &y = b.rows[i];
    if (x.datacenter != y.datacenter || x.status != y.status || x.state != y.state ||
        x.address != y.address || x.load != y.load || x.host_id != y.host_id || x.rack != y.rack)
      return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto parsed = cla::parse_nodetool_status(cla::fuzz::as_text(data, size));
  if (!parsed) {
    FUZZ_CHECK(!parsed.error().message.empty());
    return 0;
  }
  for (const auto& row : parsed->rows) {
    FUZZ_CHECK(!row.datacenter.empty() && !row.address.empty() && !row.rack.empty());
    FUZZ_CHECK(std::string_view("UD?").find(row.status) != std::string_view::npos);
    FUZZ_CHECK(std::string_view("NLJM").find(row.state) != std::string_view::npos);
  }
  if (!std::all_of(parsed->rows.begin(), parsed->rows.end(), printable)) return 0;
  const auto again = cla::parse_nodetool_status(print_status(*parsed));
  FUZZ_CHECK(again.ok());
  FUZZ_CHECK(same_rows(*parsed, *again));
  return 0;
}
