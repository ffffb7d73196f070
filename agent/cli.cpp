// Parses the command line with Boost.Program_options and writes the --help text.
#include "agent/cli.hpp"

#include <boost/program_options.hpp>
#include <sstream>

namespace cla {
namespace {

namespace po = boost::program_options;

po::options_description option_descriptions() {
  po::options_description options("Options", 110, 60);
  options.add_options()  //
      ("config", po::value<std::string>()->value_name("FILE"),
       "JSON configuration file (required to run or check)")  //
      ("check",
       "validate FILE, print the effective configuration (defaults filled in), warn on stderr about what it "
       "exposes (a JMX password on nodetool's command line, a state directory others can write), exit")  //
      ("dry-run", "log the actions it would take; mutate nothing, approve nothing, write no state")      //
      ("help", "show this help and exit")                                                                //
      ("version", "print the version and exit");
  return options;
}

}  // namespace

// `fleet --config FILE [--json]`: what etcd knows of the cluster's agents (SPEC 9).
Result<CliOptions> parse_fleet(int argc, char** argv) {
  po::options_description options;
  options.add_options()("config", po::value<std::string>())("json", "");
  po::variables_map vm;
  try {
    const int style = po::command_line_style::unix_style ^ po::command_line_style::allow_guessing;
    po::store(po::command_line_parser(argc - 1, argv + 1)
                  .options(options)
                  .positional(po::positional_options_description{})
                  .style(style)
                  .run(),
              vm);
  } catch (const po::error& e) {
    return make_error(std::string("fleet: ") + e.what());
  }
  CliOptions out;
  out.action = CliAction::fleet;
  out.json = vm.count("json") > 0;
  if (!vm.count("config") || vm["config"].as<std::string>().empty())
    return make_error("fleet: missing --config FILE (its coordination.* section names etcd and the cluster)");
  out.config_path = vm["config"].as<std::string>();
  return out;
}

Result<CliOptions> parse_cli(int argc, char** argv) {
  if (argc > 1 && std::string(argv[1]) == "fleet") return parse_fleet(argc, argv);
  po::variables_map vm;
  try {
    // No guessing: "--conf" must not silently mean "--config".
    const int style = po::command_line_style::unix_style ^ po::command_line_style::allow_guessing;
    const po::positional_options_description no_positionals;  // a stray word is an error, not ignored
    po::store(po::command_line_parser(argc, argv)
                  .options(option_descriptions())
                  .positional(no_positionals)
                  .style(style)
                  .run(),
              vm);
  } catch (const po::error& e) {
    return make_error(e.what());
  }
  CliOptions options;
  options.dry_run = vm.count("dry-run") > 0;
  if (vm.count("help")) {
    options.action = CliAction::help;
    return options;
  }
  if (vm.count("version")) {
    options.action = CliAction::version;
    return options;
  }
  options.action = vm.count("check") ? CliAction::check : CliAction::run;
  if (!vm.count("config"))
    return make_error("missing --config FILE (the agent needs its configuration file)");
  options.config_path = vm["config"].as<std::string>();
  if (options.config_path.empty()) return make_error("--config needs a file name");
  return options;
}

std::string version_text() {
  return "cassandra-lifecycle-agent " CLA_VERSION;
}

std::string help_text() {
  std::ostringstream out;
  out << version_text() << R"(
Keeps a Cassandra node available through Azure VM maintenance: it polls IMDS Scheduled Events and, shortly
before the impact, drains the node (when the cluster can spare it), approves the event, then restores the node.

Usage:
  cassandra-lifecycle-agent --config FILE [--dry-run]   run until SIGTERM/SIGINT, then exit 0
  cassandra-lifecycle-agent --config FILE --check       validate, print the effective config, exit 0
  cassandra-lifecycle-agent fleet --config FILE [--json]
                                 coordinated mode: every agent's member key, every recorded drain, and per
                                 pending event which listed VMs are drained (read from etcd and IMDS)
  cassandra-lifecycle-agent --help | --version

)" << option_descriptions()
      << R"(
Exit codes:
  0  clean stop (SIGTERM or SIGINT), or --check (warnings or none), --help, --version done
  1  fatal runtime error (for example the log file cannot be opened); the reason is on stderr or in the log
  2  usage or configuration error; the message names the file, the key path and what is wrong

Signals: SIGTERM and SIGINT stop the agent cleanly; SIGHUP reopens the log file (after logrotate).

Minimal configuration (every other key has a default; --check prints them all):
  {
    "node": { "resource_name": "cass-vm-0", "fault_domain": 0 },
    "topology": { "fault_domain_racks": { "0": "rack1", "1": "rack2", "2": "rack3" } }
  }
imds.endpoint defaults to http://169.254.169.254 (Azure IMDS on the VM); for tests and game days point it
at an imds-emulator, e.g. "imds": { "endpoint": "http://127.0.0.1:8080" }. Leave node.resource_name ""
and node.fault_domain -1 to discover them from IMDS.

Examples:
  cassandra-lifecycle-agent --config /etc/cassandra-lifecycle-agent/config.json --check
  cassandra-lifecycle-agent --config /etc/cassandra-lifecycle-agent/config.json --dry-run
  cassandra-lifecycle-agent --config /etc/cassandra-lifecycle-agent/config.json
)";
  return out.str();
}

}  // namespace cla
