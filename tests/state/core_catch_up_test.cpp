// SPEC 3.10, catching up: after restore_completed the node is catching_up until no other node holds hints
// for it, not before policy.catch_up_min (an empty answer counts only from then) and at the latest at
// policy.catch_up_max (catch_up_timeout); coordinated, its drain record is released only then, so that the
// next rack waits. catch_up_max 0: no wait.
#include <boost/json/serialize.hpp>
#include <boost/test/unit_test.hpp>

#include "core_harness.hpp"
#include "state/core.hpp"
#include "state/state_codec.hpp"

using namespace cla;
using namespace cla::test;

namespace {

const EventSpec kFreeze{.type = "Freeze", .duration_s = 30};  // NotBefore T0 + 15 min
const WallTime kDrainAt = T0 + 15min - 30s;
const WallTime kRestoreAt = kDrainAt + 60s;  // the event gone: restored at this poll

CorePolicy catch_up_policy(bool coordinated = false, std::chrono::seconds min = 30s,
                           std::chrono::seconds max = 1800s) {
  CorePolicy p = coordinated ? coordinated_policy() : test_policy();
  p.catch_up_min = min;
  p.catch_up_max = max;
  return p;
}

// Drains for kFreeze at kDrainAt and restores at kRestoreAt; the restore's actions.
Actions drain_and_restore(Driver& d) {
  d.feed(doc(2, {kFreeze}));
  d.at(kDrainAt);
  return d.feed_at(kRestoreAt, doc(3, {}));
}

}  // namespace

BOOST_AUTO_TEST_SUITE(core_catch_up_test)

BOOST_AUTO_TEST_CASE(restored_node_catches_up_and_keeps_its_drain_record_until_caught_up) {
  Core core = started_core(catch_up_policy(true));
  Driver d{core};
  const Actions restored = drain_and_restore(d);
  BOOST_TEST((steps(restored) == kRestore));
  const LogAction* catching = find_log(restored, "catching_up");
  BOOST_REQUIRE(catching);
  BOOST_TEST(catching->fields.at("out_s").as_int64() == 60);
  BOOST_TEST(catching->fields.at("catch_up_min_s").as_int64() == 30);
  BOOST_TEST(find_log(restored, "restore_completed") != nullptr);
  BOOST_TEST(all_of<ReleaseDrain>(restored).empty(), "released before the node caught up");
  BOOST_TEST(all_of<ReadCatchUp>(restored).size() == 1u);
  BOOST_TEST(core.member_phase() == MemberPhase::catching_up);
  BOOST_REQUIRE(core.state().catch_up.has_value());
  BOOST_TEST((core.state().catch_up->since == kRestoreAt));
  BOOST_TEST(d.persisted.back().catch_up.has_value(), "the catch-up is on disk");

  // Empty answers before catch_up_min do not count: a peer's hints file is listed only once closed.
  BOOST_REQUIRE(core.next_wakeup(kRestoreAt).has_value());
  BOOST_TEST((*core.next_wakeup(kRestoreAt) == kRestoreAt + 30s), "the next read waits for catch_up_min");
  BOOST_TEST(all_of<ReadCatchUp>(d.at(kRestoreAt + 10s)).empty());
  const Actions caught = d.at(kRestoreAt + 30s);
  const LogAction* done = find_log(caught, "caught_up");
  BOOST_REQUIRE(done);
  BOOST_TEST(done->fields.at("out_s").as_int64() == 60);
  BOOST_TEST(done->fields.at("catch_up_s").as_int64() == 30);
  BOOST_TEST(done->fields.at("hint_files").as_int64() == 0);
  BOOST_TEST(all_of<ReleaseDrain>(caught).size() == 1u);
  BOOST_TEST(core.member_phase() == MemberPhase::serving);
  BOOST_TEST(!core.state().catch_up.has_value());
  BOOST_TEST(!d.persisted.back().catch_up.has_value());
}

// Peers still hold hints past catch_up_min: the node waits for them, reading every 5 s; caught_up names the
// most files one reading found.
BOOST_AUTO_TEST_CASE(holders_keep_the_node_catching_up_until_none_is_left) {
  Core core = started_core(catch_up_policy(true));
  Driver d{core};
  CatchUpOutcome answer = held_by({"vm1 (3 hints files)", "vm2 (2 hints files)"}, 5);
  d.catch_up = [&] { return answer; };
  drain_and_restore(d);
  BOOST_TEST(core.state().catch_up->hint_files == 5);
  answer = held_by({"vm1 (1 hints files)"}, 1);
  for (auto t = kRestoreAt + 5s; t <= kRestoreAt + 40s; t += 5s) {
    const Actions a = d.at(t);
    BOOST_TEST(all_of<ReadCatchUp>(a).size() == 1u, "a read every 5 s");
    BOOST_TEST(!logged(a, "caught_up"));
    BOOST_TEST(all_of<ReleaseDrain>(a).empty());
  }
  answer = held_by({}, 0);
  const Actions caught = d.at(kRestoreAt + 45s);
  const LogAction* done = find_log(caught, "caught_up");
  BOOST_REQUIRE(done);
  BOOST_TEST(done->fields.at("catch_up_s").as_int64() == 45);
  BOOST_TEST(done->fields.at("hint_files").as_int64() == 5);
  BOOST_TEST(all_of<ReleaseDrain>(caught).size() == 1u);
}

BOOST_AUTO_TEST_CASE(catch_up_max_ends_it_with_a_warning_naming_the_holders) {
  Core core = started_core(catch_up_policy(true, 30s, 60s));
  Driver d{core};
  d.catch_up = [] { return held_by({"vm1 (4 hints files)"}, 4); };
  drain_and_restore(d);
  BOOST_TEST((*core.next_wakeup(kRestoreAt + 59s) == kRestoreAt + 60s));
  d.at(kRestoreAt + 55s);
  const Actions a = d.at(kRestoreAt + 60s);
  const LogAction* timeout = find_log(a, "catch_up_timeout");
  BOOST_REQUIRE(timeout);
  BOOST_TEST((timeout->severity == Severity::warning));
  BOOST_TEST(timeout->fields.at("holders").as_array() == boost::json::array{"vm1 (4 hints files)"});
  BOOST_TEST(timeout->fields.at("catch_up_s").as_int64() == 60);
  BOOST_TEST(!logged(a, "caught_up"));
  BOOST_TEST(all_of<ReleaseDrain>(a).size() == 1u, "counted as caught up");
  BOOST_TEST(core.member_phase() == MemberPhase::serving);
}

// An etcd read that never answers holds nothing: catch_up_max ends the catch-up over it, and its answer,
// should it still come, is dropped.
BOOST_AUTO_TEST_CASE(a_read_that_never_answers_is_ended_by_catch_up_max) {
  Core core = started_core(catch_up_policy(true, 30s, 60s));
  Driver d{core};
  d.answer_catch_up = false;
  drain_and_restore(d);
  BOOST_TEST(d.held_catch_ups == 1);
  BOOST_TEST((*core.next_wakeup(kRestoreAt + 1s) == kRestoreAt + 60s));
  BOOST_TEST(all_of<ReadCatchUp>(d.at(kRestoreAt + 30s)).empty(), "one read at a time");
  const Actions a = d.at(kRestoreAt + 60s);
  BOOST_TEST(logged(a, "catch_up_timeout"));
  BOOST_TEST(all_of<ReleaseDrain>(a).size() == 1u);
  BOOST_TEST(core.on_catch_up(held_by({}, 0), kRestoreAt + 61s).empty());
}

BOOST_AUTO_TEST_CASE(unreadable_holders_are_said_once_and_never_count_as_caught_up) {
  Core core = started_core(catch_up_policy(true, 30s, 120s));
  Driver d{core};
  d.catch_up = [] { return CatchUpOutcome{false, {}, 0, "etcd: connection refused"}; };
  const Actions restored = drain_and_restore(d);
  const LogAction* unreadable = find_log(restored, "catch_up_unreadable");
  BOOST_REQUIRE(unreadable);
  BOOST_TEST(unreadable->fields.at("detail").as_string() == "etcd: connection refused");
  for (auto t = kRestoreAt + 5s; t < kRestoreAt + 120s; t += 5s) {
    const Actions a = d.at(t);
    BOOST_TEST(!logged(a, "catch_up_unreadable"));
    BOOST_TEST(!logged(a, "caught_up"));
  }
  BOOST_TEST(logged(d.at(kRestoreAt + 120s), "catch_up_timeout"));
}

BOOST_AUTO_TEST_CASE(uncoordinated_the_node_catches_up_for_catch_up_min_and_releases_nothing) {
  Core core = started_core(catch_up_policy(false));
  Driver d{core};
  const Actions restored = drain_and_restore(d);
  BOOST_TEST(logged(restored, "catching_up"));
  const Actions caught = d.at(kRestoreAt + 30s);
  BOOST_TEST(logged(caught, "caught_up"));
  BOOST_TEST(all_of<ReleaseDrain>(caught).empty());
}

BOOST_AUTO_TEST_CASE(catch_up_max_0_releases_the_record_at_the_restore_and_logs_no_catch_up) {
  Core core = started_core(catch_up_policy(true, 30s, 0s));
  Driver d{core};
  const Actions restored = drain_and_restore(d);
  BOOST_TEST(!logged(restored, "catching_up"));
  BOOST_TEST(all_of<ReadCatchUp>(restored).empty());
  BOOST_TEST(all_of<ReleaseDrain>(restored).size() == 1u);
  BOOST_TEST(core.member_phase() == MemberPhase::serving);
  BOOST_TEST(!core.state().catch_up.has_value());
}

// The node goes out again before it caught up (back to back): the catch-up ends without a line, the read in
// flight is dropped, and the next restore starts a new one.
BOOST_AUTO_TEST_CASE(a_new_drain_drops_the_catch_up_and_the_next_restore_starts_another) {
  Core core = started_core(catch_up_policy(true));
  Driver d{core};
  drain_and_restore(d);
  d.answer_catch_up = false;
  d.at(kRestoreAt + 30s);
  BOOST_TEST(d.held_catch_ups == 1);
  const EventSpec next{.id = "E2", .type = "Freeze", .not_before_in = 20min, .duration_s = 30};
  const WallTime next_drain = T0 + 20min - 30s;
  d.feed_at(next_drain - 10s, doc(4, {next}));
  const Actions drained = d.at(next_drain);
  BOOST_TEST((steps(drained) == kDisable));
  BOOST_TEST(!core.state().catch_up.has_value());
  BOOST_TEST(core.member_phase() == MemberPhase::drained);
  BOOST_TEST(!logged(drained, "caught_up"));
  BOOST_TEST(!logged(drained, "catch_up_timeout"));
  BOOST_TEST(core.on_catch_up(held_by({}, 0), next_drain + 1s).empty(), "the old read's answer is dropped");
  d.answer_catch_up = true;
  const Actions restored = d.feed_at(next_drain + 60s, doc(5, {}));
  BOOST_TEST(logged(restored, "catching_up"));
  BOOST_TEST((core.state().catch_up->since == next_drain + 60s));
}

// Restarted while catching up: the catch-up goes on from the state file, and the drain record stays.
BOOST_AUTO_TEST_CASE(a_restart_while_catching_up_goes_on_and_keeps_the_record) {
  AgentState on_disk;
  {
    Core first = started_core(catch_up_policy(true));
    Driver d{first};
    drain_and_restore(d);
    auto reloaded = decode_state(boost::json::serialize(encode_state(first.state())));
    BOOST_REQUIRE(reloaded.ok());
    on_disk = std::move(reloaded).value();
  }
  BOOST_REQUIRE(on_disk.catch_up.has_value());
  BOOST_TEST((on_disk.catch_up->since == kRestoreAt));
  BOOST_TEST(on_disk.catch_up->out_s == 60);
  Core core(catch_up_policy(true), on_disk);
  const Actions started =
      core.start(StartupInfo{StateSource::loaded, "boot-1", true, true}, kRestoreAt + 20s);
  BOOST_TEST(all_of<ReleaseDrain>(started).empty());
  BOOST_TEST(core.member_phase() == MemberPhase::catching_up);
  Driver d{core};
  d.feed_at(kRestoreAt + 21s, doc(6, {}));
  const Actions caught = d.at(kRestoreAt + 30s);
  BOOST_TEST(logged(caught, "caught_up"));
  BOOST_TEST(all_of<ReleaseDrain>(caught).size() == 1u);
}

BOOST_AUTO_TEST_SUITE_END()
