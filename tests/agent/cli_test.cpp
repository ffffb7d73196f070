// Command line: actions, --config forms, usage errors, and a --help text that teaches (its example parses).
#include "agent/cli.hpp"

#include <boost/test/unit_test.hpp>
#include <initializer_list>

#include "agent/config/config.hpp"

namespace {

cla::Result<cla::CliOptions> parse(std::initializer_list<const char*> args) {
  std::vector<std::string> storage{"cassandra-lifecycle-agent"};
  storage.insert(storage.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& s : storage) argv.push_back(s.data());
  argv.push_back(nullptr);
  return cla::parse_cli(static_cast<int>(storage.size()), argv.data());
}

std::string error_of(std::initializer_list<const char*> args) {
  auto result = parse(args);
  return result ? "(accepted)" : result.error().message;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(cli_test)

BOOST_AUTO_TEST_CASE(run_check_and_dry_run) {
  auto run = parse({"--config", "/etc/cla.json"});
  BOOST_TEST_REQUIRE(run.ok());
  BOOST_TEST((run->action == cla::CliAction::run));
  BOOST_TEST(run->config_path == "/etc/cla.json");
  BOOST_TEST(!run->dry_run);

  auto dry = parse({"--config=c.json", "--dry-run"});
  BOOST_TEST_REQUIRE(dry.ok());
  BOOST_TEST((dry->action == cla::CliAction::run));
  BOOST_TEST(dry->config_path == "c.json");
  BOOST_TEST(dry->dry_run);

  auto check = parse({"--check", "--config", "c.json"});
  BOOST_TEST_REQUIRE(check.ok());
  BOOST_TEST((check->action == cla::CliAction::check));
  BOOST_TEST(check->config_path == "c.json");
}

BOOST_AUTO_TEST_CASE(help_and_version_need_no_config) {
  auto help = parse({"--help"});
  BOOST_TEST_REQUIRE(help.ok());
  BOOST_TEST((help->action == cla::CliAction::help));
  auto help_wins = parse({"--config", "c.json", "--check", "--help"});
  BOOST_TEST_REQUIRE(help_wins.ok());
  BOOST_TEST((help_wins->action == cla::CliAction::help));
  auto version = parse({"--version"});
  BOOST_TEST_REQUIRE(version.ok());
  BOOST_TEST((version->action == cla::CliAction::version));
  BOOST_TEST(cla::version_text() == "cassandra-lifecycle-agent " CLA_VERSION);
}

BOOST_AUTO_TEST_CASE(usage_errors_say_what_is_wrong_in_one_line) {
  BOOST_TEST(error_of({}) == "missing --config FILE (the agent needs its configuration file)");
  BOOST_TEST(error_of({"--check"}) == "missing --config FILE (the agent needs its configuration file)");
  BOOST_TEST(error_of({"--dry-run"}) == "missing --config FILE (the agent needs its configuration file)");
  BOOST_TEST(error_of({"--config", ""}) == "--config needs a file name");
  BOOST_TEST(error_of({"--bogus"}) == "unrecognised option '--bogus'");
  BOOST_TEST(error_of({"--conf", "c.json"}) == "unrecognised option '--conf'");  // no prefix guessing
  BOOST_TEST(error_of({"--config"}) == "the required argument for option '--config' is missing");
  BOOST_TEST(error_of({"--config", "a.json", "--config", "b.json"}) ==
             "option '--config' cannot be specified more than once");
  BOOST_TEST(error_of({"--config", "c.json", "extra"}) ==
             "too many positional options have been specified on the command line");
  BOOST_TEST(error_of({"--config", "c.json", "--check=yes"}) != "(accepted)");
  BOOST_TEST(error_of({"--config", "c.json", "--check=yes"}).find('\n') == std::string::npos);
}

BOOST_AUTO_TEST_CASE(help_text_teaches_options_exit_codes_and_a_config) {
  const std::string help = cla::help_text();
  for (const char* needle : {"--config FILE", "--check", "--dry-run", "--help", "--version", "0  clean stop",
                             "1  fatal runtime error", "2  usage or configuration error", "SIGHUP",
                             "node.resource_name", "fault_domain_racks", "Examples:"})
    BOOST_TEST(help.find(needle) != std::string::npos, "help lacks: " << needle);
  BOOST_TEST(help.find(cla::ImdsConfig{}.endpoint) != std::string::npos, "help lacks the default endpoint");

  // The minimal example config in the help must itself be a valid config.
  const auto start = help.find("\n  {\n");
  const auto end = help.find("\n  }\n", start);
  BOOST_TEST_REQUIRE(start != std::string::npos);
  BOOST_TEST_REQUIRE(end != std::string::npos);
  const std::string example = help.substr(start + 1, end + 4 - start);
  auto config = cla::parse_config(example, "help example");
  BOOST_TEST_REQUIRE(config.ok(), (config ? "" : config.error().message) << "\n" << example);
  BOOST_TEST(config->node.resource_name == "cass-vm-0");
  BOOST_TEST(config->topology.fault_domain_racks.size() == 3u);
}

BOOST_AUTO_TEST_CASE(fleet_subcommand_takes_config_and_json) {
  const auto fleet = parse({"fleet", "--config", "c.json", "--json"});
  BOOST_TEST_REQUIRE(fleet.ok());
  BOOST_TEST((fleet->action == cla::CliAction::fleet));
  BOOST_TEST(fleet->config_path == "c.json");
  BOOST_TEST(fleet->json);
  BOOST_TEST(!parse({"fleet", "--config", "c.json"})->json);
  BOOST_TEST(error_of({"fleet"}).find("missing --config") != std::string::npos);
  BOOST_TEST(error_of({"fleet", "--config", "c.json", "--dry-run"}) != "(accepted)");
}

BOOST_AUTO_TEST_SUITE_END()
