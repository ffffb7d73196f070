// `cassandra-lifecycle-agent fleet`: one etcd range and one IMDS GET, then the view.
#include "agent/coordination/fleet_command.hpp"

#include <boost/asio.hpp>
#include <boost/json.hpp>

#include "agent/cli.hpp"
#include "agent/config/config_coordination.hpp"
#include "agent/coordination/coordinator.hpp"
#include "imds/imds_client.hpp"
#include "state/fleet_view.hpp"

namespace cla {

namespace asio = boost::asio;

int run_fleet(const Config& config, bool json, std::ostream& out, std::ostream& err) {
  if (!config.coordination.enabled()) {
    err << "cassandra-lifecycle-agent fleet: coordination.etcd_endpoints is empty: this agent is not "
           "coordinated\n";
    return kExitUsage;
  }
  auto options = etcd_client_options(config.coordination);
  if (!options) {
    err << "cassandra-lifecycle-agent fleet: " << options.error().message << "\n";
    return kExitFatal;
  }
  asio::io_context io;
  EtcdClient etcd(io.get_executor(), *options);
  ImdsClientOptions imds_options;
  imds_options.endpoint = config.imds.endpoint;
  imds_options.api_version = config.imds.api_version;
  imds_options.request_timeout = config.imds.request_timeout_ms;
  imds_options.first_request_timeout = config.imds.request_timeout_ms;
  ImdsClient imds(io.get_executor(), imds_options);

  std::optional<Result<CoordinationSnapshot, EtcdFailure>> snapshot;
  std::optional<Result<EventsDocument, ImdsFailure>> document;
  asio::co_spawn(
      io,
      [&]() -> asio::awaitable<void> {
        snapshot.emplace(co_await read_snapshot(etcd, coordination_keys(config.coordination.cluster)));
        document.emplace(co_await imds.get_scheduled_events());
      },
      // Done once both answered: the connections' deadline timers, still armed, must not hold run() until
      // they expire (request_timeout_ms).
      [&io](std::exception_ptr) { io.stop(); });
  io.run();
  if (!snapshot || !*snapshot) {
    err << "cassandra-lifecycle-agent fleet: etcd: "
        << (snapshot ? describe(snapshot->error()) : std::string("no answer")) << "\n";
    return kExitFatal;
  }
  FleetInput input;
  input.members = (*snapshot)->members;
  input.drains = (*snapshot)->drains;
  input.known = (*snapshot)->known;
  input.watchers = (*snapshot)->roles;
  input.now = WallClock::now();
  if (document && *document)
    input.events = (*document)->events;
  else if (document)
    err << "cassandra-lifecycle-agent fleet: IMDS: " << (*document).error().detail
        << " (events shown from the etcd records only)\n";
  const boost::json::object view = fleet_view(input);
  if (json)
    out << boost::json::serialize(view) << "\n";
  else
    out << fleet_text(view);
  return kExitClean;
}

}  // namespace cla
