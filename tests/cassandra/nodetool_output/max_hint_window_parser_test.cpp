// parse_getmaxhintwindow over the real 5.0 capture and broken outputs: each refusal names what was wrong.
#include "cassandra/nodetool_output/max_hint_window_parser.hpp"

#include <boost/test/unit_test.hpp>
#include <chrono>
#include <string>
#include <vector>

#include "../cassandra_test_data.hpp"
#include "parser_checks.hpp"

using cla::test::cassandra_data;
using std::chrono::milliseconds;

namespace {

milliseconds parse_ok(const std::string& text) {
  return cla::test::parsed_value(&cla::parse_getmaxhintwindow, text);
}

std::string why_refused(const std::string& text) {
  return cla::test::refusal(&cla::parse_getmaxhintwindow, text);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(max_hint_window_parser_test)

// Cassandra's default max_hint_window, 3 h.
BOOST_AUTO_TEST_CASE(real_capture) {
  BOOST_TEST(parse_ok(cassandra_data("real-5.0/hints/getmaxhintwindow.stdout")).count() == 10800000);
}

BOOST_AUTO_TEST_CASE(accepted_forms) {
  const std::vector<std::pair<std::string, long long>> cases = {
      {"Current max hint window: 0 ms\n", 0},
      {"Current max hint window: 600000 ms", 600000},  // no final newline
      {"\nCurrent max hint window: 2147483647 ms\r\n\n", 2147483647},
  };
  for (const auto& [text, ms] : cases) BOOST_TEST(parse_ok(text).count() == ms, text);
}

BOOST_AUTO_TEST_CASE(broken_outputs_are_refused_naming_the_problem) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"", "printed nothing"},
      {"\n \n", "printed nothing"},
      {"nodetool: Failed to connect to '127.0.0.1:7199' - ConnectException: 'Connection refused'.\n",
       "not \"Current max hint window: N ms\": \"nodetool: Failed to connect"},
      {"Current max hint window: 10800000\n", "not \"Current max hint window: N ms\""},
      {"Max hint window: 10800000 ms\n", "not \"Current max hint window: N ms\""},
      {"Current max hint window: ms\n", "not \"Current max hint window: N ms\""},
      {"Current max hint window:  ms\n", "not a number of milliseconds in \"Current max hint window:  ms\""},
      {"Current max hint window: 3h ms\n", "not a number of milliseconds"},
      {"Current max hint window: 1e3 ms\n", "not a number of milliseconds"},
      {"Current max hint window: -1 ms\n", "out of range in \"Current max hint window: -1 ms\""},
      {"Current max hint window: 2147483648 ms\n", "out of range"},
      {"Current max hint window: 99999999999999999999 ms\n", "out of range"},
      {"Current max hint window: 10800000 ms\nCurrent max hint window: 1 ms\n",
       "a second line \"Current max hint window: 1 ms\""},
  };
  for (const auto& [text, expected] : cases)
    BOOST_TEST(why_refused(text).find(expected) != std::string::npos, text << " -> " << why_refused(text));
}

BOOST_AUTO_TEST_SUITE_END()
