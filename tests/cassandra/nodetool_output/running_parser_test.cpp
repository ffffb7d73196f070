// parse_running: the whole trimmed output must be "running" or "not running".
#include "cassandra/nodetool_output/running_parser.hpp"

#include <boost/test/unit_test.hpp>

#include "../cassandra_test_data.hpp"

using cla::test::cassandra_data;

BOOST_AUTO_TEST_SUITE(running_parser_test)

BOOST_AUTO_TEST_CASE(reference_outputs) {
  for (const char* file :
       {"raw/nodetool_statusbinary_running.out", "raw/nodetool_statusgossip_running.out"}) {
    const auto parsed = cla::parse_running(cassandra_data(file));
    BOOST_REQUIRE(parsed.ok());
    BOOST_TEST(parsed.value() == true, file);
  }
  for (const char* file :
       {"raw/nodetool_statusbinary_not_running.out", "raw/nodetool_statusgossip_not_running.out"}) {
    const auto parsed = cla::parse_running(cassandra_data(file));
    BOOST_REQUIRE(parsed.ok());
    BOOST_TEST(parsed.value() == false, file);
  }
}

BOOST_AUTO_TEST_CASE(surrounding_blanks_and_crlf_are_fine) {
  BOOST_TEST(cla::parse_running("  running\r\n").value() == true);
  BOOST_TEST(cla::parse_running("\nnot running\r\n").value() == false);
}

BOOST_AUTO_TEST_CASE(anything_else_is_an_error) {
  for (const char* text :
       {"", "\n", "runnin", "running!", "not  running", "Running", "not running\nrunning",
        "nodetool: Failed to connect to '127.0.0.1:7199' - ConnectException: 'Connection refused'."}) {
    const auto parsed = cla::parse_running(text);
    BOOST_TEST(!parsed.ok(), "accepted: " << text);
  }
  const auto long_garbage = cla::parse_running(std::string(1000, 'x'));
  BOOST_REQUIRE(!long_garbage.ok());
  BOOST_TEST(long_garbage.error().message.size() < 300u);
}

BOOST_AUTO_TEST_SUITE_END()
