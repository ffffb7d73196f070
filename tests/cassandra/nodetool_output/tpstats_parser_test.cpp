// parse_tpstats over real 5.0 captures (a fresh node without MutationStage, a serving one, one after
// disablegossip) and broken outputs: each refusal names what was wrong.
#include "cassandra/nodetool_output/tpstats_parser.hpp"

#include <boost/test/unit_test.hpp>

#include "../cassandra_test_data.hpp"
#include "parser_checks.hpp"

using cla::test::cassandra_data;

namespace {

cla::StageCounts parse_ok(const std::string& text) {
  return cla::test::parsed_value(&cla::parse_tpstats, text);
}

const std::string kHeader =
    "Pool Name                      Active Pending Completed Blocked All time blocked\n";

// What parse_tpstats says when it refuses `text`.
std::string why_refused(const std::string& text) {
  return cla::test::refusal(&cla::parse_tpstats, text);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(tpstats_parser_test)

BOOST_AUTO_TEST_CASE(real_captures) {
  BOOST_TEST((parse_ok(cassandra_data("real-5.0/tpstats_fresh_node.stdout")) == cla::StageCounts{1, 0, 0}));
  BOOST_TEST((parse_ok(cassandra_data("real-5.0/tpstats_serving.stdout")) == cla::StageCounts{301, 300, 0}));
  BOOST_TEST((parse_ok(cassandra_data("real-5.0/tpstats_after_disablegossip.stdout")) ==
              cla::StageCounts{301, 300, 0}));
}

// The dropped messages' table below the pools has rows of other widths: the pool table ends at its blank
// line.
BOOST_AUTO_TEST_CASE(only_the_pool_table_is_read) {
  const std::string text = kHeader + "ReadStage                      0      0       7         0       0\n\n" +
                           "Message type  Dropped 50% 95% 99% Max\nREAD_RSP 0 0.0 0.0 0.0 0.0\n";
  BOOST_TEST((parse_ok(text) == cla::StageCounts{7, 0, 0}));
}

BOOST_AUTO_TEST_CASE(columns_are_found_by_their_header) {
  const std::string moved =
      "Pool Name Completed Active Pending Blocked All time blocked\n"
      "MutationStage 42 1 0 0 0\nCounterMutationStage 3 0 0 0 0\n";
  BOOST_TEST((parse_ok(moved) == cla::StageCounts{0, 42, 3}));
}

BOOST_AUTO_TEST_CASE(broken_outputs_are_refused_naming_the_problem) {
  BOOST_TEST(why_refused("").find("no thread pool table") != std::string::npos);
  BOOST_TEST(why_refused("nodetool: Failed to connect to '127.0.0.2:7199'\n").find("Pool Name") !=
             std::string::npos);
  BOOST_TEST(why_refused("Pool Name Active Pending Blocked\nReadStage 0 0 0\n").find("no Completed column") !=
             std::string::npos);
  BOOST_TEST(why_refused(kHeader + "ReadStage 0 0 7 0\n").find("a pool row of 5 fields, not 6") !=
             std::string::npos);
  BOOST_TEST(why_refused(kHeader + "ReadStage 0 0 seven 0 0\n").find("not a count") != std::string::npos);
  BOOST_TEST(why_refused(kHeader + "ReadStage 0 0 99999999999999999999 0 0\n").find("out of range") !=
             std::string::npos);
  BOOST_TEST(why_refused(kHeader + "ReadStage 0 0 -1 0 0\n").find("out of range") != std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()
