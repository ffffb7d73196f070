// Catching up in the daemon (SPEC 3.10): who still holds hints for this node once it is restored (the core's
// ReadCatchUp), what this node holds for a member that catches up (published in its member key), and the
// gate's count of the nodes this node's own Cassandra still holds hints for.
#include <boost/asio.hpp>

#include "agent/daemon/daemon.hpp"
#include "agent/log.hpp"

namespace cla {

namespace asio = boost::asio;

// Coordinated: the other members' keys name the hosts their nodes hold hints for. Uncoordinated this agent
// sees no other node's hints: an empty answer, so catch_up_min alone holds the node (and the peers' own gates
// count it while they hold hints for it).
asio::awaitable<void> Daemon::read_catch_up() {
  CatchUpOutcome outcome;
  if (coordinator_ && own_host_id_.empty()) {  // forgotten when the restore restarted Cassandra
    auto info = co_await node_->info();
    if (stopping_) co_return;
    if (info) own_host_id_ = info->host_id;
  }
  if (!coordinator_) {
    outcome.read = true;
  } else if (own_host_id_.empty()) {
    outcome.detail = "this node's host id is not known (nodetool info failed)";
  } else {
    auto members = co_await coordinator_->read_members();
    if (stopping_) co_return;
    if (!members) {
      outcome.detail = describe(members.error());
    } else {
      outcome.read = true;
      // Every DC's: a coordinator anywhere holds hints for this node, and another region's VM of this name is
      // another node.
      for (const auto& member : *members) {
        if (names_vm(member.datacenter, member.vm, coordinator_->datacenter(), resource_name_)) continue;
        const auto it = member.hints_for.find(own_host_id_);
        if (it == member.hints_for.end()) continue;
        outcome.holders.push_back(member.vm + " (" + std::to_string(it->second) + " hints files)");
        outcome.hint_files += it->second;
      }
    }
  }
  if (stopping_) co_return;
  execute(core_->on_catch_up(outcome, clock_.now()));
}

// At each watcher step: while another member catches up (or restores: a restarted node holds its enablebinary
// for the same answer, core_binary_hold.cpp), read what this node holds and publish it; once none
// does, clear it. With nodetool each read is a JVM start, hence only then, and at most every
// hints_read_interval: Cassandra closes a hints file and dispatches hints every 10 s (hints_flush_period), so
// a read sooner shows little new, while every agent's JVM at each watcher step starved a 6-node machine (the
// game day: load 15 on 2 cores, every nodetool call past its timeout).
bool Daemon::another_catches_up(const std::vector<MemberRecord>& members) const {
  return std::any_of(members.begin(), members.end(), [&](const MemberRecord& m) {
    return (m.phase == MemberPhase::catching_up || m.phase == MemberPhase::restoring) &&
           !names_vm(m.datacenter, m.vm, coordinator_->datacenter(), resource_name_);
  });
}

asio::awaitable<void> Daemon::publish_hints(bool catching_up) {
  if (!catching_up) {
    coordinator_->set_hints_for({});
    hints_published_at_ = {};
    co_return;
  }
  const auto now = std::chrono::steady_clock::now();
  if (hints_published_at_ != SteadyTime{} &&
      now < hints_published_at_ + hints_read_interval(config_.policy.catch_up_min_s))
    co_return;
  if (drain_under_way()) co_return;  // the last published stands until the next watcher step
  hints_published_at_ = now;
  auto hints = co_await node_->pending_hints();
  if (stopping_) co_return;
  if (!hints) {
    // The last published stays: the catching-up node waits on it until catch_up_max rather than on nothing.
    log_line(LogLevel::warning, "pending_hints_unreadable", {{"detail", hints.error().message()}});
    co_return;
  }
  coordinator_->set_hints_for(files_by_host(undelivered_hints_.filter(std::move(*hints), now)));
}

// The gate's view (SPEC 3.10): every host this node holds hints for still catches up, so it counts as
// unavailable: a closed file listed for it, or (Jolokia) hints created for it and not delivered yet, which
// covers the file still open right after its restore, when nothing is listed (UndeliveredHints bounds them).
// Unreadable (a Cassandra before 4.1 has no listpendinghints), the gate goes on without it and says so once:
// coordinated, the catching-up node's drain record still holds the admission.
asio::awaitable<std::map<std::string, std::int64_t>> Daemon::hints_held_for_gate() {
  std::map<std::string, std::int64_t> held;
  if (dry_run_) co_return held;
  auto hints = co_await node_->pending_hints();
  if (!hints) {
    if (!gate_hints_unreadable_logged_)
      log_line(LogLevel::warning, "pending_hints_unreadable",
               {{"detail", hints.error().message()},
                {"note", "the gate cannot see which peers still catch up on hints from this node"}});
    gate_hints_unreadable_logged_ = true;
    co_return held;
  }
  gate_hints_unreadable_logged_ = false;
  co_return files_by_host(undelivered_hints_.filter(std::move(*hints), std::chrono::steady_clock::now()));
}

}  // namespace cla
