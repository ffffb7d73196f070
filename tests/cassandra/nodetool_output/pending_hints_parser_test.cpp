// parse_listpendinghints over the real 5.0 captures (no hints, hints for a node that is down, hints being
// dispatched to it, after) and over tables laid out as nodetool's TableBuilder does, and broken outputs: each
// refusal quotes what was wrong.
#include "cassandra/nodetool_output/pending_hints_parser.hpp"

#include <algorithm>
#include <array>
#include <boost/test/unit_test.hpp>
#include <string>
#include <vector>

#include "../cassandra_test_data.hpp"
#include "parser_checks.hpp"

using cla::test::cassandra_data;

namespace {

cla::PendingHintsList parse_ok(const std::string& text) {
  return cla::test::parsed_value(&cla::parse_listpendinghints, text);
}

std::string why_refused(const std::string& text) {
  return cla::test::refusal(&cla::parse_listpendinghints, text);
}

using Row = std::array<std::string, 8>;

// A table as Cassandra 5.0's TableBuilder prints it: every cell padded to its column's widest, the last one
// too, one space between columns.
std::string table(const std::vector<Row>& rows) {
  std::vector<Row> all{{"Host ID", "Address", "Rack", "DC", "Status", "Total files", "Newest", "Oldest"}};
  all.insert(all.end(), rows.begin(), rows.end());
  std::array<std::size_t, 8> width{};
  for (const auto& row : all)
    for (std::size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
  std::string text;
  for (const auto& row : all) {
    for (std::size_t i = 0; i < row.size(); ++i) {
      if (i > 0) text += ' ';
      text += row[i] + std::string(width[i] - row[i].size(), ' ');
    }
    text += '\n';
  }
  return text;
}

const std::string kHost1 = "b1de9310-eaa0-42c8-88fa-5f35286fc13a";
const std::string kHost2 = "0f6b1c2d-3e4f-4a5b-8c6d-7e8f9a0b1c2d";

Row row(const std::string& host, const std::string& files, const std::string& newest,
        const std::string& oldest) {
  return {host, "10.0.0.2:7000", "rack2", "dc1", "UP", files, newest, oldest};
}

}  // namespace

BOOST_AUTO_TEST_SUITE(pending_hints_parser_test)

// tests/data/cassandra/real-5.0/README.md, hints/: node 1's hints for node 3 (host id and file time there).
BOOST_AUTO_TEST_CASE(real_captures) {
  for (const char* name : {"none", "target_down", "after_dispatch"})
    BOOST_TEST(
        parse_ok(cassandra_data(std::string("real-5.0/hints/listpendinghints_") + name + ".stdout")).empty(),
        name);
  const auto dispatching = parse_ok(cassandra_data("real-5.0/hints/listpendinghints_dispatching.stdout"));
  const cla::PendingHintsList expected{{.host_id = "c0fe3b1a-ae60-406f-b317-cecb6b2e229b",
                                        .total_files = 1,
                                        .oldest_ms = 1795986810900,
                                        .newest_ms = 1795986810900}};
  BOOST_TEST((dispatching == expected));
}

// Times are UTC "yyyy-MM-dd HH:mm:ss,SSS" from epoch milliseconds, turned back exactly.
BOOST_AUTO_TEST_CASE(times_are_epoch_milliseconds_in_utc) {
  const std::vector<std::pair<std::string, std::int64_t>> cases = {
      {"1970-01-01 00:00:00,000", 0},
      {"1970-01-01 00:00:00,001", 1},
      {"1969-12-31 23:59:59,999", -1},
      {"2000-02-29 23:59:59,999", 951868799999},
      {"2026-11-29 07:27:48,240", 1795937268240},
      {"9999-12-31 23:59:59,999", 253402300799999},
  };
  for (const auto& [time, ms] : cases) {
    const auto parsed = parse_ok(table({row(kHost1, "1", time, time)}));
    BOOST_TEST_REQUIRE(parsed.size() == 1u);
    BOOST_TEST(parsed[0].newest_ms == ms, time);
    BOOST_TEST(parsed[0].oldest_ms == ms, time);
  }
}

// Several hosts in Cassandra's order; cells found by the header's columns, so a blank address (a host id
// nodetool could not place), "Unknown" and a rack with a space do not shift the others.
BOOST_AUTO_TEST_CASE(rows_are_read_by_the_headers_columns) {
  const std::string text = table({
      row(kHost1, "12", "2026-11-29 07:27:48,240", "2026-11-29 06:00:00,000"),
      {kHost2, "", "Unknown", "Unknown", "Unknown", "3", "2026-11-29 07:00:00,123",
       "2026-11-29 07:00:00,000"},
      {kHost2, "[::1]:7000", "rack one", "dc 2", "DOWN", "0", "1970-01-01 00:00:00,000",
       "1970-01-01 00:00:00,000"},
  });
  const cla::PendingHintsList expected{
      {.host_id = kHost1, .total_files = 12, .oldest_ms = 1795932000000, .newest_ms = 1795937268240},
      {.host_id = kHost2, .total_files = 3, .oldest_ms = 1795935600000, .newest_ms = 1795935600123},
      {.host_id = kHost2, .total_files = 0, .oldest_ms = 0, .newest_ms = 0},
  };
  BOOST_TEST((parse_ok(text) == expected));
  BOOST_TEST((parse_ok("\n" + text + "\n\n") == expected));  // blank lines around
}

BOOST_AUTO_TEST_CASE(broken_outputs_are_refused_quoting_the_line) {
  const std::string ok_time = "2026-11-29 07:27:48,240";
  const std::string one_row = table({row(kHost1, "1", ok_time, ok_time)});
  const std::string header = one_row.substr(0, one_row.find('\n') + 1);
  const std::string good_row = one_row.substr(header.size());
  std::string misaligned = good_row;
  misaligned.insert(0, " ");
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"", "printed nothing"},
      {"\n\n", "printed nothing"},
      {"nodetool: Failed to connect to '127.0.0.1:7199' - ConnectException: 'Connection refused'.\n",
       "nor the header \"Host ID Address Rack DC Status Total files Newest Oldest\": \"nodetool: Failed to "
       "connect"},
      {"This node does not have any pending hints\nbut it does\n",
       "a line after \"This node does not have any pending hints\": \"but it does\""},
      {"This node has no pending hints\n", "nor the header"},
      // 4.1's header without Status, a column renamed, one too many
      {"Host ID Address Rack DC Total files Newest Oldest\n", "nor the header"},
      {"Host ID Address Rack DC Status Files Newest Oldest\n", "nor the header"},
      {"Host ID Address Rack DC Status Total files Newest Oldest Size\n", "nor the header"},
      {"Host IDAddress Rack DC Status Total files Newest Oldest\n", "nor the header"},
      {header, "a header and no row"},
      {header + misaligned, "a row not aligned to the header's columns in \" " + kHost1},
      {header + kHost1 + " 10.0.0.2:7000\n", "a row not aligned"},
      {table({row("b1de9310-eaa0-42c8-88fa-5f35286fc13", "1", ok_time, ok_time)}), "not a host id in"},
      {table({row("b1de9310xeaa0-42c8-88fa-5f35286fc13a", "1", ok_time, ok_time)}), "not a host id"},
      {table({row("b1de9310-eaa0-42c8-88fa-5f35286fc13g", "1", ok_time, ok_time)}), "not a host id"},
      {table({row(kHost1, "one", ok_time, ok_time)}), "not a count of files in \"" + kHost1},
      {table({row(kHost1, "-1", ok_time, ok_time)}), "not a count of files"},
      {table({row(kHost1, "", ok_time, ok_time)}), "not a count of files"},
      {table({row(kHost1, "99999999999999999999", ok_time, ok_time)}), "not a count of files"},
      {table({row(kHost1, "1", "2026-11-29 07:27:48.240", ok_time)}), "not a time"},
      {table({row(kHost1, "1", ok_time, "2026-11-29T07:27:48,240")}), "not a time"},
      {table({row(kHost1, "1", "2026-02-30 07:27:48,240", ok_time)}), "not a time"},
      {table({row(kHost1, "1", "2026-13-01 07:27:48,240", ok_time)}), "not a time"},
      {table({row(kHost1, "1", "2026-11-29 24:00:00,000", ok_time)}), "not a time"},
      {table({row(kHost1, "1", "2026-11-29 23:60:00,000", ok_time)}), "not a time"},
      {table({row(kHost1, "1", "2026-11-29 23:00:60,000", ok_time)}), "not a time"},
      {table({row(kHost1, "1", "+10000-01-01 00:00:00,000", ok_time)}), "not a time"},
      {table({row(kHost1, "1", "2026-11-29 07:27:48,24", ok_time)}), "not a time"},
      {table({row(kHost1, "1", ok_time, "")}), "a row not aligned"},  // ends before the Oldest column
      {header + good_row.substr(0, good_row.size() - 2) + "\n", "not a time"},
  };
  for (const auto& [text, expected] : cases)
    BOOST_TEST(why_refused(text).find(expected) != std::string::npos, text << " -> " << why_refused(text));
}

BOOST_AUTO_TEST_SUITE_END()
