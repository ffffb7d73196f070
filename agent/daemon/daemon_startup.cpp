// The shell's start-up observations: who this node is (config or IMDS compute), its boot id and its status.
#include <boost/asio.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <fstream>
#include <utility>

#include "agent/daemon/daemon.hpp"
#include "agent/log.hpp"
#include "cassandra/shutdown_announce.hpp"

namespace cla {

namespace asio = boost::asio;
using namespace std::chrono_literals;
using namespace boost::asio::experimental::awaitable_operators;

namespace {
// Tests point CLA_BOOT_ID_FILE at a file of their own to play a VM reboot.
std::string read_boot_id() {
  const char* override_path = std::getenv("CLA_BOOT_ID_FILE");
  std::ifstream in(override_path ? override_path : "/proc/sys/kernel/random/boot_id");
  std::string id;
  std::getline(in, id);
  return id;
}
}  // namespace

asio::awaitable<bool> Daemon::resolve_identity() {
  resource_name_ = config_.node.resource_name;
  fault_domain_ = config_.node.fault_domain;
  const char* source = "config";
  // With topology.rack_source zone the rack comes from the zone, which only IMDS tells.
  bool zone_known = config_.topology.rack_source != RackSource::zone;
  while (!stopping_ && (resource_name_.empty() || fault_domain_ < 0 || !zone_known)) {
    source = "imds";
    // Not on the poll client: its deadlines are watched by the poll loop's ticks, which have not started.
    auto compute = co_await compute_client_->get_compute();
    if (compute) {
      if (resource_name_.empty()) resource_name_ = compute->name;
      if (fault_domain_ < 0) fault_domain_ = compute->platform_fault_domain;
      zone_ = compute->zone;
      zone_known = true;
      break;
    }
    log_line(LogLevel::warning, "imds_error",
             {{"request", "compute"},
              {"kind", to_string(compute.error().kind)},
              {"detail", compute.error().detail}});
    poll_timer_.expires_after(5s);
    boost::system::error_code ec;
    co_await poll_timer_.async_wait(asio::redirect_error(asio::use_awaitable, ec));
  }
  if (stopping_) co_return false;
  compute_client_.reset();  // its kept-alive connection is not needed again
  log_line(LogLevel::info, "node_identity",
           {{"resource_name", resource_name_},
            {"fault_domain", fault_domain_},
            {"zone", zone_},
            {"source", source},
            {"rack_source", to_string(config_.topology.rack_source)},
            {"configured_rack", config_.topology.rack_for(fault_domain_, zone_)}});
  metrics_.set_node_info(resource_name_, fault_domain_, config_.topology.rack_for(fault_domain_, zone_));
  co_return true;
}

asio::awaitable<StartupInfo> Daemon::observe_node(StateSource source) {
  StartupInfo info;
  info.source = source;
  info.boot_id = read_boot_id();
  if (info.boot_id.empty()) log_line(LogLevel::warning, "boot_id_unknown", {});
  // Two independent reads (with nodetool, each a JVM start): at once.
  constexpr auto kRead = NodeBackend::Abandonable::yes;
  const auto [gossip, binary] = co_await (node_->gossip_running(kRead) && node_->binary_running(kRead));
  if (stopping_)
    co_return info;  // their children were stopped with the agent: nothing to report after agent_stopped
  for (const auto& [sub, running] :
       {std::pair{"statusgossip", &gossip}, std::pair{"statusbinary", &binary}}) {
    if (!*running) {
      log_line(LogLevel::warning, "node_status_unknown",
               {{"subcommand", sub}, {"detail", running->error().detail}});
      continue;
    }
    (std::string(sub) == "statusgossip" ? info.gossip_running : info.binary_running) = **running;
  }
  co_return info;
}

// SPEC 3.10: the shutdown announce's setting, read once a start. An event first seen Started, and a forced
// drain, leave no time for the quiet before approval, so there the setting protects: unset, the agent says
// so.
asio::awaitable<void> Daemon::check_shutdown_announce() {
  auto jvms = co_await node_->jvm_arguments();
  if (stopping_) co_return;
  const char* source =
      config_.cassandra.backend == NodeBackendKind::jolokia ? "jolokia" : "command lines on this host";
  const AnnounceSetting setting =
      jvms ? announce_setting(*jvms)
           : AnnounceSetting{AnnounceSetting::Kind::unknown, 0, jvms.error().message()};
  switch (setting.kind) {
    case AnnounceSetting::Kind::set:
      log_line(LogLevel::info, "shutdown_announce",
               {{"source", source}, {"shutdown_announce_in_ms", setting.ms}});
      break;
    case AnnounceSetting::Kind::unset:
      log_line(
          LogLevel::warning, "shutdown_announce_default",
          {{"source", source},
           {"shutdown_announce_in_ms", 2000},
           {"unsafe_drain_lead_s", config_.policy.unsafe_drain_lead_s.count()},
           {"advice",
            "start Cassandra with -Dcassandra.shutdown_announce_in_ms=0: for 2 s after disablegossip peers "
            "may mark the drained node up again and send it reads until their failure detectors convict "
            "it, 10-20 s later; an event first seen Started, and a forced drain (unsafe_drain_lead_s before "
            "its impact, no approval to wait on), leave no time to wait for them (man 8 "
            "cassandra-lifecycle-agent)"}});
      break;
    case AnnounceSetting::Kind::unknown:
      log_line(LogLevel::info, "shutdown_announce_unknown", {{"source", source}, {"detail", setting.detail}});
      break;
  }
}

}  // namespace cla
