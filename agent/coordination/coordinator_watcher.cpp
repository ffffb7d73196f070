// The watcher's etcd side (SPEC 9), one per DC: who holds the leader's and the secondary's keys, taking one
// under this agent's lease only if absent, and the leader's agentless drain records written and removed only
// if nobody changed them since they were read. What to do is state/watcher's decision.
#include <boost/asio.hpp>
#include <boost/json.hpp>

#include "agent/coordination/coordinator.hpp"
#include "agent/log.hpp"

namespace cla {

namespace asio = boost::asio;

asio::awaitable<Result<WatchRead, EtcdFailure>> Coordinator::read_watch() {
  const std::string& dc = self_.datacenter;
  std::vector<EtcdOp> gets;
  gets.emplace_back(EtcdGet(keys_.watcher(dc), prefix_range_end(keys_.watcher(dc))));
  gets.emplace_back(EtcdGet(keys_.catching_up(), prefix_range_end(keys_.catching_up())));
  auto txn = co_await read_ranges(*client_, std::move(gets));
  if (!txn) co_return txn.error();
  WatchRead read;
  for (const auto& kv : txn->ranges[0].kvs) {
    auto holder = role_holder_from_json(kv.value);
    if (!holder) continue;
    if (kv.key == keys_.watcher_role(dc, WatcherRole::leader)) read.roles.leader = *holder;
    if (kv.key == keys_.watcher_role(dc, WatcherRole::secondary)) read.roles.secondary = *holder;
  }
  const std::string own = keys_.catching_up(dc, self_.vm);
  read.another_catching_up = std::any_of(txn->ranges[1].kvs.begin(), txn->ranges[1].kvs.end(),
                                         [&](const auto& kv) { return kv.key != own; });
  co_return read;
}

asio::awaitable<bool> Coordinator::try_role(WatcherRole role, bool release_secondary) {
  const std::int64_t lease = keeper_->lease();
  // The role's key lives only as long as this agent's lease, and names the DC it watches.
  if (lease == 0 || stopped_ || self_.datacenter.empty()) co_return false;
  const std::string key = keys_.watcher_role(self_.datacenter, role);
  std::vector<EtcdCompare> compare;
  compare.emplace_back(EtcdCompare::Target::create, EtcdCompare::Op::equal, key, "", 0);
  std::vector<EtcdOp> success;
  success.emplace_back(EtcdPut(key, boost::json::serialize(to_json(role_holder())), lease));
  if (release_secondary)
    success.emplace_back(EtcdDelete(keys_.watcher_role(self_.datacenter, WatcherRole::secondary)));
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
  const auto key_of = [&](const DrainRecord& record) {
    return record.key.empty() ? keys_.drain(record.datacenter, record.vm) : record.key;
  };
  for (auto& record : plan.put) {
    const std::string key = key_of(record);
    EtcdOp put = EtcdPut(key, boost::json::serialize(to_json(record)));
    auto done = co_await guarded(*client_, key, record.mod_revision, std::move(put), rack_bump(record));
    if (done && *done) written.push_back(std::move(record));
    if (!done)
      log_line(LogLevel::warning, "agentless_record_write_failed",
               {{"vm", record.vm}, {"detail", describe(done.error())}});
  }
  for (const auto& record : plan.remove) {
    const std::string key = key_of(record);
    EtcdOp del = EtcdDelete(key);
    auto done = co_await guarded(*client_, key, record.mod_revision, std::move(del));
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
