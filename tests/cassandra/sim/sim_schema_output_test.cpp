// The sim's printers against real Cassandra 5.0.9: every captured describecluster, ring and describering,
// parsed and printed again, is byte for byte what nodetool printed.
#include "cassandra/sim/sim_schema_output.hpp"

#include <boost/test/unit_test.hpp>
#include <filesystem>

#include "../cassandra_test_data.hpp"

namespace {

namespace fs = std::filesystem;

// Every capture NAME*.stdout of every shape whose .rc is 0.
std::vector<std::string> captures(const std::string& prefix) {
  std::string dir = CLA_TEST_DATA_DIR;
  dir.append("/cassandra/real-5.0/placement");
  std::vector<std::string> out;
  for (const auto& shape : fs::directory_iterator(dir))
    for (const auto& file : fs::directory_iterator(shape.path())) {
      const std::string name = file.path().filename().string();
      if (!name.starts_with(prefix) || !name.ends_with(".stdout")) continue;
      const std::string base =
          "real-5.0/placement/" + shape.path().filename().string() + "/" + name.substr(0, name.size() - 7);
      if (cla::test::cassandra_data(base + ".rc") == "0\n") out.push_back(base);
    }
  std::sort(out.begin(), out.end());
  return out;
}

template <class Parse, class Print>
void reprints(const std::string& prefix, std::size_t at_least, Parse parse, Print print) {
  const auto names = captures(prefix);
  BOOST_TEST(names.size() >= at_least);
  for (const auto& base : names) {
    const std::string real = cla::test::cassandra_data(base + ".stdout");
    const auto parsed = parse(real);
    BOOST_REQUIRE_MESSAGE(parsed.ok(), base << ": " << (parsed.ok() ? "" : parsed.error().message));
    BOOST_TEST(print(parsed.value()) == real, base);
  }
}

}  // namespace

BOOST_AUTO_TEST_SUITE(sim_schema_output_test)

BOOST_AUTO_TEST_CASE(describecluster_as_cassandra_prints_it) {
  reprints("describecluster", 6, cla::parse_nodetool_describecluster, cla::format_describecluster);
}

BOOST_AUTO_TEST_CASE(ring_as_cassandra_prints_it) {
  reprints("ring", 6, cla::parse_nodetool_ring, cla::format_ring);
}

BOOST_AUTO_TEST_CASE(describering_as_cassandra_prints_it) {
  reprints("describering", 30, cla::parse_nodetool_describering, cla::format_describering);
}

BOOST_AUTO_TEST_CASE(a_ring_without_vnodes_nor_notes_ends_in_two_blanks) {
  cla::RingTable table;
  table.rows.push_back({"dc1", "10.0.0.1", "r1", "Up", "Normal", "?", "100.00%", "5"});
  const std::string out = cla::format_ring(table);
  BOOST_TEST(out.ends_with("\n\n\n  "));
  BOOST_TEST(out.find("Token") != std::string::npos);
  const auto again = cla::parse_nodetool_ring(out);
  BOOST_REQUIRE(again.ok());
  BOOST_TEST(again.value() == table);
}

BOOST_AUTO_TEST_SUITE_END()
