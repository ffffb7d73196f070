// The watcher's etcd side (SPEC 9): who holds the leader's and the secondary's keys, taking one under this
// agent's lease only if absent, and the leader's agentless drain records written and removed only if nobody
// changed them since they were read. What to do is state/watcher's decision.
#include <boost/asio.hpp>
#include <boost/json.hpp>

#include "agent/coordination/coordinator.hpp"
#include "agent/log.hpp"

namespace cla {

namespace asio = boost::asio;

namespace {

// `op` on drains/<vm> only if the record is as read (mod_revision; 0: still absent), so that an agent back in
// time to record its own drain, or another leader, is never overwritten. True when applied.
asio::awaitable<Result<bool, EtcdFailure>> guarded(EtcdClient& client, std::string key, std::int64_t revision,
                                                   EtcdOp op) {
  std::vector<EtcdCompare> compare;
  compare.emplace_back(EtcdCompare::Target::mod, EtcdCompare::Op::equal, key, "", revision);
  std::vector<EtcdOp> success;
  success.push_back(std::move(op));
  std::vector<EtcdOp> failure;
  auto txn = co_await client.txn(std::move(compare), std::move(success), std::move(failure));
  if (!txn) co_return txn.error();
  co_return txn->succeeded;
}

}  // namespace

asio::awaitable<Result<WatcherRoles, EtcdFailure>> Coordinator::read_roles() {
  auto range = co_await client_->range(keys_.watcher(), prefix_range_end(keys_.watcher()));
  if (!range) co_return range.error();
  WatcherRoles roles;
  for (const auto& kv : range->kvs) {
    auto holder = role_holder_from_json(kv.value);
    if (!holder) continue;
    if (kv.key == keys_.watcher_role(WatcherRole::leader)) roles.leader = *holder;
    if (kv.key == keys_.watcher_role(WatcherRole::secondary)) roles.secondary = *holder;
  }
  co_return roles;
}

asio::awaitable<bool> Coordinator::try_role(WatcherRole role, bool release_secondary) {
  const std::int64_t lease = keeper_->lease();
  if (lease == 0 || stopped_) co_return false;  // the role's key lives only as long as this agent's lease
  const std::string key = keys_.watcher_role(role);
  std::vector<EtcdCompare> compare;
  compare.emplace_back(EtcdCompare::Target::create, EtcdCompare::Op::equal, key, "", 0);
  std::vector<EtcdOp> success;
  success.emplace_back(
      EtcdPut(key, boost::json::serialize(to_json(RoleHolder{self_.vm, self_.fault_domain})), lease));
  if (release_secondary) success.emplace_back(EtcdDelete(keys_.watcher_role(WatcherRole::secondary)));
  std::vector<EtcdOp> failure;
  auto txn = co_await client_->txn(std::move(compare), std::move(success), std::move(failure));
  if (!txn) {
    log_line(LogLevel::debug, "watcher_role_write_failed",
             {{"role", to_string(role)}, {"detail", describe(txn.error())}});
    co_return false;
  }
  co_return txn->succeeded;
}

asio::awaitable<std::vector<DrainRecord>> Coordinator::apply_watcher(WatcherPlan plan) {
  std::vector<DrainRecord> written;
  for (auto& record : plan.put) {
    EtcdOp put = EtcdPut(keys_.drain(record.vm), boost::json::serialize(to_json(record)));
    auto done = co_await guarded(*client_, keys_.drain(record.vm), record.mod_revision, std::move(put));
    if (done && *done) written.push_back(std::move(record));
    if (!done)
      log_line(LogLevel::warning, "agentless_record_write_failed",
               {{"vm", record.vm}, {"detail", describe(done.error())}});
  }
  for (const auto& record : plan.remove) {
    EtcdOp del = EtcdDelete(keys_.drain(record.vm));
    auto done = co_await guarded(*client_, keys_.drain(record.vm), record.mod_revision, std::move(del));
    if (done && *done)
      log_line(LogLevel::info, "agentless_record_removed",
               {{"vm", record.vm},
                {"host_id", record.host_id},
                {"events", boost::json::array(record.events.begin(), record.events.end())},
                {"reason", "its events are gone and its node is UN again"}});
    if (!done)
      log_line(LogLevel::warning, "agentless_record_removal_failed",
               {{"vm", record.vm}, {"detail", describe(done.error())}});
  }
  co_return written;
}

}  // namespace cla
