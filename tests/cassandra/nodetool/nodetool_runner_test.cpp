// The nodetool runner's pure parts: backoff delays and the classification of failed outcomes.
#include "cassandra/nodetool/nodetool_runner.hpp"

#include <boost/test/unit_test.hpp>

#include "../cassandra_test_data.hpp"

using cla::test::cassandra_data;
using std::chrono::milliseconds;

namespace {

cla::CommandOutcome failed(int exit_code, std::string out, std::string err) {
  cla::CommandOutcome outcome;
  outcome.exit_code = exit_code;
  outcome.out = std::move(out);
  outcome.err = std::move(err);
  return outcome;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(nodetool_runner_test)

BOOST_AUTO_TEST_CASE(backoff_doubles_from_one_second_up_to_ten) {
  const cla::Backoff standard;
  const std::vector<milliseconds> expected{milliseconds(1000), milliseconds(2000),  milliseconds(4000),
                                           milliseconds(8000), milliseconds(10000), milliseconds(10000)};
  for (std::size_t i = 0; i < expected.size(); ++i)
    BOOST_TEST(cla::retry_delay(static_cast<int>(i) + 1, standard).count() == expected[i].count());
  BOOST_TEST(cla::retry_delay(1000, standard).count() == 10000);
  BOOST_TEST(cla::retry_delay(3, cla::Backoff{milliseconds(10), milliseconds(25)}).count() == 25);
}

BOOST_AUTO_TEST_CASE(listings_that_grow_with_the_cluster_get_a_larger_output_limit) {
  for (const char* listing : {"status", "ring", "describecluster", "describering", "describering lifecycle"})
    BOOST_TEST(cla::output_limit_for(listing) == 32u << 20, listing);
  for (const char* other : {"info", "statusgossip", "disablebinary", "drain", "ringx", ""})
    BOOST_TEST(cla::output_limit_for(other) == 64u << 10, other);
  // A 150-node, 16-token ring as nodetool prints it (~130 bytes a token) fits with room.
  BOOST_TEST(cla::output_limit_for("ring") > 150u * 16u * 130u * 50u);
}

BOOST_AUTO_TEST_CASE(connect_failures_of_both_jdks_and_early_startup) {
  BOOST_TEST(
      cla::is_connect_failure(failed(1, "", cassandra_data("raw/nodetool_connect_refused_jdk8_11.stderr"))));
  BOOST_TEST(cla::is_connect_failure(
      failed(1, "", cassandra_data("raw/nodetool_connect_refused_newer_jdk17.stderr"))));
  BOOST_TEST(cla::is_connect_failure(
      failed(1, "",
             "Picked up JAVA_TOOL_OPTIONS: -Xmx1g\nException in thread \"main\" "
             "java.lang.IllegalArgumentException: Server is not initialized yet, cannot run nodetool.\n")));
  BOOST_TEST(!cla::is_connect_failure(
      failed(1, cassandra_data("raw/nodetool_enablebinary_after_drain.stdout"), "")));
  BOOST_TEST(!cla::is_connect_failure(failed(0, "", "")));
  auto timed_out = failed(-1, "", cassandra_data("raw/nodetool_connect_refused_jdk8_11.stderr"));
  timed_out.timed_out = true;
  BOOST_TEST(!cla::is_connect_failure(timed_out));
}

BOOST_AUTO_TEST_CASE(refusals_after_drain) {
  BOOST_TEST(cla::is_refused_after_drain(
      failed(1, cassandra_data("raw/nodetool_enablebinary_after_drain.stdout"), "")));
  BOOST_TEST(cla::is_refused_after_drain(
      failed(1, cassandra_data("raw/nodetool_enablegossip_after_drain.stdout"), "")));
  BOOST_TEST(cla::is_refused_after_drain(failed(1,
                                                "nodetool: Unable to stop gossip because the node is not in "
                                                "the normal state. Try to stop the node instead.\n",
                                                "")));
  BOOST_TEST(cla::is_refused_after_drain(
      failed(1, "nodetool: Unable to start native transport because the node is draining.\n", "")));
  BOOST_TEST(!cla::is_refused_after_drain(
      failed(1, "", cassandra_data("raw/nodetool_connect_refused_jdk8_11.stderr"))));
  BOOST_TEST(!cla::is_refused_after_drain(failed(0, "", "")));
}

BOOST_AUTO_TEST_CASE(an_error_printed_with_exit_0_is_found) {
  BOOST_TEST(cla::error_despite_exit_0(failed(0, "", "")).empty());
  BOOST_TEST(cla::error_despite_exit_0(failed(0, "", "Picked up JAVA_TOOL_OPTIONS: -Xmx1g\n")).empty());
  BOOST_TEST(cla::error_despite_exit_0(failed(1, "", "error: boom\n")).empty(), "a failure already");
  BOOST_TEST(cla::error_despite_exit_0(failed(0, "", "Picked up X\nerror: JMX busy\n-- StackTrace --\n")) ==
             "error: JMX busy");
  BOOST_TEST(cla::error_despite_exit_0(
                 failed(0, cassandra_data("raw/nodetool_enablegossip_after_drain.stdout"), "")) ==
             "nodetool: Unable to start gossip because the node was drained.");
  BOOST_TEST(cla::error_despite_exit_0(failed(0, "", "java.io.IOException: closed\n")) ==
             "java.io.IOException: closed");
}

BOOST_AUTO_TEST_CASE(summary_is_one_line_with_the_reason) {
  BOOST_TEST(
      failed(1, "", cassandra_data("raw/nodetool_connect_refused_newer_jdk17.stderr")).summary() ==
      "exit 1: nodetool: Failed to connect to '127.0.0.1:7199' - ConnectException: 'Connection refused'.");
  BOOST_TEST(failed(1, cassandra_data("raw/nodetool_enablegossip_after_drain.stdout"), "").summary() ==
             "exit 1: nodetool: Unable to start gossip because the node was drained.");
  BOOST_TEST(failed(1, "", "Picked up JAVA_TOOL_OPTIONS: -Xmx1g\nerror: boom\n").summary() ==
             "exit 1: error: boom");
  BOOST_TEST(failed(0, "", "").summary() == "exit 0");
  cla::CommandOutcome slow = failed(-1, "", "");
  slow.timed_out = true;
  slow.term_signal = 9;
  slow.duration = milliseconds(120000);
  BOOST_TEST(slow.summary() == "timed out after 120000 ms, its process group killed");
  cla::CommandOutcome missing;
  missing.spawn_error = "'nodetool' not found in PATH (/usr/bin)";
  BOOST_TEST(!missing.ok());
  BOOST_TEST(missing.summary() == "could not start: 'nodetool' not found in PATH (/usr/bin)");
  cla::CommandOutcome killed = failed(-1, "", "");
  killed.term_signal = 15;
  BOOST_TEST(killed.summary() == "killed by signal 15");
  BOOST_TEST(std::string(400, 'x').size() > failed(1, std::string(1000, 'x'), "").summary().size());
}

BOOST_AUTO_TEST_SUITE_END()
