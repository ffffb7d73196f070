// imds-emulator --impact-hook over real processes: start and end phases per listed VM with the documented
// environment, a failing hook logged but not fatal, and a hook that holds never blocking the server.
#include <boost/beast/http/verb.hpp>
#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "agent_scenario.hpp"
#include "cassandra_support.hpp"
#include "imds_emulator_process.hpp"

namespace {

using namespace cla::test::emulator_tests;

// A hook that appends one line per run: "PHASE VM ID TYPE SOURCE DURATION", then fails for vm1 and, when
// HOLD names a file, waits for it to exist before exiting (so the test can prove that the server goes on).
std::string write_hook(const cla::test::TempDir& dir) {
  const std::string path = dir.file("hook.sh");
  cla::test::write_text(path,
                        "#!/bin/bash\n"
                        "echo \"$IMDS_PHASE $IMDS_VM $IMDS_EVENT_ID $IMDS_EVENT_TYPE $IMDS_EVENT_SOURCE "
                        "$IMDS_DURATION_S\" >> '" +
                            dir.file("runs.txt") +
                            "'\n"
                            "if [ \"$IMDS_VM\" = vm1 ]; then echo 'vm1 hook fails' >&2; exit 3; fi\n"
                            "while [ \"$IMDS_PHASE\" = start ] && [ ! -e '" +
                            dir.file("release") + "' ]; do sleep 0.05; done\n");
  std::filesystem::permissions(path, std::filesystem::perms::owner_all);
  return path;
}

std::vector<std::string> runs(const cla::test::TempDir& dir) {
  std::vector<std::string> lines;
  std::ifstream in(dir.file("runs.txt"));
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

bool has_run(const cla::test::TempDir& dir, const std::string& line) {
  const auto all = runs(dir);
  return std::find(all.begin(), all.end(), line) != all.end();
}

}  // namespace

BOOST_AUTO_TEST_SUITE(imds_emulator_hook_test)

BOOST_AUTO_TEST_CASE(help_documents_the_hook) {
  const auto run = cla::test::run_emulator_to_exit({"--help"});
  for (const char* text : {"--impact-hook PATH", "IMDS_PHASE=start", "IMDS_PHASE=end", "IMDS_VM",
                           "IMDS_EVENT_ID", "IMDS_EVENT_TYPE", "IMDS_EVENT_SOURCE", "IMDS_DURATION_S"})
    BOOST_TEST(run.out.find(text) != std::string::npos, text);
  const auto missing = cla::test::run_emulator_to_exit(
      {"--vm", "vm0,0,127.0.0.1:0", "--impact-hook", "/nonexistent/impact-hook"});
  BOOST_TEST(missing.exit_code == 2);
  BOOST_TEST(missing.err.find("--impact-hook") != std::string::npos, missing.err);
}

BOOST_AUTO_TEST_CASE(start_and_end_per_listed_vm_a_failing_or_held_hook_never_stops_the_server) {
  cla::test::TempDir dir;
  ImdsEmulatorProcess emulator({{"vm0", 0}, {"vm1", 1}, {"vm2", 2}}, {"--impact-hook", write_hook(dir)});
  constexpr int notice_s = 1, duration_s = 2, complete_after_s = 1;
  const std::string id = emulator.add_event({{"type", "Freeze"},
                                             {"resources", {"vm0", "VM1", "other-tenant"}},
                                             {"not_before_in_s", notice_s},
                                             {"duration_s", duration_s},
                                             {"complete_after_s", complete_after_s}});
  const cla::WallTime not_before(
      std::chrono::milliseconds(emulator.events().at(0).at("not_before_ms").to_number<std::int64_t>()));
  const cla::WallTime removal = not_before + std::chrono::seconds(duration_s + complete_after_s);
  const std::string tail = " " + id + " Freeze Platform " + std::to_string(duration_s);

  // vm0's start run holds until released; vm1's fails at once. The server answers meanwhile and the event
  // runs its course (it is removed after its duration: the hook does not hold the model either).
  BOOST_TEST_REQUIRE(
      cla::test::wait_until([&] { return has_run(dir, "start vm0" + tail); }, until(not_before)));
  BOOST_TEST(cla::test::wait_until([&] { return has_run(dir, "start vm1" + tail); }, kMargin));
  BOOST_TEST(cla::test::wait_until([&] { return has_run(dir, "end vm1" + tail); }, until(removal)));
  BOOST_TEST(emulator.events().empty());
  const auto reply =
      cla::test::http_call(emulator.vm_port("vm0"), http::verb::get,
                           "/metadata/scheduledevents?api-version=2020-07-01", {}, {{"Metadata", "true"}});
  BOOST_TEST(reply.status == 200u);
  BOOST_TEST(!has_run(dir, "end vm0" + tail));  // vm0's runs keep their order: end waits for start

  cla::test::write_text(dir.file("release"), "");
  BOOST_TEST(cla::test::wait_until([&] { return has_run(dir, "end vm0" + tail); }, kMargin));

  // A hardware failure (Started at once) cancelled: start then end, for vm2 only.
  const std::string failed = emulator.add_event(
      {{"type", "Reboot"}, {"resources", {"vm2"}}, {"started", true}, {"complete_after_s", 600}});
  BOOST_TEST(cla::test::wait_until(
      [&] { return has_run(dir, "start vm2 " + failed + " Reboot Platform -1"); }, kMargin));
  emulator.cancel_event(failed);
  BOOST_TEST(cla::test::wait_until([&] { return has_run(dir, "end vm2 " + failed + " Reboot Platform -1"); },
                                   kMargin));

  const auto all = runs(dir);
  BOOST_TEST(all.size() == 6u);
  for (const auto& line : all) BOOST_TEST(line.find("other-tenant") == std::string::npos, line);
  BOOST_TEST(emulator.stop() == 0);
}

BOOST_AUTO_TEST_SUITE_END()
