// SPEC 3.3 and 3.10, a restarted node's CQL: after the VM rebooted (or restart_command ran), the restore
// holds enablebinary until no other node holds hints for the node, not before policy.catch_up_min (an empty
// answer counts only from then), at most policy.catch_up_max; the catch-up after restore_completed counts
// from the hold's start. A node that was not restarted serves at once, and catch_up_max 0 holds nothing.
#include <boost/test/unit_test.hpp>

#include "core_harness.hpp"
#include "state/core.hpp"

using namespace cla;
using namespace cla::test;

namespace {

const EventSpec kReboot{.id = "R", .type = "Reboot", .not_before_in = 1min};
const EventSpec kStarted{.id = "S", .type = "Reboot", .status = EventStatus::started};
const WallTime kBootAt = T0 + 3min;  // the agent starts after the VM's reboot; the Reboot is gone

CorePolicy hold_policy(bool coordinated = false, std::chrono::seconds max = 1800s) {
  CorePolicy p = coordinated ? coordinated_policy() : test_policy();
  p.catch_up_min = 30s;
  p.catch_up_max = max;
  return p;
}

// The agent of a node drained (flushed) for kReboot and approved, started again after the reboot: Cassandra
// booted with gossip and without its native transport (deploy/cassandra.service.d holds it while the agent
// holds the node).
Core rebooted_core(const CorePolicy& policy) {
  Core first = started_core(policy);
  Driver d{first};
  d.feed(doc(2, {kReboot}));
  d.at(T0 + 30s);
  BOOST_REQUIRE(first.state().node.flushed);
  Core core(policy, first.state());
  core.start(StartupInfo{StateSource::loaded, "boot-2", true, false}, kBootAt);
  return core;
}

std::size_t enable_binaries(const Actions& a) {
  const auto s = steps(a);
  return static_cast<std::size_t>(std::count(s.begin(), s.end(), Step::enable_binary));
}

}  // namespace

BOOST_AUTO_TEST_SUITE(core_binary_hold_test)

BOOST_AUTO_TEST_CASE(a_rebooted_node_reopens_cql_at_catch_up_min_when_no_node_holds_hints_for_it) {
  Core core = rebooted_core(hold_policy());
  Driver d{core, kBootAt};
  const Actions restore = d.feed(doc(3, {}));
  const LogAction* held = find_log(restore, "binary_held");
  BOOST_REQUIRE(held);
  BOOST_TEST(held->fields.at("rebooted").as_bool());
  BOOST_TEST(held->fields.at("catch_up_min_s").as_int64() == 30);
  BOOST_TEST(enable_binaries(restore) == 0u, "CQL reopened before the catch-up");
  BOOST_TEST(all_of<ReadCatchUp>(restore).size() == 1u);
  BOOST_TEST((core.member_phase() == MemberPhase::restoring));
  BOOST_TEST((core.binary_held_since() == kBootAt));
  BOOST_REQUIRE(core.next_wakeup(kBootAt).has_value());
  BOOST_TEST((*core.next_wakeup(kBootAt) == kBootAt + 30s), "an empty answer counts from catch_up_min on");
  BOOST_TEST(enable_binaries(d.at(kBootAt + 10s)) == 0u);

  const Actions reopened = d.at(kBootAt + 30s);
  const LogAction* ended = find_log(reopened, "binary_hold_ended");
  BOOST_REQUIRE(ended);
  BOOST_TEST((ended->severity == Severity::info));
  BOOST_TEST(ended->fields.at("held_s").as_int64() == 30);
  BOOST_TEST((steps(reopened) == std::vector{Step::enable_binary, Step::confirm_restored}));
  BOOST_TEST(logged(reopened, "restore_completed"));
  // The node was UN from the hold's start: the catch-up counts from there and ends at its first read.
  const LogAction* caught = find_log(reopened, "caught_up");
  BOOST_REQUIRE(caught);
  BOOST_TEST(caught->fields.at("catch_up_s").as_int64() == 30);
  BOOST_TEST((core.member_phase() == MemberPhase::serving));
  BOOST_TEST(!core.binary_held_since().has_value());
}

// Coordinated: the peers' member keys name the hints they hold for the node; enablebinary waits for them past
// catch_up_min, reading every catch_up_read_interval, and the drain record goes once caught up.
BOOST_AUTO_TEST_CASE(peers_holding_hints_keep_cql_closed_until_none_is_left) {
  Core core = rebooted_core(hold_policy(true));
  Driver d{core, kBootAt};
  CatchUpOutcome answer = held_by({"vm1 (3 hints files)"}, 3);
  d.catch_up = [&] { return answer; };
  d.feed(doc(3, {}));
  for (auto t = kBootAt + 5s; t <= kBootAt + 40s; t += 5s) {
    const Actions a = d.at(t);
    BOOST_TEST(all_of<ReadCatchUp>(a).size() == 1u, "a read every 5 s");
    BOOST_TEST(enable_binaries(a) == 0u);
    BOOST_TEST(all_of<ReleaseDrain>(a).empty());
  }
  answer = held_by({}, 0);
  const Actions reopened = d.at(kBootAt + 45s);
  const LogAction* ended = find_log(reopened, "binary_hold_ended");
  BOOST_REQUIRE(ended);
  BOOST_TEST(ended->fields.at("held_s").as_int64() == 45);
  BOOST_TEST(ended->fields.at("hint_files").as_int64() == 3);
  BOOST_TEST(enable_binaries(reopened) == 1u);
  const LogAction* caught = find_log(reopened, "caught_up");
  BOOST_REQUIRE(caught);
  BOOST_TEST(caught->fields.at("catch_up_s").as_int64() == 45);
  BOOST_TEST(caught->fields.at("hint_files").as_int64() == 3);
  BOOST_TEST(all_of<ReleaseDrain>(reopened).size() == 1u);
}

// catch_up_max bounds the hold (and the catch-up after it, which counts from the same instant): CQL reopens
// with a warning naming who still holds hints, over a read that never answered too.
BOOST_AUTO_TEST_CASE(catch_up_max_ends_the_hold_with_a_warning) {
  for (const bool answers : {true, false}) BOOST_TEST_CONTEXT("the holders' read answers " << answers) {
      Core core = rebooted_core(hold_policy(true, 60s));
      Driver d{core, kBootAt};
      d.catch_up = [] { return held_by({"vm1 (4 hints files)"}, 4); };
      d.answer_catch_up = answers;
      d.feed(doc(3, {}));
      BOOST_TEST((*core.next_wakeup(kBootAt + 59s) == kBootAt + 60s));
      const Actions a = d.at(kBootAt + 60s);
      const LogAction* ended = find_log(a, "binary_hold_ended");
      BOOST_REQUIRE(ended);
      BOOST_TEST((ended->severity == Severity::warning));
      BOOST_TEST(ended->fields.at("held_s").as_int64() == 60);
      BOOST_TEST(ended->fields.at("holders").as_array() ==
                 (answers ? boost::json::array{"vm1 (4 hints files)"} : boost::json::array{}));
      BOOST_TEST(enable_binaries(a) == 1u);
      BOOST_TEST(logged(a, "catch_up_timeout"), "the catch-up's bound counts from the hold's start");
      BOOST_TEST(all_of<ReleaseDrain>(a).size() == 1u);
      if (!answers) BOOST_TEST(core.on_catch_up(held_by({}, 0), kBootAt + 61s).empty(), "a late answer");
    }
}

// Unreadable holders (etcd gone) hold CQL no longer than catch_up_min: the catch-up after the restore still
// holds the drain record until it can read them.
BOOST_AUTO_TEST_CASE(unreadable_holders_hold_cql_until_catch_up_min_only) {
  Core core = rebooted_core(hold_policy(true));
  Driver d{core, kBootAt};
  bool readable = false;
  d.catch_up = [&] {
    return readable ? held_by({}, 0) : CatchUpOutcome{false, {}, 0, "etcd: connection refused"};
  };
  const Actions restore = d.feed(doc(3, {}));
  const LogAction* unreadable = find_log(restore, "catch_up_unreadable");
  BOOST_REQUIRE(unreadable);
  BOOST_TEST(unreadable->fields.at("binary_held").as_bool());
  const Actions reopened = d.at(kBootAt + 30s);
  for (const auto& line : all_of<LogAction>(reopened))
    if (line.msg == "catch_up_unreadable")
      BOOST_TEST(!line.fields.contains("binary_held"), "the hold's said once; this one is the catch-up's");
  BOOST_TEST(logged(reopened, "binary_hold_ended"));
  BOOST_TEST(enable_binaries(reopened) == 1u);
  BOOST_TEST(logged(reopened, "catching_up"));
  BOOST_TEST(!logged(reopened, "caught_up"), "an unreadable answer never counts as caught up");
  BOOST_TEST(all_of<ReleaseDrain>(reopened).empty());
  readable = true;
  const Actions caught = d.at(kBootAt + 35s);
  BOOST_TEST(logged(caught, "caught_up"));
  BOOST_TEST(all_of<ReleaseDrain>(caught).size() == 1u);
}

// An event first seen Started during the hold: its emergency drain goes at once, the hold with it.
BOOST_AUTO_TEST_CASE(an_emergency_during_the_hold_takes_the_node_out_at_once) {
  Core core = rebooted_core(hold_policy());
  Driver d{core, kBootAt};
  d.feed(doc(3, {}));
  d.now = kBootAt + 10s;
  const Actions a = d.feed(doc(4, {kStarted}));
  BOOST_TEST(logged(a, "impact_without_drain"));
  BOOST_TEST(enable_binaries(a) == 0u);
  BOOST_TEST((steps(a) == std::vector{Step::disable_gossip, Step::flush}), "binary is still off");
  BOOST_TEST(!core.binary_held_since().has_value());
  BOOST_TEST(enable_binaries(d.at(kBootAt + 30s)) == 0u, "the node is out for S");
}

// A drain during the hold (a Freeze first seen Started) takes the node out before it served: the Cassandra
// that started afresh is still the one that the peers replay hints to, so the restore after that event holds
// too, also when the agent restarts in between (the node's started_afresh is persisted). Found in a game day:
// vm4, held after a Terminate, drained for a Freeze, reopened CQL without a hold.
BOOST_AUTO_TEST_CASE(a_node_drained_again_before_it_served_is_held_at_the_next_restore) {
  const EventSpec freeze{.id = "F", .type = "Freeze", .status = EventStatus::started, .duration_s = 10};
  for (const bool agent_restarted : {false, true}) BOOST_TEST_CONTEXT("agent restarted " << agent_restarted) {
      const CorePolicy policy = hold_policy();
      Core core = rebooted_core(policy);
      Driver d{core, kBootAt};
      d.feed(doc(3, {}));
      BOOST_REQUIRE(core.binary_held_since().has_value());
      BOOST_TEST(core.state().node.started_afresh);
      d.now = kBootAt + 10s;
      const Actions out = d.feed(doc(4, {freeze}));
      BOOST_TEST(enable_binaries(out) == 0u);
      BOOST_TEST(logged(out, "drain_completed"));
      BOOST_TEST(!core.binary_held_since().has_value());
      BOOST_TEST(core.state().node.started_afresh, "still not served");

      Core restarted(policy, core.state());
      Core& agent = agent_restarted ? restarted : core;
      if (agent_restarted)
        restarted.start(StartupInfo{StateSource::loaded, "boot-2", false, false}, kBootAt + 15s);
      Driver after{agent, kBootAt + 20s};
      const Actions restore = after.feed(doc(5, {}));
      const LogAction* held = find_log(restore, "binary_held");
      BOOST_REQUIRE(held);
      BOOST_TEST(!held->fields.at("rebooted").as_bool());
      BOOST_TEST(!held->fields.at("restarted").as_bool());
      BOOST_TEST(held->fields.at("started_afresh_earlier").as_bool());
      BOOST_TEST(enable_binaries(restore) == 0u, "CQL reopened before the catch-up");
      const Actions reopened = after.at(kBootAt + 50s);
      BOOST_TEST(logged(reopened, "binary_hold_ended"));
      BOOST_TEST(enable_binaries(reopened) == 1u);
      BOOST_TEST(logged(reopened, "restore_completed"));
      BOOST_TEST(!agent.state().node.started_afresh, "served: the next restore of a warm node holds nothing");
    }
}

// Where nothing holds: a node that was not restarted (a Freeze: its JVM kept running) serves at once and then
// catches up; catch_up_max 0 waits for nothing. A restart_command's restart is a fresh start too.
BOOST_AUTO_TEST_CASE(only_a_freshly_started_node_is_held) {
  {BOOST_TEST_CONTEXT("a Freeze: not restarted"){Core core = started_core(hold_policy());
  Driver d{core};
  d.feed(doc(2, {{.type = "Freeze", .duration_s = 30}}));
  d.at(T0 + 15min - 30s);
  const Actions a = d.feed_at(T0 + 16min, doc(3, {}));
  BOOST_TEST(!logged(a, "binary_held"));
  BOOST_TEST((steps(a) == kRestore));
  BOOST_TEST(logged(a, "catching_up"));
}
}
{BOOST_TEST_CONTEXT("rebooted, catch_up_max 0"){Core core = rebooted_core(hold_policy(false, 0s));
Driver d{core, kBootAt};
const Actions a = d.feed(doc(3, {}));
BOOST_TEST(!logged(a, "binary_held"));
BOOST_TEST((steps(a) == std::vector{Step::enable_binary, Step::confirm_restored}));
}
}
{
  BOOST_TEST_CONTEXT("restarted by restart_command") {
    CorePolicy p = hold_policy();
    p.has_restart_command = true;
    Core core = started_core(p);
    Driver d{core};
    d.step = [](Step s) {
      return s == Step::check_serving ? StepOutcome{false, false, "statusgossip: not running"}
                                      : StepOutcome{true, false, ""};
    };
    d.feed(doc(2, {kReboot}));
    d.at(T0 + 30s);
    BOOST_REQUIRE(core.state().node.flushed);
    const Actions a = d.feed_at(T0 + 2min, doc(3, {}));  // cancelled: no reboot, the flushed node restarts
    BOOST_TEST((steps(a) == std::vector{Step::check_serving, Step::restart_cassandra, Step::enable_gossip}));
    const LogAction* held = find_log(a, "binary_held");
    BOOST_REQUIRE(held);
    BOOST_TEST(held->fields.at("restarted").as_bool());
    BOOST_TEST(!held->fields.at("rebooted").as_bool());
    BOOST_TEST(enable_binaries(d.at(T0 + 2min + 30s)) == 1u);
  }
}
}

BOOST_AUTO_TEST_SUITE_END()
