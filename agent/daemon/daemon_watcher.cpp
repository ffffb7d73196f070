// The watcher in the daemon (SPEC 9), coordinated only: at each poll, who holds the leader's and the
// secondary's keys and which one this agent tries for (decide_role); as the leader, the agentless drain
// records of known VMs without a live agent that the document lists (AgentlessWatch), with a nodetool status
// read when a record waits for its node to show UN after its event left.
#include <boost/asio.hpp>

#include "agent/daemon/daemon.hpp"
#include "agent/daemon/failpoint.hpp"
#include "agent/daemon/on_exit.hpp"
#include "agent/log.hpp"

namespace cla {

namespace asio = boost::asio;

void Daemon::set_watcher_role(WatcherRole role) {
  if (watcher_role_ == role) return;
  metrics_.set_watcher_role(to_string(role));
  if (watcher_role_)  // a change; the first "none", at start, is not one
    log_line(LogLevel::info, "watcher_role",
             {{"role", to_string(role)}, {"vm", resource_name_}, {"previous", to_string(*watcher_role_)}});
  watcher_role_ = role;
}

bool Daemon::watch_due() {
  const auto now = std::chrono::steady_clock::now();
  const bool holder = watcher_role_ && *watcher_role_ != WatcherRole::none;
  if (!holder && now < watched_at_ + idle_watch_interval(config_.coordination.lease_ttl_s,
                                                         config_.policy.catch_up_min_s))
    return false;
  watched_at_ = now;
  return true;
}

asio::awaitable<void> Daemon::watch() {
  if (coordinator_->datacenter().empty()) co_return;  // the watcher is one per DC: nodetool names it first
  watching_ = true;
  const OnExit watched([this] { watching_ = false; });  // the next poll steps again, whatever this one did
  failpoint("watcher_step");
  const std::optional<bool> catching_up = co_await watch_roles();
  if (stopping_ || !catching_up) co_return;
  // SPEC 3.10: at the same pace, what this node holds for a member catching up.
  co_await publish_hints(*catching_up);
}

asio::awaitable<std::optional<bool>> Daemon::watch_roles() {
  auto read = co_await coordinator_->read_watch();
  if (stopping_) co_return std::nullopt;
  if (!read) {
    log_line(LogLevel::debug, "watcher_read_failed", {{"detail", describe(read.error())}});
    co_return std::nullopt;  // the role stays as last known: its key lives as long as the lease
  }
  const RoleDecision d = decide_role(coordinator_->role_holder(), read->roles.leader, read->roles.secondary);
  WatcherRole role = d.current;
  if (d.try_for && co_await coordinator_->try_role(*d.try_for, d.current == WatcherRole::secondary))
    role = *d.try_for;
  if (stopping_) co_return std::nullopt;
  set_watcher_role(role);
  if (role != WatcherRole::leader) co_return read->another_catching_up;
  const std::optional<bool> members_say = co_await lead();
  co_return read->another_catching_up || members_say.value_or(false);
}

asio::awaitable<std::optional<bool>> Daemon::lead() {
  // Nothing listed and no agentless record to release: no read of the whole prefix at an idle poll.
  if (last_events_.empty() && !agentless_pending_) co_return std::nullopt;
  auto read = co_await coordinator_->read();
  if (stopping_) co_return std::nullopt;
  if (!read) {
    log_line(LogLevel::debug, "watcher_read_failed", {{"detail", describe(read.error())}});
    co_return std::nullopt;
  }
  // Catching up counts across DCs (host ids are unique); agentless VMs are this DC's (SPEC 9, per DC).
  const bool catching_up = another_catches_up(read->members);
  auto snap = read->of_datacenter(coordinator_->datacenter());
  agentless_pending_ =
      std::any_of(snap.drains.begin(), snap.drains.end(), [](const DrainRecord& r) { return r.agentless; });
  WatcherInput in;
  in.self = resource_name_;
  in.members = std::move(snap.members);
  in.known = std::move(snap.known);
  in.drains = std::move(snap.drains);
  in.events = last_events_;
  for (auto& event : in.events)  // NotBefore into the core's time, as `now`
    if (event.not_before) event.not_before = clock_.from_wall(*event.not_before);
  in.drain_lead = config_.policy.drain_lead_s;
  in.up_host_ids = up_host_ids_;
  in.status_taken_at = up_taken_at_;
  in.now = clock_.now();
  WatcherPlan plan = agentless_.decide(in);
  if (plan.needs_status) {
    auto view = co_await read_cluster_view();  // sets up_host_ids_ and up_taken_at_
    if (stopping_) co_return catching_up;
    if (view) {
      in.up_host_ids = up_host_ids_;
      in.status_taken_at = up_taken_at_;
      plan = agentless_.decide(in);
    }
  }
  if (plan.put.empty() && plan.remove.empty()) co_return catching_up;
  std::vector<AgentlessImpact> impacts = std::move(plan.impacts);
  const auto written = co_await coordinator_->apply_watcher(std::move(plan));
  if (stopping_) co_return catching_up;
  // Logged once the record listing the event is in etcd: a record not written is decided again next poll.
  for (const auto& impact : impacts) {
    const bool recorded = std::any_of(written.begin(), written.end(),
                                      [&](const DrainRecord& r) { return iequals(r.vm, impact.vm); });
    if (!recorded) continue;
    metrics_.agentless_impact();
    log_line(LogLevel::error, "agentless_impact",
             {{"vm", impact.vm},
              {"event_id", impact.event_id},
              {"event_type", impact.event_type},
              {"not_before", impact.not_before},
              {"detail",
               "a VM of this cluster without a live agent is listed in a pending event: its node is counted "
               "out (agentless drain record) until the event is gone and the node is UN again"}});
  }
  co_return catching_up;
}

}  // namespace cla
