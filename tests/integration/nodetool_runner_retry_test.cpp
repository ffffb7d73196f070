// NodetoolRunner against real children: prefix + subcommand, command timeout, retries until ok or deadline.
#include <boost/test/unit_test.hpp>

#include "cassandra/nodetool/nodetool_runner.hpp"
#include "cassandra/sim/sim_cluster_json.hpp"
#include "cassandra_support.hpp"
#include "wait_margin.hpp"

using namespace std::chrono_literals;
using cla::test::run_blocking;
using Clock = std::chrono::steady_clock;
using cla::test::kMargin;

namespace {

// Fails (connect refused on stderr, exit 1) until it has been called `succeed_at` times; counts in a file.
std::vector<std::string> flaky_prefix(const std::string& counter_file, int succeed_at) {
  const std::string script =
      "n=$(cat \"$0\" 2>/dev/null || echo 0); n=$((n+1)); echo $n > \"$0\"; "
      "if [ $n -lt " +
      std::to_string(succeed_at) +
      " ]; then "
      "echo \"nodetool: Failed to connect to '127.0.0.1:7199' - ConnectException: 'Connection refused'.\" "
      ">&2; "
      "exit 1; fi; echo \"$1 done\"";
  return {"/bin/sh", "-c", script, counter_file};
}

const cla::Backoff kFast{20ms, 80ms};

}  // namespace

BOOST_AUTO_TEST_SUITE(nodetool_runner_retry_test)

BOOST_AUTO_TEST_CASE(run_appends_the_subcommand_to_the_prefix) {
  cla::NodetoolRunner runner({"printf", "[%s]"}, 5s);
  const auto outcome = run_blocking(runner.run("disablebinary"));
  BOOST_TEST(outcome.ok());
  BOOST_TEST(outcome.out == "[disablebinary]");
  BOOST_TEST((outcome.argv == std::vector<std::string>{"printf", "[%s]", "disablebinary"}));
}

BOOST_AUTO_TEST_CASE(each_attempt_is_bounded_by_the_command_timeout) {
  constexpr auto timeout = 1s;
  constexpr auto sleeps = 30s;
  static_assert(timeout + kMargin < sleeps, "a timeout that never fires must fail the bound below");
  cla::NodetoolRunner runner({"sleep"}, timeout);
  const auto outcome = run_blocking(runner.run(std::to_string(sleeps.count())));
  BOOST_TEST(outcome.timed_out);
  BOOST_TEST((outcome.duration >= timeout));
  BOOST_TEST((outcome.duration < timeout + kMargin));  // killed at the timeout, then reaped
}

BOOST_AUTO_TEST_CASE(fails_twice_then_succeeds) {
  cla::test::TempDir dir;
  cla::NodetoolRunner runner(flaky_prefix(dir.file("count"), 3), 5s, kFast);
  int attempts = 0;
  const auto started = Clock::now();
  const auto outcome = run_blocking(runner.run_until("enablegossip", Clock::now() + 10s, &attempts));
  BOOST_TEST(outcome.ok());
  BOOST_TEST(outcome.out == "enablegossip done\n");
  BOOST_TEST(attempts == 3);
  BOOST_TEST((Clock::now() - started >= cla::retry_delay(1, kFast) + cla::retry_delay(2, kFast)));
}

BOOST_AUTO_TEST_CASE(gives_up_when_the_next_attempt_could_not_start_before_the_deadline) {
  constexpr auto delay = 50ms;
  constexpr auto window = 8 * delay;
  cla::test::TempDir dir;
  cla::NodetoolRunner runner(flaky_prefix(dir.file("count"), 1000), 5s, cla::Backoff{delay, delay});
  int attempts = 0;
  const auto started = Clock::now();
  const auto outcome = run_blocking(runner.run_until("disablebinary", started + window, &attempts));
  const auto elapsed = Clock::now() - started;
  BOOST_TEST(!outcome.ok());
  BOOST_TEST(cla::is_connect_failure(outcome));
  // Not before the next attempt could no longer start in time, and the k-th attempt starts (k-1) delays in
  // at the earliest, before the deadline.
  BOOST_TEST((elapsed + delay >= window));
  BOOST_TEST(attempts <= window / delay);
  BOOST_TEST((elapsed < window + kMargin));  // the last attempt, started in time, is one quick /bin/sh
  BOOST_TEST(std::stoi(cla::test::read_text(dir.file("count"))) == attempts);
}

BOOST_AUTO_TEST_CASE(one_attempt_even_past_the_deadline_and_none_more_with_the_default_backoff) {
  cla::test::TempDir dir;
  int attempts = 0;
  cla::NodetoolRunner late(flaky_prefix(dir.file("a"), 1000), 5s, kFast);
  BOOST_TEST(!run_blocking(late.run_until("drain", Clock::now() - 1s, &attempts)).ok());
  BOOST_TEST(attempts == 1);
  // The standard backoff waits 1 s first: with half a second left no second attempt is started.
  cla::NodetoolRunner standard(flaky_prefix(dir.file("b"), 1000), 5s);
  const auto started = Clock::now();
  BOOST_TEST(!run_blocking(standard.run_until("drain", started + 500ms, &attempts)).ok());
  BOOST_TEST(attempts == 1);
  BOOST_TEST((Clock::now() - started < cla::Backoff{}.initial));  // gave up without sleeping the backoff
}

BOOST_AUTO_TEST_CASE(retries_a_nodetool_sim_fault_with_times) {
  cla::test::TempDir dir;
  cla::SimInitOptions options;
  options.call_log = dir.file("calls.jsonl");
  auto cluster = cla::make_sim_cluster(options, 1700000000);
  find_node(cluster, "127.0.1.1")->node->faults["disablebinary"] = cla::SimFault{
      1, "", "nodetool: Failed to connect to '127.0.1.1:7199' - ConnectException: 'Connection refused'.\n",
      0, 2,  std::nullopt};
  const std::string file = dir.file("cluster.json");
  cla::test::write_text(file, cla::serialize_sim_cluster(cluster));

  cla::NodetoolRunner runner(cla::test::sim_prefix(file, "127.0.1.1"), 10s, kFast);
  int attempts = 0;
  const auto outcome = run_blocking(runner.run_until("disablebinary", Clock::now() + 10s, &attempts));
  BOOST_TEST(outcome.ok());
  BOOST_TEST(attempts == 3);
  BOOST_TEST(cla::test::sim(file, "127.0.1.1", "statusbinary").out == "not running\n");
  const std::string log = cla::test::read_text(dir.file("calls.jsonl"));
  BOOST_TEST(log.find("\"subcommand\":\"disablebinary\",\"exit_code\":1") != std::string::npos);
  BOOST_TEST(log.find("\"subcommand\":\"disablebinary\",\"exit_code\":0") != std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()
