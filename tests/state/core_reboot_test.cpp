// SPEC 3.6, after a reboot: the state's flags follow what the node shows, the node is taken out again while
// an event it was drained for is listed (no gate, no flush, no new approval), a further event is approved
// only once the node is out, an event first seen Started gets its emergency drain, and the member phase says
// what the node is. Every combination of: rebooted or not; gossip and binary found up, down or unknown; the
// Reboot drained for still listed or gone; no further event, a further one scheduled, or one first seen
// Started.
#include <boost/test/unit_test.hpp>
#include <ostream>

#include "core_harness.hpp"
#include "state/core.hpp"

using namespace cla;
using namespace cla::test;

namespace {

enum class Shown { up, down, unknown };
enum class Further { none, scheduled, first_seen_started };

std::ostream& operator<<(std::ostream& os, Shown s) {
  return os << (s == Shown::up ? "up" : s == Shown::down ? "down" : "unknown");
}
std::ostream& operator<<(std::ostream& os, Further f) {
  return os << (f == Further::none ? "none" : f == Further::scheduled ? "scheduled" : "first seen Started");
}

std::optional<bool> running(Shown s) {
  if (s == Shown::unknown) return std::nullopt;
  return s == Shown::up;
}

const EventSpec kReboot{.id = "R", .type = "Reboot", .not_before_in = 1min};
const EventSpec kRebootStarted{.id = "R", .type = "Reboot", .status = EventStatus::started};
const EventSpec kFurtherFreeze{.id = "F", .type = "Freeze", .not_before_in = 10min, .duration_s = 30};
const EventSpec kFurtherStarted{.id = "F", .type = "Reboot", .status = EventStatus::started};

// The state on disk once the Reboot was drained for (flushed) and approved.
AgentState drained_and_approved() {
  Core first = started_core();
  Driver d{first};
  d.feed(doc(2, {kReboot}));
  d.at(T0 + 30s);
  BOOST_REQUIRE(first.state().node.flushed);
  BOOST_REQUIRE(first.state().events.at("R").approved);
  return first.state();
}

boost::json::object fields_of(const Actions& actions, const std::string& msg) {
  const LogAction* line = find_log(actions, msg);
  BOOST_REQUIRE_MESSAGE(line, "no " << msg << " line");
  return line->fields;
}

std::size_t count(const std::vector<Step>& steps, Step step) {
  return static_cast<std::size_t>(std::count(steps.begin(), steps.end(), step));
}

}  // namespace

BOOST_AUTO_TEST_SUITE(core_reboot_test)

BOOST_AUTO_TEST_CASE(every_combination_after_a_restart) {
  const AgentState on_disk = drained_and_approved();
  for (const bool rebooted : {false, true})
    for (const Shown gossip : {Shown::up, Shown::down, Shown::unknown})
      for (const Shown binary : {Shown::up, Shown::down, Shown::unknown})
        for (const bool still_listed : {true, false})
          for (const Further further : {Further::none, Further::scheduled, Further::first_seen_started}) {
            BOOST_TEST_CONTEXT("rebooted " << rebooted << ", gossip " << gossip << ", binary " << binary
                                           << ", the Reboot still listed " << still_listed
                                           << ", further event " << further) {
              Core core(test_policy(), on_disk);
              const StartupInfo info{StateSource::loaded, rebooted ? "boot-2" : "boot-1", running(gossip),
                                     running(binary)};
              const Actions at_start = core.start(info, T0 + 2min);
              BOOST_TEST(logged(at_start, "node_rejoined_at_boot") == rebooted);
              if (rebooted) {
                const NodeDrainState& node = core.state().node;
                BOOST_TEST(!node.flushed, "memtables of the old process: no longer flushed");
                BOOST_TEST(node.gossip_disabled == (gossip == Shown::down));
                BOOST_TEST(node.binary_disabled == (binary == Shown::down));
                const MemberPhase expected = gossip == Shown::down && binary == Shown::down
                                                 ? MemberPhase::drained
                                                 : MemberPhase::draining;
                BOOST_TEST((core.member_phase() == expected), "the member key says what the node is");
              } else {
                BOOST_TEST((core.member_phase() == MemberPhase::drained), "no reboot: the flags stand");
              }

              Driver d{core, T0 + 2min};
              std::vector<std::string> approved;
              d.approval = [&](const std::string& id) {
                const NodeDrainState& node = core.state().node;
                BOOST_TEST((node.binary_disabled && node.gossip_disabled),
                           "approval of " << id << " while the node is not out");
                approved.push_back(id);
                return ApprovalOutcome{ApprovalResult::ok, ""};
              };
              std::vector<EventSpec> events;
              if (still_listed) events.push_back(kRebootStarted);
              if (further == Further::scheduled) events.push_back(kFurtherFreeze);
              if (further == Further::first_seen_started) events.push_back(kFurtherStarted);
              Actions a = d.feed(doc(3, events));
              if (further == Further::scheduled) {
                const Actions later = d.at(T0 + 10min - 30s);
                a.insert(a.end(), later.begin(), later.end());
              }
              const std::vector<Step> ran = steps(a);
              const bool takes_out = still_listed || further != Further::none;
              // R gone at the first document and nothing Started: the node is restored (and a further
              // scheduled event drains it later, through the gate, as it would any serving node).
              const bool restores = !still_listed && further != Further::first_seen_started;
              const bool drains_serving_node_later = !still_listed && further == Further::scheduled;

              // Not flushed again for the Reboot that came; a further Reboot first seen Started after the
              // reboot is a new impact and gets its flush (before the reboot, the node is flushed already).
              BOOST_TEST(count(ran, Step::flush) ==
                         (rebooted && further == Further::first_seen_started ? 1u : 0u));
              BOOST_TEST(count(ran, Step::restart_cassandra) == 0u);
              std::size_t disable_binary = 0, disable_gossip = 0;
              if (drains_serving_node_later) {
                disable_binary = disable_gossip = 1;
              } else if (rebooted && takes_out) {
                disable_binary = binary == Shown::down ? 0 : 1;
                disable_gossip = gossip == Shown::down ? 0 : 1;
              }
              BOOST_TEST(count(ran, Step::disable_binary) == disable_binary);
              BOOST_TEST(count(ran, Step::disable_gossip) == disable_gossip);
              // A restore enables what the node showed disabled and what nobody could tell; before a reboot
              // the flushed node (no restart_command) is only confirmed.
              BOOST_TEST(count(ran, Step::enable_gossip) ==
                         (restores && rebooted && gossip != Shown::up ? 1u : 0u));
              BOOST_TEST(count(ran, Step::enable_binary) ==
                         (restores && rebooted && binary != Shown::up ? 1u : 0u));
              BOOST_TEST(logged(a, "restore_completed") == restores);
              BOOST_TEST(core.state().node.out_of_service == takes_out);
              if (takes_out) {
                BOOST_TEST((core.state().node.binary_disabled && core.state().node.gossip_disabled));
                BOOST_TEST((core.member_phase() == MemberPhase::drained));
              }
              // The gate is asked only for a drain that takes a serving node out: never for the node taken
              // out again for the Reboot it was drained for.
              BOOST_TEST(all_of<CheckSafety>(a).size() == (drains_serving_node_later ? 1u : 0u));
              BOOST_TEST(std::count(approved.begin(), approved.end(), "R") == 0, "R was approved before");
              BOOST_TEST(std::count(approved.begin(), approved.end(), "F") ==
                         (further == Further::scheduled ? 1 : 0));
              const bool out_at_boot = !rebooted || (gossip == Shown::down && binary == Shown::down);
              BOOST_TEST(logged(a, "impact_without_drain") ==
                         (further == Further::first_seen_started && !out_at_boot));
            }
          }
}

// The retaken drain belongs to this boot: when the Reboot goes, the restore enables the node without a
// restart (nothing was flushed), and the back-to-back hold works again.
BOOST_AUTO_TEST_CASE(taken_out_again_then_restored_when_the_event_goes) {
  Core core(test_policy(), drained_and_approved());
  core.start({StateSource::loaded, "boot-2", true, true}, T0 + 2min);
  Driver d{core, T0 + 2min};
  Actions a = d.feed(doc(3, {kRebootStarted}));
  BOOST_TEST((steps(a) == kDisable));
  const auto completed = fields_of(a, "drain_completed");
  BOOST_TEST(completed.at("after_reboot").as_bool());
  BOOST_TEST(core.state().node.boot_id_at_drain == "boot-2");
  a = d.feed_at(T0 + 4min, doc(4, {}));
  BOOST_TEST((steps(a) == kRestore));
  BOOST_TEST(logged(a, "restore_completed"));
}

// Killed after the start-up persisted the new boot id but before the node was out again: the next start
// sees no reboot in the state's boot id, but the drain's boot is still the old one, and no flush comes.
BOOST_AUTO_TEST_CASE(killed_before_the_node_was_out_again) {
  Core core(test_policy(), drained_and_approved());
  core.start({StateSource::loaded, "boot-2", true, true}, T0 + 2min);
  const AgentState on_disk = core.state();
  auto reloaded = decode_state(boost::json::serialize(encode_state(on_disk)));
  BOOST_REQUIRE(reloaded.ok());
  BOOST_TEST(reloaded.value().events.at("R").rebooted_through);

  Core again(test_policy(), reloaded.value());
  again.start({StateSource::loaded, "boot-2", true, true}, T0 + 3min);
  Driver d{again, T0 + 3min};
  const Actions a = d.feed(doc(3, {kRebootStarted}));
  BOOST_TEST((steps(a) == kDisable));
}

// The retaking waits for a document: an event gone during the reboot is not drained for on a timer first.
BOOST_AUTO_TEST_CASE(no_step_before_a_document_shows_the_event) {
  Core core(test_policy(), drained_and_approved());
  core.start({StateSource::loaded, "boot-2", true, true}, T0 + 2min);
  Driver d{core, T0 + 2min};
  BOOST_TEST(steps(d.at(T0 + 2min + 1s)).empty());
}

BOOST_AUTO_TEST_SUITE_END()
