// A Reboot on real Cassandra: disablebinary, disablegossip, nodetool drain; the approval starts it and the
// hook kills the JVM (the VM's loss); the VM does not come back by itself here (IMPACT_HOOK_RESTART=0), so
// once the event is gone the agent finds the node not serving and its restart_command brings it back
// without its native transport (--no-binary): the restore opens it.
#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>

#include "agent_scenario.hpp"
#include "real_agent.hpp"
#include "real_cluster.hpp"

namespace {

using namespace std::chrono_literals;
using namespace cla::test::real;

}  // namespace

BOOST_AUTO_TEST_SUITE(real_reboot_test)

BOOST_FIXTURE_TEST_CASE(reboot_drains_flushes_and_restart_command_brings_it_back, RealCase) {
  touched = {1};
  auto emulator = start_emulator(false);
  constexpr int notice_s = 180, lead_s = 175, complete_after_s = 5;
  RealAgent agent(*emulator, 1, {{"drain_lead_s", lead_s}});
  agent.start();
  const std::string id = emulator->add_event({{"type", "Reboot"},
                                              {"resources", {"vm1"}},
                                              {"not_before_in_s", notice_s},
                                              {"complete_after_s", complete_after_s}});
  agent.wait_for("drain_completed", std::chrono::seconds(notice_s - lead_s) + 240s, id);
  std::vector<std::string> mutations;
  for (const auto& line : agent.log("nodetool_ran"))
    if (const std::string sub(line.at("subcommand").as_string());
        sub.starts_with("disable") || sub == "drain")
      mutations.push_back(sub);
  BOOST_TEST((mutations == std::vector<std::string>{"disablebinary", "disablegossip", "drain"}));
  agent.wait_for("event_approved", 60s, id);

  // Started at approval: the hook kills the node; removed complete_after_s later.
  BOOST_TEST(cla::test::wait_until([&] { return seen_as(node_address(2), agent.address()) == "DN"; }, 120s));
  const auto restored = agent.wait_for("restore_completed", std::chrono::seconds(complete_after_s) + 600s);
  BOOST_TEST(restored.at("restarted").as_bool(), "restart_command brought it back");
  BOOST_TEST(!restored.at("already_serving").as_bool());
  BOOST_TEST(agent.find("restart_needed").has_value(), "checked before restarting");
  BOOST_TEST(serving(agent.address()));
  // restart_command starts Cassandra with --no-binary: clients come back when the restore opens the port.
  BOOST_TEST(cql_opened_by(1).starts_with(agent_step_thread()), "CQL port opened by: " << cql_opened_by(1));
  BOOST_TEST(cla::test::wait_until(up_in_every_view, 300s));
  agent.report_timings("reboot");
  BOOST_TEST(agent.stop() == 0);
}

BOOST_AUTO_TEST_SUITE_END()
