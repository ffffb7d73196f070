// process_metrics: /proc/<pid>/stat, /proc/stat and /proc/<pid>/limits as the kernel writes them, odd
// command names included, and the reader on this very process.
#include "agent/http/process_metrics.hpp"

#include <boost/test/unit_test.hpp>

namespace {

// A real line (Linux 6.x), the command name holding a space and a parenthesis.
constexpr std::string_view kStat =
    "12345 (cla agent) x) S 1 12345 12345 0 -1 4194560 1234 0 0 0 250 130 0 0 20 0 3 0 987654 "
    "150994944 2048 18446744073709551615 94238 94239 14073 0 0 0 0 4096 16896 0 0 0 17 1 0 0 0 0 0\n";

constexpr std::string_view kLimits =
    "Limit                     Soft Limit           Hard Limit           Units     \n"
    "Max cpu time              unlimited            unlimited            seconds   \n"
    "Max open files            1024                 524288               files     \n"
    "Max locked memory         8388608              8388608              bytes     \n";

}  // namespace

BOOST_AUTO_TEST_SUITE(process_metrics_test)

BOOST_AUTO_TEST_CASE(stat_fields_are_counted_from_the_last_parenthesis) {
  const auto s = cla::parse_proc_stat(kStat);
  BOOST_REQUIRE(s);
  BOOST_TEST(s->utime_ticks == 250u);
  BOOST_TEST(s->stime_ticks == 130u);
  BOOST_TEST(s->starttime_ticks == 987654u);
  BOOST_TEST(s->vsize_bytes == 150994944u);
  BOOST_TEST(s->rss_pages == 2048);
}

BOOST_AUTO_TEST_CASE(malformed_stat_is_refused) {
  BOOST_TEST(!cla::parse_proc_stat(""));
  BOOST_TEST(!cla::parse_proc_stat("12345 (agent) S 1 2 3"));
  BOOST_TEST(!cla::parse_proc_stat(
      "12345 agent S 1 12345 12345 0 -1 4194560 1234 0 0 0 250 130 0 0 20 0 3 0 9 1 2"));
  std::string bad(kStat);
  bad.replace(bad.find(" 250 "), 5, " x50 ");
  BOOST_TEST(!cla::parse_proc_stat(bad));
}

BOOST_AUTO_TEST_CASE(boot_time_and_open_files_limit) {
  BOOST_TEST(cla::parse_boot_time("cpu  1 2 3\nintr 5\nbtime 1764180000\nprocesses 9\n").value() ==
             1764180000u);
  BOOST_TEST(!cla::parse_boot_time("cpu 1 2 3\n"));
  BOOST_TEST(cla::parse_max_open_files(kLimits).value() == 1024u);
  BOOST_TEST(!cla::parse_max_open_files("Max open files            unlimited            unlimited  files\n"));
  BOOST_TEST(!cla::parse_max_open_files("Max cpu time unlimited unlimited seconds\n"));
}

BOOST_AUTO_TEST_CASE(reads_this_process) {
  const auto s = cla::read_process_stats();
  BOOST_TEST(s.resident_memory_bytes > 0.0);
  BOOST_TEST(s.virtual_memory_bytes >= s.resident_memory_bytes);
  BOOST_TEST(s.start_time_seconds > 1.6e9);
  BOOST_REQUIRE(s.open_fds);
  BOOST_TEST(*s.open_fds >= 3.0);
  BOOST_REQUIRE(s.max_fds);
  BOOST_TEST(*s.max_fds >= *s.open_fds);
}

BOOST_AUTO_TEST_SUITE_END()
