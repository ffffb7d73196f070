// The daemon's coordinated mode (SPEC 9): the Coordinator made from coordination.*, the core's Admit and
// CheckSharedApproval carried out against etcd, the member key kept in step with the core, the lease revoked
// on stop.
#include <boost/asio.hpp>
#include <functional>

#include "agent/config/config_coordination.hpp"
#include "agent/daemon/daemon.hpp"
#include "agent/log.hpp"
#include "cassandra/nodetool_output/info_parser.hpp"

namespace cla {

namespace asio = boost::asio;
using namespace std::chrono_literals;

bool Daemon::start_coordination(CorePolicy& policy) {
  const CoordinationConfig& c = config_.coordination;
  if (!c.enabled()) return true;
  if (dry_run_) {
    log_line(
        LogLevel::info, "coordination_skipped",
        {{"dry_run", true}, {"reason", "a dry run writes nothing to etcd; the nodetool gate alone decides"}});
    return true;
  }
  auto options = etcd_client_options(c);
  if (!options) {
    log_line(LogLevel::error, "coordination_config_failed", {{"error", options.error().message}});
    return false;
  }
  options->first_endpoint = std::hash<std::string>{}(resource_name_);  // spread over the members
  MemberRecord self;
  self.vm = resource_name_;
  self.fault_domain = fault_domain_;
  self.since = WallClock::now();
  coordinator_ = std::make_unique<Coordinator>(io_.get_executor(), c, std::move(*options),
                                               config_.topology.replication_factor, std::move(self));
  policy.coordinated = true;
  policy.hold_without_coordination = c.on_unavailable == OnUnavailable::hold;
  coordinator_->start();
  set_watcher_role(WatcherRole::none);
  log_line(LogLevel::info, "coordination_started",
           {{"endpoints", boost::json::array(c.etcd_endpoints.begin(), c.etcd_endpoints.end())},
            {"prefix", coordination_keys(c.cluster).prefix},
            {"on_unavailable", to_string(c.on_unavailable)}});
  return true;
}

// The member key carries the node's DC, rack and host id from the start; the gate refreshes them.
asio::awaitable<void> Daemon::read_identity() {
  const auto self = co_await node_->info();
  if (!self) {
    log_line(LogLevel::warning, "node_identity_unknown", {{"detail", self.error().message()}});
    co_return;
  }
  own_host_id_ = self->host_id;  // the gate's first check needs no info of its own
  coordinator_->set_identity(self->datacenter, self->rack, self->host_id, "");  // the gate adds the address
}

asio::awaitable<void> Daemon::admit(Admit a) {
  const std::uint64_t generation = reads_generation_;
  const SteadyTime asked = std::chrono::steady_clock::now();
  AdmissionOutcome outcome{CoordinationResult::unavailable, "coordination is off", {}};
  if (coordinator_) {
    // A neighbour whose maintenance began is not up, whatever gossip shows (SPEC 9): no stale-record credit.
    std::set<std::string> up = up_host_ids_;
    for (const auto& host_id : impacted_host_ids()) up.erase(host_id);
    outcome = co_await coordinator_->admit(a.event_id, a.forced, std::move(up), exact_admission(),
                                           impacted_racks(), admission_guard());
  }
  if (stopping_) co_return;
  const bool abandoned = a.awaited && abandoned_since(generation);
  log_line(LogLevel::info, "drain_admission",
           {{"event_id", a.event_id},
            {"unconditional", a.forced},
            {"beside_drain", !a.awaited},
            {"abandoned", abandoned},
            {"result", outcome.result == CoordinationResult::allowed   ? "admitted"
                       : outcome.result == CoordinationResult::refused ? "refused"
                                                                       : "unavailable"},
            {"detail", outcome.detail},
            {"attempts", outcome.attempts},
            {"duration_ms",
             std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - asked)
                 .count()}});
  if (abandoned) co_return;  // a forced or emergency drain went ahead without this answer
  execute(a.awaited ? core_->on_admission(outcome, clock_.now())
                    : core_->on_drain_recorded(outcome, clock_.now()));
  if (!a.awaited && coordinator_ && outcome.result == CoordinationResult::unavailable)
    co_await retry_drain_record(std::move(a));
}

// Without its record no other agent counts this node out (issue 41: it used to be written once). Retried
// with the release's backoff; its answer goes to the core as the first one did.
asio::awaitable<void> Daemon::retry_drain_record(Admit a) {
  int failures = 0;
  for (auto delay = 1s; !stopping_; delay = std::min<std::chrono::seconds>(delay * 2, 10s)) {
    asio::steady_timer pause(io_, delay);
    co_await pause.async_wait(asio::use_awaitable);
    if (stopping_ || !core_->state().node.out_of_service) co_return;
    const AdmissionOutcome outcome =
        co_await coordinator_->admit(a.event_id, true, up_host_ids_, exact_admission());
    if (stopping_) co_return;
    // A failure at warning once, then at debug: etcd may stay down for hours (coordination_unavailable says
    // so).
    const bool failed = outcome.result == CoordinationResult::unavailable;
    log_line(!failed           ? LogLevel::info
             : failures++ == 0 ? LogLevel::warning
                               : LogLevel::debug,
             "drain_record_retried",
             {{"event_id", a.event_id},
              {"result", failed ? "unavailable" : "recorded"},
              {"detail", outcome.detail},
              {"retry_in_s", std::min<std::chrono::seconds>(delay * 2, 10s).count()}});
    if (!failed) {
      execute(core_->on_drain_recorded(outcome, clock_.now()));
      co_return;
    }
  }
}

asio::awaitable<void> Daemon::check_shared(std::string event_id) {
  SharedOutcome outcome{CoordinationResult::unavailable, "coordination is off", "", {}, {}};
  const EventRecord* rec = core_->record_of(event_id);
  if (coordinator_ && rec)
    outcome = co_await coordinator_->shared_verdict(event_id, rec->event.resources,
                                                    !config_.policy.approve_shared_events);
  if (stopping_) co_return;
  execute(core_->on_shared_verdict(event_id, outcome, clock_.now()));
}

void Daemon::sync_member() {
  // Not before the core started: the flags as loaded may describe a node the VM's reboot restarted.
  if (coordinator_ && core_ && core_started_)
    coordinator_->set_member(core_->member_phase(), core_->member_events(), core_->member_approved());
}

void Daemon::finish(std::chrono::milliseconds limit) {
  if (!coordinator_) return;
  io_.restart();
  asio::co_spawn(io_, coordinator_->shutdown(), asio::detached);
  io_.run_for(limit);
}

}  // namespace cla
