// The core in coordinated mode (SPEC 9), with a fake clock: both gates before a platform drain, the record
// before the first mutating command and released after the restore, on_unavailable, shared approval.
#include <boost/test/unit_test.hpp>

#include "core_harness.hpp"
#include "state/core.hpp"

using namespace cla;
using namespace cla::test;

namespace {

const EventSpec kFreeze{.type = "Freeze", .duration_s = 30};  // NotBefore T0 + 15 min, drain 30 s before
const WallTime kDrainAt = T0 + 15min - 30s;
const WallTime kForcedAt = T0 + 15min - 10s;

CorePolicy coordinated(bool hold = false) {
  CorePolicy p = coordinated_policy();
  p.hold_without_coordination = hold;
  return p;
}

std::size_t count_logged(const Actions& a, const std::string& msg) {
  std::size_t n = 0;
  for (const auto& x : a)
    if (auto* l = std::get_if<LogAction>(&x); l && l->msg == msg) ++n;
  return n;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(core_coordination_test)

BOOST_AUTO_TEST_CASE(admitted_drain_is_recorded_after_the_nodetool_gate_and_before_the_first_command) {
  Core core = started_core(coordinated());
  Driver d{core};
  d.feed(doc(2, {kFreeze}));
  const Actions a = d.at(kDrainAt);
  const auto admits = all_of<Admit>(a);
  BOOST_TEST_REQUIRE(admits.size() == 1u);
  BOOST_TEST((admits[0] == Admit{"E1", false}));
  BOOST_TEST(first<CheckSafety>(a) < first<Admit>(a));
  BOOST_TEST(first<Admit>(a) < first<RunStep>(a));
  BOOST_TEST((steps(a) == kDisable));
  BOOST_TEST(all_of<Approve>(a).size() == 1u);  // vm0 alone: not a shared event
  BOOST_TEST(core.member_phase() == MemberPhase::drained);
  BOOST_TEST(core.member_events() == std::vector<std::string>{"E1"});

  const Actions restored = d.feed_at(kDrainAt + 60s, doc(4, {}));
  BOOST_TEST(logged(restored, "restore_completed"));
  BOOST_TEST(all_of<ReleaseDrain>(restored).size() == 1u);
  BOOST_TEST(first<ReleaseDrain>(restored) > first<RunStep>(restored));
  BOOST_TEST(core.member_phase() == MemberPhase::serving);
}

BOOST_AUTO_TEST_CASE(refused_admission_waits_asks_both_gates_at_every_poll_then_drains_when_admitted) {
  Core core = started_core(coordinated());
  Driver d{core};
  bool admit = false;
  d.admission = [&](const Admit&) {
    return admit ? AdmissionOutcome{} : AdmissionOutcome{CoordinationResult::refused, "rack2 out", {"rack2"}};
  };
  d.feed(doc(2, {kFreeze}));
  Actions a = d.at(kDrainAt);
  BOOST_TEST(steps(a).empty());
  BOOST_TEST(logged(a, "drain_not_admitted"));
  BOOST_TEST(core.member_phase() == MemberPhase::serving);
  a = d.at(kDrainAt + 1s);  // a timer alone asks nothing again
  BOOST_TEST(all_of<Admit>(a).empty());
  a = d.feed_at(kDrainAt + 2s, doc(2, {kFreeze}));  // a poll asks both again; logged once only
  BOOST_TEST(all_of<CheckSafety>(a).size() == 1u);
  BOOST_TEST(all_of<Admit>(a).size() == 1u);
  BOOST_TEST(!logged(a, "drain_not_admitted"));
  admit = true;
  a = d.feed_at(kDrainAt + 3s, doc(2, {kFreeze}));
  BOOST_TEST((steps(a) == kDisable));
}

BOOST_AUTO_TEST_CASE(unsafe_nodetool_gate_does_not_ask_etcd) {
  Core core = started_core(coordinated());
  Driver d{core};
  d.safety = [] { return SafetyResult{false, "rack2 down", {"rack2"}, {}}; };
  d.feed(doc(2, {kFreeze}));
  const Actions a = d.at(kDrainAt);
  BOOST_TEST(all_of<Admit>(a).empty());
  BOOST_TEST(logged(a, "unsafe_to_drain"));
}

BOOST_AUTO_TEST_CASE(at_the_forced_instant_a_refused_drain_is_recorded_unconditionally_and_never_approved) {
  Core core = started_core(coordinated());
  Driver d{core};
  d.admission = [](const Admit& ad) {
    return ad.forced ? AdmissionOutcome{}
                     : AdmissionOutcome{CoordinationResult::refused, "rack2 out", {"rack2"}};
  };
  d.feed(doc(2, {kFreeze}));
  d.at(kDrainAt);
  const Actions a = d.feed_at(kForcedAt, doc(2, {kFreeze}));
  const auto admits = all_of<Admit>(a);
  BOOST_TEST_REQUIRE(!admits.empty());
  BOOST_TEST(admits.back().forced);
  BOOST_TEST((steps(a) == kDisable));
  BOOST_TEST(logged(a, "drain_forced_unsafe"));
  BOOST_TEST(all_of<Approve>(a).empty());
}

BOOST_AUTO_TEST_CASE(local_gate_drains_on_nodetool_alone_when_etcd_is_down_and_logs_it_rate_limited) {
  Core core = started_core(coordinated(false));
  Driver d{core};
  bool down = true;
  d.admission = [&](const Admit&) {
    return down ? AdmissionOutcome{CoordinationResult::unavailable, "every member failed", {}}
                : AdmissionOutcome{};
  };
  d.feed(doc(2, {kFreeze, EventSpec{.id = "E2",
                                    .type = "Freeze",
                                    .resources = {"vm0"},
                                    .not_before_in = 15min + 40s,
                                    .duration_s = 30}}));
  Actions a = d.at(kDrainAt);
  BOOST_TEST((steps(a) == kDisable));
  BOOST_TEST(count_logged(a, "coordination_unavailable") == 1u);
  BOOST_TEST(all_of<Approve>(a).size() == 1u);  // not shared: the drain is done, approved
  a = d.feed_at(kDrainAt + 5s, doc(3, {}));     // restore
  BOOST_TEST(logged(a, "restore_completed"));
  // E2 comes due 10 s later, etcd still down: drained again, no second coordination_unavailable within 60 s.
  a = d.feed_at(kDrainAt + 40s, doc(4, {EventSpec{.id = "E2",
                                                  .type = "Freeze",
                                                  .resources = {"vm0"},
                                                  .not_before_in = 15min + 40s,
                                                  .duration_s = 30}}));
  BOOST_TEST((steps(a) == kDisable));
  BOOST_TEST(!logged(a, "coordination_unavailable"));
  down = false;
  a = d.feed_at(kDrainAt + 60s, doc(5, {}));
  a = d.feed_at(kDrainAt + 61s, doc(6, {EventSpec{.id = "E3",
                                                  .type = "Freeze",
                                                  .resources = {"vm0"},
                                                  .not_before_in = 15min + 60s,
                                                  .duration_s = 30}}));
  BOOST_TEST(logged(a, "coordination_recovered"));
}

BOOST_AUTO_TEST_CASE(hold_does_not_drain_without_etcd_until_the_forced_instant) {
  Core core = started_core(coordinated(true));
  Driver d{core};
  d.admission = [](const Admit&) { return AdmissionOutcome{CoordinationResult::unavailable, "down", {}}; };
  d.feed(doc(2, {kFreeze}));
  Actions a = d.at(kDrainAt);
  BOOST_TEST(steps(a).empty());
  BOOST_TEST(logged(a, "coordination_unavailable"));
  a = d.feed_at(kForcedAt - 1s, doc(2, {kFreeze}));
  BOOST_TEST(all_of<Admit>(a).size() == 1u);  // asked again at the poll
  BOOST_TEST(steps(a).empty());
  BOOST_REQUIRE(core.next_wakeup(d.now).has_value());
  a = d.at(kForcedAt);
  BOOST_TEST(logged(a, "coordination_hold_ended"));
  BOOST_TEST((steps(a) == kDisable));
  BOOST_TEST(!logged(a, "drain_forced_unsafe"));  // the nodetool gate said safe
}

BOOST_AUTO_TEST_CASE(user_drain_is_recorded_unconditionally_and_proceeds_without_etcd) {
  Core core = started_core(coordinated(true));
  Driver d{core};
  d.admission = [](const Admit&) { return AdmissionOutcome{CoordinationResult::unavailable, "down", {}}; };
  const Actions a = d.feed(doc(2, {EventSpec{.source = EventSource::user}}));
  BOOST_TEST_REQUIRE(all_of<Admit>(a).size() == 1u);
  BOOST_TEST(all_of<Admit>(a)[0].forced);
  BOOST_TEST(all_of<CheckSafety>(a).empty());
  BOOST_TEST(steps(a).size() == 3u);  // a Reboot: disable both, flush
}

BOOST_AUTO_TEST_CASE(shared_event_is_approved_only_when_etcd_says_this_agent_approves) {
  Core core = started_core(coordinated());
  Driver d{core};
  SharedOutcome verdict{CoordinationResult::refused, "vm1 draining", "vm0", {"vm1"}, {}};
  d.shared = [&](const std::string&) { return verdict; };
  const EventSpec shared{.type = "Freeze", .resources = {"vm0", "vm1"}, .duration_s = 30};
  d.feed(doc(2, {shared}));
  Actions a = d.at(kDrainAt);
  BOOST_TEST((steps(a) == kDisable));
  BOOST_TEST(all_of<CheckSharedApproval>(a).size() == 1u);
  BOOST_TEST(logged(a, "shared_approval_waiting"));
  BOOST_TEST(all_of<Approve>(a).empty());
  BOOST_TEST(!logged(a, "approval_withheld"));
  a = d.feed_at(kDrainAt + 1s, doc(2, {shared}));  // asked again at every poll, logged on change only
  BOOST_TEST(all_of<CheckSharedApproval>(a).size() == 1u);
  BOOST_TEST(!logged(a, "shared_approval_waiting"));
  verdict = SharedOutcome{CoordinationResult::unavailable, "down", "", {}, {}};
  a = d.feed_at(kDrainAt + 2s, doc(2, {shared}));
  BOOST_TEST(all_of<Approve>(a).empty());  // never without etcd
  BOOST_TEST(logged(a, "coordination_unavailable"));
  verdict = SharedOutcome{};
  a = d.feed_at(kDrainAt + 3s, doc(2, {shared}));
  BOOST_TEST((all_of<Approve>(a) == std::vector<Approve>{Approve{"E1"}}));
}

BOOST_AUTO_TEST_CASE(start_with_the_node_in_service_releases_a_leftover_record) {
  const Actions a = Core(coordinated(), {}).start(StartupInfo{StateSource::loaded, "boot-1", true, true}, T0);
  BOOST_TEST(all_of<ReleaseDrain>(a).size() == 1u);
  AgentState drained;
  drained.node.out_of_service = drained.node.binary_disabled = drained.node.gossip_disabled = true;
  drained.node.drained_for = {"E1"};
  const Actions kept =
      Core(coordinated(), drained).start(StartupInfo{StateSource::loaded, "boot-1", false, false}, T0);
  BOOST_TEST(all_of<ReleaseDrain>(kept).empty());
  BOOST_TEST(all_of<ReleaseDrain>(started_core().start(StartupInfo{}, T0)).empty());  // uncoordinated
}

BOOST_AUTO_TEST_CASE(an_admission_no_drain_takes_is_released) {
  Core core = started_core(coordinated());
  core.on_document(doc(2, {kFreeze}), T0);
  BOOST_TEST(all_of<CheckSafety>(core.on_timer(kDrainAt)).size() == 1u);
  BOOST_TEST(all_of<Admit>(core.on_safety(SafetyResult{true, "ok", {}, {}}, kDrainAt)).size() == 1u);
  core.on_document(doc(3, {}), kDrainAt);  // cancelled while etcd answers
  const Actions a = core.on_admission(AdmissionOutcome{}, kDrainAt);
  BOOST_TEST(steps(a).empty());
  BOOST_TEST(all_of<ReleaseDrain>(a).size() == 1u);
}

BOOST_AUTO_TEST_SUITE_END()
