// The paces of an agent's coordinated background reads (SPEC 9, 3.10): how often an agent without a watcher
// role steps, and how often it reads its node's hints for a peer catching up.
#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>
#include <chrono>

#include "agent/daemon/daemon.hpp"

namespace {

using namespace std::chrono_literals;
namespace data = boost::unit_test::data;

struct Pace {
  std::chrono::seconds lease_ttl, catch_up_min;
  std::chrono::milliseconds expected;
};
std::ostream& operator<<(std::ostream& os, const Pace& p) {
  return os << "ttl " << p.lease_ttl.count() << " s, catch_up_min " << p.catch_up_min.count() << " s";
}

const Pace kPaces[] = {
    {15s, 30s, 15s},  // the defaults: once a lease, not every 5 s
    {15s, 10s, 5s},   // a short catch_up_min: a peer's key seen within catch_up_min / 2 (never below ttl / 3)
    {15s, 12s, 6s},   // between the two
    {5s, 5s, 2500ms},      // the integration fleets' lease with a 5 s catch_up_min
    {5s, 0s, 5000ms / 3},  // catch_up_min 0: never more often than ttl / 3
    {60s, 1800s, 60s},     // never less often than the lease
};

}  // namespace

BOOST_AUTO_TEST_SUITE(watch_pace_test)

BOOST_DATA_TEST_CASE(an_agent_without_a_role_steps_once_a_lease_or_sooner_for_catch_up, data::make(kPaces),
                     p) {
  BOOST_TEST(cla::Daemon::idle_watch_interval(p.lease_ttl, p.catch_up_min).count() == p.expected.count());
}

BOOST_AUTO_TEST_SUITE_END()
