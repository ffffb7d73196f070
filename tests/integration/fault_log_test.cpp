// Fault matrix: the agent's own log under stress. A storm of SIGHUPs, the log file deleted, the log
// directory refusing writes: the agent keeps draining and approving, and tells each trouble once on stderr.
#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>
#include <csignal>
#include <fstream>

#include "agent_scenario.hpp"

namespace {

using namespace cla::test::agent_tests;
namespace fs = std::filesystem;

std::size_t occurrences(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// A user Reboot (drained at once, approved, removed 1 s after) and its restore; checked through the
// simulator and the emulator, which do not depend on the agent's log.
void drain_and_restore_once(AgentScenario& s) {
  const std::size_t approvals = s.emulator().approvals().size();
  const std::string id = s.emulator().add_event({{"type", "Reboot"},
                                                 {"resources", {"vm0"}},
                                                 {"source", "User"},
                                                 {"not_before_in_s", 600},
                                                 {"complete_after_s", 1}});
  BOOST_TEST_REQUIRE(cla::test::wait_until([&] { return s.emulator().approvals().size() > approvals; },
                                           s.within_a_poll() * 2));
  BOOST_TEST_REQUIRE(
      cla::test::wait_until([&] { return s.emulator().events().empty(); }, s.until_removed(id)));
  BOOST_TEST(cla::test::wait_until([&] { return s.node_restored(); }, s.within_a_poll() * 2));
}

}  // namespace

BOOST_AUTO_TEST_SUITE(fault_log_test)

BOOST_AUTO_TEST_CASE(a_sighup_storm_reopens_the_log_and_changes_nothing_else) {
  AgentScenario s;
  s.start_agent();
  const int storm = 300;
  for (int i = 0; i < storm; ++i) s.agent().send_signal(SIGHUP);
  drain_and_restore_once(s);
  for (int i = 0; i < storm; ++i) s.agent().send_signal(SIGHUP);
  BOOST_TEST(cla::test::wait_until([&] { return !s.log("log_reopened").empty(); }, kMargin));
  s.wait_for("restore_completed", kMargin);
  BOOST_TEST(s.log("log_reopen_failed").empty());
  BOOST_TEST(s.log("restore_completed").size() == 1u);
  BOOST_TEST(s.stop_agent() == 0);
  BOOST_TEST(s.agent().err().empty(), s.agent().err());
}

BOOST_AUTO_TEST_CASE(a_deleted_log_file_is_created_again) {
  AgentScenario s;
  s.start_agent();
  fs::remove(s.log_file());
  drain_and_restore_once(s);
  s.wait_for("restore_completed", kMargin);  // in the new file
  BOOST_TEST(s.log("restore_completed").size() == 1u);
  BOOST_TEST(s.log("agent_started").empty(), "the new file holds only the lines after the deletion");
  const std::string err = s.agent().err();
  BOOST_TEST(occurrences(err, "was deleted; created it again") == 1u, err);
}

// The log file deleted and its directory gone, a plain file in its place (so that even root cannot create
// the log there): the lines go to stderr, the trouble is told once there, and the agent goes on. Once the
// directory is back, so is the file.
BOOST_AUTO_TEST_CASE(an_uncreatable_log_file_sends_the_lines_to_stderr) {
  AgentScenario s;
  const fs::path dir = s.log_file().parent_path();
  s.start_agent();
  fs::remove_all(dir);
  std::ofstream(dir).put('x');

  drain_and_restore_once(s);
  BOOST_TEST(cla::test::wait_until(
                 [&] { return occurrences(s.agent().err(), "\"msg\":\"restore_completed\"") == 1; }, kMargin),
             "the lines went to stderr");
  const std::string err = s.agent().err();
  BOOST_TEST(occurrences(err, "was deleted and cannot be created again") == 1u, err);

  fs::remove(dir);
  fs::create_directory(dir);
  drain_and_restore_once(s);
  s.wait_for("restore_completed", kMargin);
  BOOST_TEST(s.log("restore_completed").size() == 1u, "the file is back for the second restore");
  BOOST_TEST(s.stop_agent() == 0);
}

BOOST_AUTO_TEST_SUITE_END()
