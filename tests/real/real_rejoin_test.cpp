// A VM rebooted while its event is still listed (SPEC 3.6, issue 39), on real Cassandra. A Reboot is drained
// for and approved; the hook kills the JVM (the VM's loss) and the agent dies with the VM. The VM boots with
// a new boot id (CLA_BOOT_ID_FILE): Cassandra starts with it, serving gossip and clients as the case study's
// nodes do, and the agent starts again while the Reboot is still listed. Its state says drained and flushed;
// the node says otherwise. The agent must believe the node: node_rejoined_at_boot with both running, the node
// taken out again (disablebinary, disablegossip: no flush, no gate, no second approval of the Reboot), a
// Freeze of the same VM that arrives meanwhile approved only once the node is out, and the node back once
// both are gone.
#include <stdlib.h>

#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>
#include <filesystem>
#include <fstream>

#include "agent_scenario.hpp"
#include "real_agent.hpp"
#include "real_cluster.hpp"

namespace {

using namespace std::chrono_literals;
using namespace cla::test::real;

// The agent's boot id for the case (CLA_BOOT_ID_FILE), unset again after it: the other cases read the
// machine's.
class BootId {
 public:
  BootId() : path_(std::filesystem::path(CLA_REAL_CLUSTER_DIR) / "rejoin-boot-id") {
    ::setenv("CLA_BOOT_ID_FILE", path_.c_str(), 1);
  }
  ~BootId() { ::unsetenv("CLA_BOOT_ID_FILE"); }
  BootId(const BootId&) = delete;
  BootId& operator=(const BootId&) = delete;
  void set(const std::string& id) const { std::ofstream(path_) << id << "\n"; }

 private:
  std::filesystem::path path_;
};

}  // namespace

BOOST_AUTO_TEST_SUITE(real_rejoin_test)

BOOST_FIXTURE_TEST_CASE(rebooted_while_listed_is_taken_out_again_before_a_second_event, RealCase) {
  touched = {1};
  BootId boot;
  boot.set("boot-before");
  // The hook leaves the killed node down: the case plays the boot itself, while the Reboot is listed.
  auto emulator = start_emulator(false);
  constexpr int notice_s = 120, lead_s = 115, freeze_s = 5, complete_after_s = 5;
  RealAgent agent(*emulator, 1, {{"drain_lead_s", lead_s}});
  agent.start();
  JvmWatcher jvm(1);
  // Listed until the case cancels it.
  const std::string reboot = emulator->add_event({{"type", "Reboot"},
                                                  {"resources", {"vm1"}},
                                                  {"not_before_in_s", notice_s},
                                                  {"complete_after_s", 3600}});
  agent.wait_for("drain_completed", std::chrono::seconds(notice_s - lead_s) + kFreezeDrain + kNodetoolCall,
                 reboot);
  // quiet_s 0 in the real suite: the approval follows the drain's state write at once.
  const auto approved = agent.wait_for(
      "event_approved", std::chrono::ceil<std::chrono::seconds>(kPoll + cla::test::kMargin), reboot);
  require_impact(jvm, "gone", cla::test::log_time(approved), cla::test::kMargin, 1s);

  // The VM goes down with its agent, then boots: Cassandra first (serving), then the agent, new boot id.
  agent.kill();
  boot.set("boot-after");
  require_ok(cluster({"start", agent.address()}));
  BOOST_TEST_REQUIRE(serving(agent.address()), "Cassandra serves gossip and clients after the boot");
  const auto booted = cla::WallClock::now();
  agent.start();
  // A Freeze of the same VM follows while the node is being taken out: its drain is due at once.
  const std::string freeze = add_freeze(*emulator, "vm1", notice_s, freeze_s, complete_after_s);

  const auto rejoined = agent.wait_for("node_rejoined_at_boot", 2 * kNodetoolCall);
  // Running, or unknown: with the Reboot listed Started the start-up observation does not hold up its drain
  // (SPEC 3.9), and unknown counts as serving. Never "not running": the node serves.
  for (const char* flag : {"gossip_running", "binary_running"})
    BOOST_TEST((rejoined.at(flag).is_null() || rejoined.at(flag) == true), flag << ": " << rejoined.at(flag));
  BOOST_TEST(rejoined.at("boot_id") == "boot-after");
  // The start-up's reads are abandoned, then the take-out's two steps; the schema refresh runs beside them.
  const auto freeze_approved = agent.wait_for("event_approved", kFreezeDrain + kNodetoolCall, freeze);
  // Taken out again before the approval: the missing steps only (the reboot ended the flush's need).
  const auto steps = agent.mutations(booted);
  BOOST_TEST((steps == std::vector<std::string>{"disablebinary", "disablegossip"}),
             "steps after the boot: " << boost::json::value_from(steps));
  cla::WallTime gossip_off{};
  for (const auto& line : agent.log("nodetool_ran"))
    if (line.at("subcommand") == "disablegossip" && cla::test::log_time(line) > booted)
      gossip_off = cla::test::log_time(line);
  BOOST_TEST_REQUIRE((gossip_off != cla::WallTime{}), "disablegossip ran after the boot");
  BOOST_TEST(cla::test::ms_between(gossip_off, cla::test::log_time(freeze_approved)) >= 0,
             "the Freeze approved only once the node was out again");
  // Peers see it down (within a nodetool call: a peer may mark it up again during the shutdown announce).
  std::string peer_view;
  BOOST_TEST(
      cla::test::wait_until([&] { return (peer_view = seen_as(node_address(2), agent.address())) == "DN"; },
                            2 * kNodetoolCall),
      "peer view of the node taken out again: " << peer_view);
  // The Reboot was approved once, before the boot.
  std::size_t reboot_approvals = 0;
  for (const auto& a : emulator->approvals())
    if (cla::iequals(std::string(a.as_object().at("event_id").as_string()), reboot)) ++reboot_approvals;
  BOOST_TEST(reboot_approvals == 1u);
  BOOST_TEST(agent.log("impact_without_drain").empty());

  // The Freeze ends (the node stays out: the Reboot is listed), then the Reboot goes: the node comes back.
  BOOST_TEST_REQUIRE(cla::test::wait_until(
      [&] {
        for (const auto& e : emulator->events())
          if (e.as_object().at("EventId").as_string() == freeze) return false;
        return true;
      },
      // Started at its approval (now or earlier), removed duration + completion later.
      std::chrono::seconds(freeze_s + complete_after_s) + kPoll + cla::test::kMargin));
  BOOST_TEST(!agent.find("restore_started").has_value(), "held out while the Reboot is listed");
  emulator->cancel_event(reboot);
  const auto restored = agent.wait_for(
      "restore_completed", kRestore + std::chrono::ceil<std::chrono::seconds>(kPoll + cla::test::kMargin));
  BOOST_TEST(!restored.at("restarted").as_bool(), "nothing flushed since the boot: no restart");
  BOOST_TEST(serving(agent.address()));
  BOOST_TEST(cla::test::wait_until(up_in_every_view, 300s), "node UN in every view again");
  BOOST_TEST(agent.stop() == 0);
}

BOOST_AUTO_TEST_SUITE_END()
