// UndeliveredHints (SPEC 3.10): hints the counters call undelivered count while new or moving; once they
// stand still for kUndeliveredSettle with no file listed for their host they are taken for lost; a listed
// file always counts.
#include "state/undelivered_hints.hpp"

#include <boost/test/unit_test.hpp>

namespace {

using namespace cla;
using namespace std::chrono_literals;

const UndeliveredHints::SteadyTime t0{std::chrono::hours(1)};

PendingHints open_file(const std::string& host, std::int64_t undelivered) {
  return {.host_id = host, .undelivered = undelivered};
}
PendingHints listed(const std::string& host, std::int64_t files, std::int64_t undelivered) {
  return {.host_id = host, .total_files = files, .oldest_ms = 1, .newest_ms = 2, .undelivered = undelivered};
}

}  // namespace

BOOST_AUTO_TEST_SUITE(undelivered_hints_test)

BOOST_AUTO_TEST_CASE(undelivered_hints_count_until_they_stand_still_for_the_settle_time) {
  UndeliveredHints filter;
  BOOST_TEST(filter.filter({open_file("a", 500)}, t0).size() == 1u);
  BOOST_TEST(filter.filter({open_file("a", 500)}, t0 + kUndeliveredSettle - 1ms).size() == 1u);
  BOOST_TEST(filter.filter({open_file("a", 500)}, t0 + kUndeliveredSettle).empty(), "lost: never delivered");
  BOOST_TEST(filter.filter({open_file("a", 500)}, t0 + 10 * kUndeliveredSettle).empty());
}

BOOST_AUTO_TEST_CASE(a_moving_count_starts_its_settle_time_again) {
  UndeliveredHints filter;
  filter.filter({open_file("a", 500)}, t0);
  const auto moved = filter.filter({open_file("a", 700)}, t0 + kUndeliveredSettle);
  BOOST_TEST_REQUIRE(moved.size() == 1u, "more hints written: still pending");
  BOOST_TEST(moved[0].undelivered == 700);
  BOOST_TEST(filter.filter({open_file("a", 700)}, t0 + 2 * kUndeliveredSettle - 1ms).size() == 1u);
  BOOST_TEST(filter.filter({open_file("a", 700)}, t0 + 2 * kUndeliveredSettle).empty());
}

BOOST_AUTO_TEST_CASE(a_listed_file_counts_whatever_the_counters_say) {
  UndeliveredHints filter;
  filter.filter({listed("a", 1, 500)}, t0);
  const auto later = filter.filter({listed("a", 1, 500)}, t0 + 10 * kUndeliveredSettle);
  BOOST_TEST_REQUIRE(later.size() == 1u);
  BOOST_TEST(later[0].total_files == 1);
  BOOST_TEST(filter.filter({listed("b", 2, 0)}, t0).size() == 1u, "a file without counters (nodetool)");
}

BOOST_AUTO_TEST_CASE(hosts_are_judged_apart_and_a_host_gone_is_forgotten) {
  UndeliveredHints filter;
  filter.filter({open_file("a", 5), open_file("b", 9)}, t0);
  const auto both = filter.filter({open_file("a", 5), open_file("b", 10)}, t0 + kUndeliveredSettle);
  BOOST_TEST_REQUIRE(both.size() == 1u, "a stood still, b moved");
  BOOST_TEST(both[0].host_id == "b");
  filter.filter({}, t0 + kUndeliveredSettle + 1s);  // delivered: a is forgotten
  BOOST_TEST(filter.filter({open_file("a", 5)}, t0 + 2 * kUndeliveredSettle).size() == 1u,
             "the same count again after it was delivered is new");
}

BOOST_AUTO_TEST_SUITE_END()
