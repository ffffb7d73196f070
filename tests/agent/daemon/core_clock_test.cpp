// CoreClock with hand-driven clocks: monotonic for the core, NotBefore converted by the offset, which moves
// only on a step of the wall clock.
#include "agent/daemon/core_clock.hpp"

#include <boost/test/unit_test.hpp>

using namespace cla;
using namespace std::chrono_literals;

namespace {
struct Clocks {
  WallTime wall = WallTime(1'800'000'000s);
  CoreClock::SteadyTime steady = CoreClock::SteadyTime(1000s);
  void advance(std::chrono::milliseconds d) {
    wall += d;
    steady += d;
  }
  CoreClock clock() {
    return CoreClock([this] { return wall; }, [this] { return steady; });
  }
};
}  // namespace

BOOST_AUTO_TEST_SUITE(core_clock_test)

BOOST_AUTO_TEST_CASE(starts_at_the_wall_clock_and_advances_with_the_steady_one) {
  Clocks c;
  CoreClock clock = c.clock();
  BOOST_TEST((clock.now() == c.wall));
  c.advance(90s);
  BOOST_TEST((clock.now() == c.wall));
  BOOST_TEST(!clock.observe_step().has_value());
}

// The wall clock steps 60 s ahead mid-drain: the core's time does not jump (a duration it measures stays
// true), and a NotBefore read after the step is converted by the new offset.
BOOST_AUTO_TEST_CASE(a_wall_clock_step_moves_the_offset_not_the_core_time) {
  Clocks c;
  CoreClock clock = c.clock();
  const WallTime before = clock.now();
  c.advance(10s);
  c.wall += 60s;  // the step
  BOOST_TEST(((clock.now() - before) == 10s), "measured durations ignore the step");
  const auto step = clock.observe_step();
  BOOST_REQUIRE(step.has_value());
  BOOST_TEST(step->count() == 60000);
  BOOST_TEST(!clock.observe_step().has_value(), "the offset follows the step once");
  EventsDocument doc;
  ScheduledEvent e;
  e.not_before = c.wall + 30s;  // 30 s ahead on the (new) wall clock
  doc.events.push_back(e);
  clock.convert(doc);
  BOOST_TEST(((*doc.events[0].not_before - clock.now()) == 30s), "still 30 s ahead in the core's time");
  BOOST_TEST((clock.to_wall(*doc.events[0].not_before) == c.wall + 30s));
}

BOOST_AUTO_TEST_CASE(drift_below_the_threshold_is_not_a_step) {
  Clocks c;
  CoreClock clock = c.clock();
  c.wall += CoreClock::kStepThreshold - 1ms;
  BOOST_TEST(!clock.observe_step().has_value());
  c.wall -= 2 * CoreClock::kStepThreshold;
  const auto step = clock.observe_step();
  BOOST_REQUIRE(step.has_value());
  BOOST_TEST(step->count() == (CoreClock::kStepThreshold - 1ms - 2 * CoreClock::kStepThreshold).count());
}

BOOST_AUTO_TEST_SUITE_END()
