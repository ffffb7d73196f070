// SPEC 3.10, quiet before approval: a drained node is approved only once its replica stages' completed tasks
// have not moved for policy.quiet (two readings that far apart, equal), never past NotBefore, and an
// unreadable reading withholds the approval (the impact still comes at NotBefore).
#include <boost/test/unit_test.hpp>

#include "core_harness.hpp"
#include "state/core.hpp"

using namespace cla;
using namespace cla::test;

namespace {

const EventSpec kFreeze{.id = "F", .type = "Freeze", .duration_s = 30};  // NotBefore T0 + 15 min
const WallTime kDrainAt = T0 + 15min - 30s;

CorePolicy quiet_policy(std::chrono::seconds quiet = 2s) {
  CorePolicy p = test_policy();
  p.quiet = quiet;
  return p;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(core_quiet_test)

BOOST_AUTO_TEST_CASE(quiet_s_0_approves_in_the_drain_s_pass_without_a_reading) {
  Core core = started_core(quiet_policy(0s));
  Driver d{core};
  d.feed(doc(2, {kFreeze}));
  const Actions a = d.at(kDrainAt);
  BOOST_TEST(all_of<ReadStages>(a).empty());
  BOOST_TEST(all_of<Approve>(a).size() == 1u);
  BOOST_TEST(!logged(a, "drain_quiet"));
}

// Unchanged counts: the first reading after the drain, a second one policy.quiet later, then the approval.
BOOST_AUTO_TEST_CASE(two_equal_readings_quiet_s_apart_approve) {
  Core core = started_core(quiet_policy());
  Driver d{core};
  d.feed(doc(2, {kFreeze}));
  Actions a = d.at(kDrainAt);
  BOOST_TEST((steps(a) == kDisable));
  BOOST_TEST(all_of<ReadStages>(a).size() == 1u);
  BOOST_TEST(all_of<Approve>(a).empty(), "approved before the node left the request path");
  BOOST_REQUIRE(core.next_wakeup(kDrainAt).has_value());
  BOOST_TEST((*core.next_wakeup(kDrainAt) == kDrainAt + 2s), "the next reading is timed");
  a = d.at(kDrainAt + 1s);
  BOOST_TEST(all_of<ReadStages>(a).empty(), "one reading each policy.quiet, not each poll");
  a = d.at(kDrainAt + 2s);
  BOOST_TEST(all_of<ReadStages>(a).size() == 1u);
  BOOST_REQUIRE(all_of<Approve>(a).size() == 1u);
  const LogAction* quiet = find_log(a, "drain_quiet");
  BOOST_REQUIRE(quiet);
  BOOST_TEST(quiet->fields.at("wait_ms").as_int64() == 2000);
  BOOST_TEST(quiet->fields.at("readings").as_int64() == 2);
  BOOST_TEST(quiet->fields.at("read_stage").as_int64() == 5);
  BOOST_TEST(quiet->fields.at("event_id").as_string() == "F");
  BOOST_TEST(first<LogAction>(a) < first<Approve>(a));
}

// A peer still sends reads (it marked the node up again): each move restarts the wait.
BOOST_AUTO_TEST_CASE(moving_counts_hold_the_approval_until_they_stop) {
  Core core = started_core(quiet_policy());
  Driver d{core};
  std::int64_t reads = 100;
  d.stages = [&] { return StagesOutcome{StageCounts{reads, 0, 0}, ""}; };
  d.feed(doc(2, {kFreeze}));
  d.at(kDrainAt);
  reads += 40;
  BOOST_TEST(all_of<Approve>(d.at(kDrainAt + 2s)).empty());
  reads += 3;
  BOOST_TEST(all_of<Approve>(d.at(kDrainAt + 4s)).empty());
  const Actions a = d.at(kDrainAt + 6s);
  BOOST_TEST(all_of<Approve>(a).size() == 1u);
  BOOST_TEST(find_log(a, "drain_quiet")->fields.at("wait_ms").as_int64() == 6000);
}

// The reading's answer comes late (a JVM start): quiet is counted from an answer to a reading asked at
// least policy.quiet later, never from when the late answer arrived.
BOOST_AUTO_TEST_CASE(a_slow_reading_counts_from_its_question) {
  Core core = started_core(quiet_policy());
  Driver d{core};
  d.feed(doc(2, {kFreeze}));
  d.answer_stages = false;
  d.at(kDrainAt);  // the drain's steps; the reading stays out
  BOOST_REQUIRE(d.held_stages == 1);
  Actions a = core.on_stages({StageCounts{1, 1, 1}, ""}, kDrainAt + 1500ms);  // answered 1.5 s later
  BOOST_TEST(all_of<ReadStages>(a).empty());
  BOOST_TEST((*core.next_wakeup(kDrainAt + 1500ms) == kDrainAt + 3500ms));
  a = core.on_timer(kDrainAt + 3500ms);  // policy.quiet after that answer
  BOOST_REQUIRE(all_of<ReadStages>(a).size() == 1u);
  a = core.on_stages({StageCounts{1, 1, 1}, ""}, kDrainAt + 5s);
  BOOST_TEST(all_of<Approve>(a).size() == 1u);
}

// An unreadable reading (JMX down, tpstats failing) withholds the approval: logged once, read again every
// second, and no more reading once NotBefore has come (the impact needs no approval then).
BOOST_AUTO_TEST_CASE(unreadable_stages_withhold_the_approval_until_not_before) {
  Core core = started_core(quiet_policy());
  Driver d{core};
  d.stages = [] { return StagesOutcome{std::nullopt, "nodetool tpstats failed: exit 1"}; };
  d.feed(doc(2, {kFreeze}));
  Actions a = d.at(kDrainAt);
  BOOST_TEST(logged(a, "stages_unreadable"));
  int readings = 0;
  for (auto t = kDrainAt + 1s; t <= T0 + 15min + 5s; t += 1s) {
    a = d.at(t);
    readings += static_cast<int>(all_of<ReadStages>(a).size());
    BOOST_TEST(!logged(a, "stages_unreadable"), "logged once");
    BOOST_TEST(all_of<Approve>(a).empty());
  }
  BOOST_TEST(readings == 29, "one a second until NotBefore");
}

// The event is cancelled while a reading is out: the node is restored and the reading's answer dropped.
BOOST_AUTO_TEST_CASE(a_reading_answered_after_the_restore_is_dropped) {
  Core core = started_core(quiet_policy());
  Driver d{core};
  d.feed(doc(2, {kFreeze}));
  d.answer_stages = false;
  d.at(kDrainAt);
  BOOST_REQUIRE(d.held_stages == 1);
  const Actions a = d.feed_at(kDrainAt + 1s, doc(3, {}));  // cancelled: restored, the reading still out
  BOOST_TEST(logged(a, "restore_completed"));
  BOOST_TEST(core.on_stages({StageCounts{1, 1, 1}, ""}, kDrainAt + 2s).empty());
}

// Once proven for a drain, a further event of the same outage is approved without waiting again; the next
// drain after a restore waits again.
BOOST_AUTO_TEST_CASE(proven_once_per_drain) {
  Core core = started_core(quiet_policy());
  Driver d{core};
  const EventSpec second{.id = "G", .type = "Freeze", .not_before_in = 16min, .duration_s = 30};
  d.feed(doc(2, {kFreeze}));
  d.at(kDrainAt);
  BOOST_REQUIRE(all_of<Approve>(d.at(kDrainAt + 2s)).size() == 1u);
  Actions a = d.feed_at(kDrainAt + 3s, doc(3, {kFreeze, second}));
  a = d.at(T0 + 16min - 30s);
  BOOST_TEST(all_of<ReadStages>(a).empty());
  BOOST_TEST(all_of<Approve>(a).size() == 1u);

  a = d.feed_at(T0 + 20min, doc(4, {}));
  BOOST_REQUIRE(logged(a, "restore_completed"));
  const EventSpec third{.id = "H", .type = "Freeze", .not_before_in = 30min, .duration_s = 30};
  d.feed_at(T0 + 21min, doc(5, {third}));
  a = d.at(T0 + 30min - 30s);
  BOOST_TEST(all_of<ReadStages>(a).size() == 1u);
  BOOST_TEST(all_of<Approve>(a).empty());
}

// A user event is approved only once the node is quiet too.
BOOST_AUTO_TEST_CASE(a_user_event_waits_as_well) {
  Core core = started_core(quiet_policy());
  Driver d{core};
  Actions a = d.feed(doc(2, {{.id = "U", .type = "Redeploy", .source = EventSource::user}}));
  BOOST_TEST(!steps(a).empty());
  BOOST_TEST(all_of<Approve>(a).empty());
  a = d.at(T0 + 2s);
  BOOST_TEST(all_of<Approve>(a).size() == 1u);
}

// A no-impact freeze is approved at once: nothing is drained, so nothing waits.
BOOST_AUTO_TEST_CASE(a_no_impact_freeze_needs_no_reading) {
  CorePolicy p = quiet_policy();
  p.no_impact_freeze_max_s = 9;
  Core core = started_core(p);
  Driver d{core};
  const Actions a = d.feed(doc(2, {{.type = "Freeze", .duration_s = 2}}));
  BOOST_TEST(all_of<ReadStages>(a).empty());
  BOOST_TEST(all_of<Approve>(a).size() == 1u);
}

BOOST_AUTO_TEST_SUITE_END()
