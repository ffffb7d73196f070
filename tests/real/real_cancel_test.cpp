// A Reboot cancelled after the drain, on real Cassandra: a drained node refuses enablegossip and
// enablebinary, so the agent's restore restarts it (restart_command) before enabling and confirming.
#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>

#include "agent_scenario.hpp"
#include "real_agent.hpp"
#include "real_cluster.hpp"

namespace {

using namespace std::chrono_literals;
using namespace cla::test::real;

}  // namespace

BOOST_AUTO_TEST_SUITE(real_cancel_test)

BOOST_FIXTURE_TEST_CASE(cancel_after_drain_restarts_the_drained_node, RealCase) {
  touched = {2};
  auto emulator = start_emulator();
  constexpr int notice_s = 600, lead_s = 595;
  RealAgent agent(*emulator, 2, {{"drain_lead_s", lead_s}});
  agent.start();
  // Shared with another tenant's VM: drained but not approved, so nothing starts it before the cancel.
  const std::string id = emulator->add_event(
      {{"type", "Reboot"}, {"resources", {"vm2", "other-tenant"}}, {"not_before_in_s", notice_s}});
  agent.wait_for("drain_completed", 300s, id);
  BOOST_TEST(emulator->approvals().empty());

  // What the real node says to enable* after nodetool drain (the reason a restart is needed).
  for (const char* sub : {"enablegossip", "enablebinary"}) {
    const auto out = nodetool(agent.address(), sub);
    BOOST_TEST(!out.ok(), sub << " after drain: " << out.summary());
    BOOST_TEST_MESSAGE(sub << " after drain: " << out.summary());
  }

  emulator->cancel_event(id);
  const auto restored = agent.wait_for("restore_completed", 600s);
  BOOST_TEST(restored.at("restarted").as_bool());
  BOOST_TEST(agent.find("restart_needed").has_value());
  BOOST_TEST(serving(agent.address()));
  BOOST_TEST(cla::test::wait_until(up_in_every_view, 300s));
  agent.report_timings("cancel after drain");
  BOOST_TEST(agent.stop() == 0);
}

BOOST_AUTO_TEST_SUITE_END()
