// The real agent binary: exit codes 0/1/2 with their messages, --check output and warnings, refusals and
// warnings at start (an unsafe state directory, an exposed HTTP endpoint), signals (stop, log reopen).
#include <algorithm>
#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>
#include <csignal>
#include <fstream>

#include "agent_process.hpp"
#include "wait_margin.hpp"

namespace {

using namespace cla::test::agent_tests;
namespace fs = std::filesystem;

std::vector<std::string> msgs(const std::vector<boost::json::object>& lines) {
  std::vector<std::string> out;
  for (const auto& line : lines) out.emplace_back(line.at("msg").as_string());
  return out;
}

// Starts the agent on a safe config and waits until it has logged agent_started.
void start_and_wait(AgentProcess& agent, const fs::path& log) {
  BOOST_TEST_REQUIRE(wait_for_log_msg(log, "agent_started", kMargin),
                     "no agent_started; stderr: " << agent.err());
}

}  // namespace

BOOST_AUTO_TEST_SUITE(agent_cli_test)

BOOST_AUTO_TEST_CASE(help_and_version_exit_0) {
  AgentTempDir dir;
  auto help = run_agent({"--help"}, dir.path);
  BOOST_TEST((help.exit_code == 0));
  BOOST_TEST(help.out.find("--config FILE") != std::string::npos);
  BOOST_TEST(help.err.empty());
  auto version = run_agent({"--version"}, dir.path);
  BOOST_TEST((version.exit_code == 0));
  BOOST_TEST(version.out == "cassandra-lifecycle-agent " CLA_VERSION "\n");
}

BOOST_AUTO_TEST_CASE(usage_errors_exit_2_with_a_reason_and_a_pointer_to_help) {
  AgentTempDir dir;
  auto bogus = run_agent({"--bogus"}, dir.path);
  BOOST_TEST((bogus.exit_code == 2));
  BOOST_TEST(bogus.err == "cassandra-lifecycle-agent: unrecognised option '--bogus'\ntry --help\n");
  auto no_config = run_agent({"--dry-run"}, dir.path);
  BOOST_TEST((no_config.exit_code == 2));
  BOOST_TEST(no_config.err ==
             "cassandra-lifecycle-agent: missing --config FILE (the agent needs its configuration file)\ntry "
             "--help\n");
}

BOOST_AUTO_TEST_CASE(config_errors_exit_2_with_the_exact_line) {
  AgentTempDir dir;
  const auto missing = (dir.path / "nope.json").string();
  auto run = run_agent({"--config", missing}, dir.path);
  BOOST_TEST((run.exit_code == 2));
  BOOST_TEST(run.err == "config error: " + missing + ": -: cannot read file: No such file or directory\n");

  const auto typo = write_agent_config(dir.path, {{"imds", {{"endpont", "http://127.0.0.1:9"}}}}).string();
  for (const char* mode : {"--check", "--dry-run"}) {
    auto bad = run_agent({"--config", typo, mode}, dir.path);
    BOOST_TEST((bad.exit_code == 2), mode);
    BOOST_TEST(
        bad.err == "config error: " + typo + ": imds.endpont: unknown key; did you mean imds.endpoint?\n",
        mode);
  }
  BOOST_TEST(!fs::exists(dir.path / "log"));  // nothing started
}

BOOST_AUTO_TEST_CASE(check_prints_the_effective_config_as_json) {
  AgentTempDir dir;
  const auto config = write_agent_config(dir.path, {{"policy", {{"drain_lead_s", 45}}}});
  auto run = run_agent({"--config", config.string(), "--check"}, dir.path);
  BOOST_TEST_REQUIRE((run.exit_code == 0), run.err);
  const auto effective = boost::json::parse(run.out).as_object();
  BOOST_TEST(effective.at("policy").at("drain_lead_s").as_int64() == 45);
  BOOST_TEST(effective.at("policy").at("unsafe_drain_lead_s").as_int64() == 10);   // default
  BOOST_TEST(effective.at("imds").at("api_version").as_string() == "2020-07-01");  // default
  BOOST_TEST(effective.at("imds").at("endpoint").as_string() == "http://127.0.0.1:9");
  BOOST_TEST(effective.at("topology").at("fault_domain_racks").as_object().size() == 3u);
  BOOST_TEST(effective.at("topology").at("consistency").as_string() == "LOCAL_QUORUM");  // default
  BOOST_TEST(effective.at("topology").at("schema_refresh_s").as_int64() == 300);         // default
  BOOST_TEST(!fs::exists(dir.path / "log"));  // --check does not start logging
}

BOOST_AUTO_TEST_CASE(check_warns_on_stderr_and_still_exits_0) {
  AgentTempDir dir;
  fs::create_directories(dir.path / "state");
  fs::permissions(dir.path / "state", fs::perms::group_write, fs::perm_options::add);
  const auto config =
      write_agent_config(dir.path,
                         {{"cassandra", {{"nodetool", {"nodetool", "-u", "cassandra", "-pw", "s3cret"}}}}})
          .string();
  auto run = run_agent({"--config", config, "--check"}, dir.path);
  BOOST_TEST_REQUIRE((run.exit_code == 0), run.err);
  BOOST_TEST(boost::json::parse(run.out).is_object());
  const std::string nodetool =
      "config warning: " + config + ": cassandra.nodetool[3]: \"-pw\" puts the JMX password";
  BOOST_TEST(run.err.rfind(nodetool, 0) == 0, run.err);
  const std::string state = "\nconfig warning: " + config + ": state_file: state directory " +
                            (dir.path / "state").string() + " is writable by its group";
  BOOST_TEST(run.err.find(state) != std::string::npos, run.err);
  BOOST_TEST(run.err.find("s3cret") == std::string::npos, "the password is never printed");
}

BOOST_AUTO_TEST_CASE(a_state_directory_others_can_write_stops_the_start) {
  AgentTempDir dir;
  fs::create_directories(dir.path / "state");
  fs::permissions(dir.path / "state", fs::perms::others_write, fs::perm_options::add);
  auto run = run_agent({"--config", write_agent_config(dir.path).string()}, dir.path);
  BOOST_TEST((run.exit_code == 1));
  const auto lines = read_json_lines(dir.path / "log" / "agent.jsonl");
  const auto unsafe = std::find_if(lines.begin(), lines.end(), [](const auto& line) {
    return line.at("msg").as_string() == "state_file_unsafe";
  });
  BOOST_REQUIRE(unsafe != lines.end());
  const std::string error(unsafe->at("error").as_string());
  BOOST_TEST(
      error.rfind("state directory " + (dir.path / "state").string() + " is writable by others", 0) == 0,
      error);
  BOOST_TEST(!fs::exists(dir.path / "state" / "state.json"));
}

// 0.0.0.0 port 0: every local address, a free port; nothing is sent anywhere.
BOOST_AUTO_TEST_CASE(a_listen_address_beyond_loopback_is_logged_as_exposed) {
  for (const char* listen : {"0.0.0.0:0", "127.0.0.1:0"}) {
    AgentTempDir dir;
    const auto log = dir.path / "log" / "agent.jsonl";
    AgentProcess agent({"--config", write_agent_config(dir.path, {{"http", {{"listen", listen}}}}).string()},
                       dir.path);
    BOOST_TEST_REQUIRE(wait_for_log_msg(log, "http_listening", kMargin), "stderr: " << agent.err());
    agent.send_signal(SIGTERM);
    BOOST_TEST((agent.wait_for_exit(kMargin) == 0));
    const auto lines = read_json_lines(log);
    const auto exposed = std::find_if(lines.begin(), lines.end(), [](const auto& line) {
      return line.at("msg").as_string() == "http_listen_exposed";
    });
    if (std::string(listen) == "127.0.0.1:0") {
      BOOST_TEST((exposed == lines.end()), "loopback logs nothing new");
      continue;
    }
    BOOST_REQUIRE(exposed != lines.end());
    BOOST_TEST(exposed->at("level").as_string() == "warning");
    BOOST_TEST(exposed->at("listen").as_string() == listen);
    BOOST_TEST(std::string(exposed->at("serves").as_string()).find("/state") != std::string::npos);
    BOOST_TEST(exposed->contains("hint"));
  }
}

BOOST_AUTO_TEST_CASE(a_log_file_that_cannot_be_created_exits_1) {
  AgentTempDir dir;
  std::ofstream(dir.path / "plain") << "a regular file, not a directory";
  const auto log = (dir.path / "plain" / "agent.jsonl").string();
  const auto config = write_agent_config(dir.path, {{"log", {{"file", log}}}});
  auto run = run_agent({"--config", config.string()}, dir.path);
  BOOST_TEST((run.exit_code == 1));
  BOOST_TEST(
      run.err.rfind("cassandra-lifecycle-agent: cannot create log directory " + (dir.path / "plain").string(),
                    0) == 0,
      run.err);
}

// Nothing in flight holds a stop: it ends within kMargin.
BOOST_AUTO_TEST_CASE(sigterm_and_sigint_stop_cleanly) {
  for (int number : {SIGTERM, SIGINT}) {
    AgentTempDir dir;
    const auto log = dir.path / "log" / "agent.jsonl";
    AgentProcess agent({"--config", write_agent_config(dir.path).string(), "--dry-run"}, dir.path);
    start_and_wait(agent, log);
    agent.send_signal(number);
    BOOST_TEST((agent.wait_for_exit(kMargin) == 0), "signal " << number);
    const auto lines = read_json_lines(log);
    BOOST_REQUIRE(lines.size() >= 2u);
    BOOST_TEST(msgs(lines).front() == "agent_started");
    BOOST_TEST(msgs(lines).back() == "agent_stopped");
    BOOST_TEST(lines.front().at("dry_run").as_bool());
    BOOST_TEST(lines.front().at("resource_name").as_string() == "vm0");
    BOOST_TEST(lines.back().at("reason").as_string() == (number == SIGTERM ? "SIGTERM" : "SIGINT"));
    BOOST_TEST(agent.err().empty());  // stderr is not a terminal here: lines go to the file only
  }
}

BOOST_AUTO_TEST_CASE(sighup_reopens_the_log_file_after_rotation) {
  AgentTempDir dir;
  const auto log = dir.path / "log" / "agent.jsonl";
  const auto rotated = dir.path / "log" / "agent.jsonl.1";
  AgentProcess agent({"--config", write_agent_config(dir.path).string()}, dir.path);
  start_and_wait(agent, log);
  fs::rename(log, rotated);
  agent.send_signal(SIGHUP);
  BOOST_TEST_REQUIRE(wait_for_log_msg(log, "log_reopened", kMargin));
  agent.send_signal(SIGTERM);
  BOOST_TEST((agent.wait_for_exit(kMargin) == 0));
  const auto before = msgs(read_json_lines(rotated));
  const auto after = msgs(read_json_lines(log));
  BOOST_REQUIRE(!before.empty());
  BOOST_REQUIRE(!after.empty());
  BOOST_TEST(before.front() == "agent_started");
  BOOST_TEST(std::count(before.begin(), before.end(), "agent_stopped") == 0);
  BOOST_TEST(after.front() == "log_reopened");
  BOOST_TEST(after.back() == "agent_stopped");
}

BOOST_AUTO_TEST_SUITE_END()
