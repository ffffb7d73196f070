// cassandra-lifecycle-agent: parses the command line, loads the config, sets up logging, runs the daemon.
#include <unistd.h>

#include <exception>
#include <iostream>
#include <memory>

#include "agent/cli.hpp"
#include "agent/config/config.hpp"
#include "agent/config/config_warnings.hpp"
#include "agent/config/json_pretty.hpp"
#include "agent/coordination/fleet_command.hpp"
#include "agent/daemon/daemon.hpp"
#include "agent/daemon/daemon_life.hpp"
#include "agent/log.hpp"

int main(int argc, char** argv) try {
  auto cli = cla::parse_cli(argc, argv);
  if (!cli) {
    std::cerr << "cassandra-lifecycle-agent: " << cli.error().message << "\ntry --help\n";
    return cla::kExitUsage;
  }
  if (cli->action == cla::CliAction::help) {
    std::cout << cla::help_text();
    return cla::kExitClean;
  }
  if (cli->action == cla::CliAction::version) {
    std::cout << cla::version_text() << '\n';
    return cla::kExitClean;
  }
  auto config = cla::load_config(cli->config_path);
  if (!config) {
    std::cerr << config.error().message << '\n';
    return cla::kExitUsage;
  }
  if (cli->action == cla::CliAction::fleet) return cla::run_fleet(*config, cli->json, std::cout, std::cerr);
  if (cli->action == cla::CliAction::check) {
    std::cout << cla::pretty_json(cla::config_to_json(*config)) << '\n';
    for (const auto& warning : cla::config_warnings(*config))
      std::cerr << cla::format_config_warning(cli->config_path, warning) << '\n';
    return cla::kExitClean;
  }
  if (auto logging = cla::init_logging(config->log.file, config->log.level, ::isatty(STDERR_FILENO));
      !logging) {
    std::cerr << "cassandra-lifecycle-agent: " << logging.error().message << '\n';
    return cla::kExitFatal;
  }
  cla::DaemonLife life(std::move(*config), cli->dry_run);
  // Declared after `life`, so destroyed before its io_context: its timers and sockets go while their
  // services live. The coroutines its stop() cancelled finish first (within run()), while it
  // lives: their frames hold RAII pieces (an ImdsClient call's turn) that touch it on destruction.
  auto daemon = std::make_unique<cla::Daemon>(life.io(), life.config(), life.dry_run());
  life.on_stop([d = daemon.get()] { d->stop(); });
  life.spawn([](cla::Daemon* d, cla::DaemonLife* l) -> boost::asio::awaitable<void> {
    if (co_await d->run() != cla::kExitClean)
      throw std::runtime_error("the agent could not start; see the error above");
    l->request_stop("work ended");
  }(daemon.get(), &life));
  const int exit_code = life.run(&daemon->ticks());
  daemon->finish(std::chrono::seconds(3));  // coordinated mode: revoke the etcd lease
  cla::shutdown_logging();
  return exit_code;
} catch (const std::exception& e) {
  std::cerr << "cassandra-lifecycle-agent: fatal error: " << e.what() << '\n';
  return cla::kExitFatal;
}
