// The coordinated mode's shell (SPEC 9): member key, admission transaction, shared-approval reads, release.
#include "agent/coordination/coordinator.hpp"

#include <unistd.h>

#include <boost/asio.hpp>
#include <boost/json.hpp>
#include <random>

#include "agent/config/config_coordination.hpp"
#include "agent/log.hpp"
#include "imds/transport/secret_file.hpp"

namespace cla {

namespace asio = boost::asio;
using namespace std::chrono_literals;

namespace {

// A transaction beaten by another agent's commit is read and tried again for this long before the admission
// counts as refused (which the core asks again only at its next gate check, unsafe_recheck_s later): the 50
// agents of a fault domain, which all admit at the same poll, commit one after the other, ~50 transactions.
constexpr auto kAdmissionContention = 3s;

// The pause before try number `attempt` + 1: random, up to 20 ms a try so far (at most 200 ms), so that
// agents beaten together do not collide again in step.
std::chrono::milliseconds contention_pause(int attempt) {
  thread_local std::minstd_rand random(
      static_cast<unsigned>(::getpid()) ^
      static_cast<unsigned>(std::chrono::steady_clock::now().time_since_epoch().count()));
  const int ceiling_ms = std::min(20 * attempt, 200);
  return std::chrono::milliseconds(std::uniform_int_distribution<int>(0, ceiling_ms)(random));
}

asio::awaitable<void> sleep_for(asio::any_io_executor ex, std::chrono::milliseconds d) {
  asio::steady_timer t(ex, d);
  boost::system::error_code ec;
  co_await t.async_wait(asio::redirect_error(asio::use_awaitable, ec));
}

}  // namespace

Result<EtcdClientOptions> etcd_client_options(const CoordinationConfig& c) {
  EtcdClientOptions options;
  options.endpoints = c.etcd_endpoints;
  options.request_timeout = std::clamp<std::chrono::milliseconds>(c.lease_ttl_s / 5, std::chrono::seconds(1),
                                                                  std::chrono::seconds(5));
  options.username = c.username;
  if (!c.tls.ca_file.empty()) options.tls = c.tls;
  if (!c.password_file.empty()) {
    auto password = read_secret_file(c.password_file);
    if (!password) return password.error();
    options.password = std::move(password.value());
  }
  return options;
}

CoordinationKeys coordination_keys(const std::string& cluster) {
  return {"/cassandra-lifecycle-agent/" + cluster + "/"};
}

std::vector<EtcdCompare> admission_compares(const CoordinationKeys& keys, const CoordinationSnapshot& snap,
                                            const MemberRecord& self, AdmissionGuard guard,
                                            const std::vector<DrainRecord>& removing) {
  std::vector<EtcdCompare> compare;
  for (const auto& r : removing)
    compare.emplace_back(EtcdCompare::Target::mod, EtcdCompare::Op::equal, r.key, "", r.mod_revision);
  if (!guard.rack_batched || snap.older_agents || self.datacenter.empty() || self.rack.empty()) {
    compare.emplace_back(EtcdCompare::Target::mod, EtcdCompare::Op::less, keys.drains(),
                         prefix_range_end(keys.drains()), snap.revision + 1);
    return compare;
  }
  std::set<std::string> racks;
  for (const auto& [key, revision] : snap.rack_revisions) racks.insert(key);
  const auto add = [&](const std::string& dc, const std::string& rack) {
    if (!dc.empty() && !rack.empty()) racks.insert(keys.rack(dc, rack));
  };
  for (const auto& r : snap.drains) add(r.datacenter, r.rack);
  for (const auto& k : snap.known) add(k.datacenter, k.rack);
  for (const auto& m : snap.members) add(m.datacenter, m.rack);
  for (const auto& [dc, rack] : guard.racks) add(dc, rack);
  racks.erase(keys.rack(self.datacenter, self.rack));
  const std::string own_dc = keys.racks() + self.datacenter + "/";
  for (const auto& key : racks) {
    if (!guard.cross_dc && key.rfind(own_dc, 0) != 0) continue;
    const auto read = snap.rack_revisions.find(key);
    compare.emplace_back(EtcdCompare::Target::mod, EtcdCompare::Op::equal, key, "",
                         read == snap.rack_revisions.end() ? 0 : read->second);
  }
  return compare;
}

namespace {

// One key of the prefix into the snapshot: a member, known, watcher, racks or drain key (others ignored).
void add_record(CoordinationSnapshot& snap, const CoordinationKeys& keys, const EtcdKeyValue& kv) {
  if (kv.key.rfind(keys.members(), 0) == 0) {
    if (keys.flat_member(kv.key)) snap.older_agents = true;
    auto m = member_from_json(kv.value);
    if (m)
      snap.members.push_back(std::move(*m));
    else
      ++snap.undecodable;
  } else if (kv.key.rfind(keys.known(), 0) == 0) {
    auto k = known_record_from_json(kv.value);
    if (k)
      snap.known.push_back(std::move(*k));
    else
      ++snap.undecodable;
  } else if (kv.key.rfind(keys.watcher(), 0) == 0) {
    // watcher/<dc>/<role>, or an older agent's watcher/<role> (DC "").
    const std::string rest = kv.key.substr(keys.watcher().size());
    const auto slash = rest.rfind('/');
    const std::string dc = slash == std::string::npos ? "" : rest.substr(0, slash);
    const std::string role = slash == std::string::npos ? rest : rest.substr(slash + 1);
    if (role != to_string(WatcherRole::leader) && role != to_string(WatcherRole::secondary)) return;
    auto holder = role_holder_from_json(kv.value);
    if (!holder) {
      ++snap.undecodable;
      return;
    }
    WatcherRoles& roles = snap.roles[dc];
    (role == to_string(WatcherRole::leader) ? roles.leader : roles.secondary) = *holder;
  } else if (kv.key.rfind(keys.racks(), 0) == 0) {
    snap.rack_revisions[kv.key] = kv.mod_revision;
  } else if (kv.key.rfind(keys.drains(), 0) == 0) {
    auto r = drain_record_from_json(kv.value);
    if (!r) {
      ++snap.undecodable;
      return;
    }
    r->mod_revision = kv.mod_revision;
    r->key = kv.key;
    snap.drains.push_back(std::move(*r));
  }
}

}  // namespace

asio::awaitable<Result<CoordinationSnapshot, EtcdFailure>> read_snapshot(EtcdClient& client,
                                                                         const CoordinationKeys& keys) {
  auto range = co_await client.range(keys.prefix, prefix_range_end(keys.prefix));
  if (!range) co_return range.error();
  CoordinationSnapshot snap;
  snap.revision = range->revision;
  for (const auto& kv : range->kvs) add_record(snap, keys, kv);
  co_return snap;
}

asio::awaitable<Result<bool, EtcdFailure>> guarded(EtcdClient& client, std::string key, std::int64_t revision,
                                                   EtcdOp op, std::vector<EtcdOp> also) {
  std::vector<EtcdCompare> compare;
  compare.emplace_back(EtcdCompare::Target::mod, EtcdCompare::Op::equal, key, "", revision);
  std::vector<EtcdOp> success = std::move(also);
  success.insert(success.begin(), std::move(op));
  std::vector<EtcdOp> failure;
  auto txn = co_await client.txn(std::move(compare), std::move(success), std::move(failure));
  if (!txn) co_return txn.error();
  co_return txn->succeeded;
}

asio::awaitable<Result<EtcdTxnResult, EtcdFailure>> read_ranges(EtcdClient& client,
                                                                std::vector<EtcdOp> gets) {
  const std::size_t asked = gets.size();
  auto txn = co_await client.txn({}, std::move(gets), {});
  if (!txn) co_return txn.error();
  if (txn->ranges.size() != asked) {
    EtcdFailure f;
    f.kind = EtcdFailure::Kind::wrong_shape;
    f.detail = "a transaction of " + std::to_string(asked) + " ranges answered " +
               std::to_string(txn->ranges.size());
    co_return f;
  }
  co_return std::move(txn.value());
}

// The ranges that prove no key under `base` is an older agent's flat one (members/<vm>, known/<vm>: its DC in
// its value only): `base` counted, then each of `dcs`' subtree, the first answered as `first` (etcd counts a
// range whatever else it answers), the others counted.
void add_dc_proof(std::vector<EtcdGet>& gets, const std::string& base, const std::vector<std::string>& dcs,
                  EtcdGet::Answer first) {
  gets.emplace_back(base, prefix_range_end(base), EtcdGet::Answer::count);
  for (std::size_t i = 0; i < dcs.size(); ++i) {
    const std::string under_dc = base + dcs[i] + "/";
    gets.emplace_back(under_dc, prefix_range_end(under_dc), i == 0 ? first : EtcdGet::Answer::count);
  }
}

// The answer to add_dc_proof's ranges, from ranges[at] on (`at` is moved past them): true when the DCs' keys
// add up to the base's.
bool dc_proof_holds(const std::vector<EtcdRange>& ranges, std::size_t& at, std::size_t dcs) {
  const std::int64_t under_base = ranges[at++].count;
  std::int64_t under_dcs = 0;
  for (std::size_t i = 0; i < dcs; ++i) under_dcs += ranges[at++].count;
  return under_dcs == under_base;
}

asio::awaitable<Result<CoordinationSnapshot, EtcdFailure>> read_admission_snapshot(
    EtcdClient& client, const CoordinationKeys& keys, AdmissionRead how) {
  std::vector<EtcdGet> ranges;
  ranges.emplace_back(keys.drains(), prefix_range_end(keys.drains()));
  ranges.emplace_back(keys.racks(), prefix_range_end(keys.racks()));
  const bool names = how.count_members_of.empty();
  const std::vector<std::string> dcs(how.count_members_of.begin(), how.count_members_of.end());
  if (names)
    ranges.emplace_back(keys.members(), prefix_range_end(keys.members()), EtcdGet::Answer::keys);
  else
    add_dc_proof(ranges, keys.members(), dcs, EtcdGet::Answer::count);
  std::vector<EtcdOp> gets;
  for (auto& range : ranges) {
    range.serializable = how.serializable;
    gets.emplace_back(std::move(range));
  }
  auto txn = co_await read_ranges(client, std::move(gets));
  if (!txn) co_return txn.error();
  CoordinationSnapshot snap;
  snap.revision = txn->revision;
  for (const auto& kv : txn->ranges[0].kvs) add_record(snap, keys, kv);
  for (const auto& kv : txn->ranges[1].kvs) add_record(snap, keys, kv);
  if (!names) {
    std::size_t at = 2;
    snap.older_agents = !dc_proof_holds(txn->ranges, at, dcs.size());
    snap.members_read = false;
    co_return snap;
  }
  for (const auto& kv : txn->ranges[2].kvs) {
    // members/<dc>/<vm>; an older agent's members/<vm> names no DC here (it is in the value, not read): a
    // member of no DC matches every DC's record of its VM name, so none of them is taken for stale.
    const std::string rest = kv.key.substr(keys.members().size());
    const auto slash = rest.find('/');
    MemberRecord member;
    if (slash == std::string::npos) {
      snap.older_agents = true;
      member.vm = rest;
    } else {
      member.datacenter = rest.substr(0, slash);
      member.vm = rest.substr(slash + 1);
    }
    snap.members.push_back(std::move(member));
  }
  co_return snap;
}

CoordinationSnapshot CoordinationSnapshot::of_datacenter(const std::string& datacenter) const {
  CoordinationSnapshot out = *this;
  out.members = in_datacenter(std::move(out.members), datacenter);
  out.drains = in_datacenter(std::move(out.drains), datacenter);
  out.known = in_datacenter(std::move(out.known), datacenter);
  return out;
}

Coordinator::Coordinator(asio::any_io_executor ex, const CoordinationConfig& config,
                         EtcdClientOptions options, int replication_factor, MemberRecord self)
    : ex_(ex),
      keys_(coordination_keys(config.cluster)),
      replication_factor_(replication_factor),
      self_(std::move(self)),
      client_(std::make_unique<EtcdClient>(ex, logging_tls_failures(options))),
      lease_client_(std::make_unique<EtcdClient>(ex, logging_tls_failures(options))) {
  EtcdLeaseHandlers handlers;
  handlers.granted = [this](std::int64_t lease) {
    // Before nodetool (or this VM's known record) names the DC there is no member key yet: its key names it.
    log_line(LogLevel::info, "coordination_lease_granted",
             {{"lease", lease},
              {"key", self_.datacenter.empty() ? std::string("(written once the DC is known)")
                                               : keys_.member(self_.datacenter, self_.vm)}});
    member_dirty_ = true;  // a new lease: the member key is put under it
    if (!member_writing_) asio::co_spawn(ex_, write_member(), asio::detached);
  };
  handlers.lost = [this](std::int64_t lease) {
    log_line(LogLevel::warning, "coordination_lease_lost", {{"lease", lease}});
  };
  handlers.failed = [](const EtcdFailure& f, std::chrono::milliseconds retry_in) {
    log_line(LogLevel::debug, "coordination_keepalive_failed",
             {{"detail", describe(f)}, {"retry_in_ms", retry_in.count()}});
  };
  keeper_ = std::make_unique<EtcdLeaseKeeper>(ex, *lease_client_, config.lease_ttl_s, std::move(handlers));
}

EtcdClientOptions Coordinator::logging_tls_failures(EtcdClientOptions options) {
  options.on_tls_failure = [this](const EtcdFailure& f) {
    const auto now = std::chrono::steady_clock::now();
    auto [it, first] = tls_logged_.try_emplace(f.endpoint + " " + f.tls_reason, now);
    if (!first && now < it->second + 60s) return;
    it->second = now;
    log_line(LogLevel::error, "tls_error",
             {{"endpoint", f.endpoint}, {"reason", f.tls_reason}, {"detail", f.detail}});
  };
  return options;
}

void Coordinator::start() {
  asio::co_spawn(ex_, keeper_->run(), asio::detached);
}

void Coordinator::set_identity(const std::string& datacenter, const std::string& rack,
                               const std::string& host_id, const std::string& address) {
  if (self_.datacenter == datacenter && self_.rack == rack && self_.host_id == host_id && address_ == address)
    return;
  self_.datacenter = datacenter;
  self_.rack = rack;
  self_.host_id = host_id;
  address_ = address;
  member_dirty_ = true;
  known_dirty_ = !host_id.empty();
  if (!member_writing_) asio::co_spawn(ex_, write_member(), asio::detached);
}

void Coordinator::set_hints_for(std::map<std::string, std::int64_t> hints_for) {
  if (self_.hints_for == hints_for) return;
  self_.hints_for = std::move(hints_for);
  member_dirty_ = true;
  if (!member_writing_) asio::co_spawn(ex_, write_member(), asio::detached);
}

void Coordinator::set_member(MemberPhase phase, std::vector<std::string> events,
                             std::vector<std::string> approved) {
  if (self_.phase == phase && self_.events == events && self_.approved == approved) return;
  self_.phase = phase;
  self_.events = std::move(events);
  self_.approved = std::move(approved);
  member_dirty_ = true;
  if (!member_writing_) asio::co_spawn(ex_, write_member(), asio::detached);
}

asio::awaitable<Result<CoordinationSnapshot, EtcdFailure>> Coordinator::read() {
  co_return co_await read_snapshot(*client_, keys_);
}

asio::awaitable<Result<std::optional<std::vector<EtcdRange>>, EtcdFailure>> Coordinator::read_dc_scoped(
    std::vector<std::string> bases) {
  const std::string& dc = self_.datacenter;
  if (dc.empty() || !datacenters_.count(dc)) co_return std::nullopt;
  std::vector<std::string> dcs{dc};  // this DC's first: read whole
  for (const auto& other : datacenters_)
    if (other != dc) dcs.push_back(other);
  std::vector<EtcdGet> ranges;
  for (const auto& base : bases) add_dc_proof(ranges, base, dcs, EtcdGet::Answer::values);
  std::vector<EtcdOp> gets(std::make_move_iterator(ranges.begin()), std::make_move_iterator(ranges.end()));
  auto txn = co_await read_ranges(*client_, std::move(gets));
  if (!txn) co_return txn.error();
  std::vector<EtcdRange> own;
  std::size_t at = 0;
  for (std::size_t b = 0; b < bases.size(); ++b) {
    const std::size_t mine = at + 1;
    if (!dc_proof_holds(txn->ranges, at, dcs.size())) co_return std::nullopt;
    own.push_back(std::move(txn->ranges[mine]));
  }
  co_return std::optional(std::move(own));
}

asio::awaitable<Result<std::vector<MemberRecord>, EtcdFailure>> Coordinator::read_dc_members() {
  auto view = co_await read_dc_view(false);
  if (!view) co_return view.error();
  co_return std::move(view->members);
}

asio::awaitable<Result<CoordinationSnapshot, EtcdFailure>> Coordinator::read_dc_view(bool with_known) {
  std::vector<std::string> bases{keys_.members()};  // built before co_await (GCC 12, etcd_types.hpp)
  if (with_known) bases.push_back(keys_.known());
  auto scoped = co_await read_dc_scoped(std::move(bases));
  if (!scoped) co_return scoped.error();
  if (*scoped) {
    CoordinationSnapshot snap;
    for (const auto& range : **scoped)
      for (const auto& kv : range.kvs) add_record(snap, keys_, kv);
    co_return snap;
  }
  auto snap = co_await read_snapshot(*client_, keys_);
  if (!snap) co_return snap.error();
  co_return snap->of_datacenter(self_.datacenter);
}

asio::awaitable<Result<std::vector<MemberRecord>, EtcdFailure>> Coordinator::read_members() {
  auto range = co_await client_->range(keys_.members(), prefix_range_end(keys_.members()));
  if (!range) co_return range.error();
  CoordinationSnapshot snap;
  for (const auto& kv : range->kvs) add_record(snap, keys_, kv);
  co_return std::move(snap.members);
}

// One writer: the latest member value is put under the current lease once the DC is known, with the
// catching_up/<dc>/<vm> key put or deleted in the same transaction, and known/<dc>/<vm> (no lease) when the
// identity changed; failures are retried every second.
asio::awaitable<void> Coordinator::write_member() {
  member_writing_ = true;
  while ((member_dirty_ || known_dirty_) && !stopped_) {
    if (known_dirty_) {
      known_dirty_ = false;
      const KnownRecord known{self_.vm,   self_.fault_domain, self_.datacenter,
                              self_.rack, address_,           self_.host_id};
      auto put = co_await client_->put(
          EtcdPut(keys_.known(self_.datacenter, self_.vm), boost::json::serialize(to_json(known))));
      if (!put) {
        known_dirty_ = true;
        log_line(LogLevel::debug, "coordination_known_write_failed", {{"detail", describe(put.error())}});
        co_await sleep_for(ex_, 1s);
        continue;
      }
      co_await remove_flat_known();
    }
    if (!member_dirty_) continue;
    // Its key names the DC: before nodetool answers, the DC of this VM's known record from an earlier run.
    co_await identity_from_known();
    if (self_.datacenter.empty()) break;  // set_identity writes it once nodetool names the DC
    const std::int64_t lease = keeper_->lease();
    if (lease == 0) break;  // the next grant writes it
    member_dirty_ = false;
    std::vector<EtcdOp> ops;
    ops.emplace_back(
        EtcdPut(keys_.member(self_.datacenter, self_.vm), boost::json::serialize(to_json(self_)), lease));
    const std::string marker = keys_.catching_up(self_.datacenter, self_.vm);
    // Restoring too: a restarted node holds its enablebinary for the hints its peers publish (SPEC 3.10).
    if (self_.phase == MemberPhase::catching_up || self_.phase == MemberPhase::restoring)
      ops.emplace_back(EtcdPut(marker, boost::json::serialize(boost::json::object{{"vm", self_.vm}}), lease));
    else
      ops.emplace_back(EtcdDelete(marker));
    auto put = co_await client_->txn({}, std::move(ops), {});
    if (!put) {
      member_dirty_ = true;
      log_line(LogLevel::debug, "coordination_member_write_failed", {{"detail", describe(put.error())}});
      co_await sleep_for(ex_, 1s);
    }
  }
  member_writing_ = false;
}

std::vector<EtcdOp> Coordinator::rack_bump(const DrainRecord& record) const {
  std::vector<EtcdOp> ops;
  if (record.datacenter.empty() || record.rack.empty()) return ops;
  ops.emplace_back(EtcdPut(keys_.rack(record.datacenter, record.rack),
                           boost::json::serialize(boost::json::object{{"vm", record.vm}})));
  return ops;
}

asio::awaitable<AdmissionOutcome> Coordinator::admit(std::string event_id, bool unconditional,
                                                     std::set<std::string> up_host_ids,
                                                     ExactAdmissionCheck exact,
                                                     std::set<std::string> unavailable_racks,
                                                     AdmissionGuard guard) {
  ++admissions_asked_;  // a release asked before this admission must not delete its record
  DrainRecord record;
  record.vm = self_.vm;
  record.datacenter = self_.datacenter;
  record.rack = self_.rack;
  record.host_id = self_.host_id;
  record.events = self_.events;
  if (std::find(record.events.begin(), record.events.end(), to_upper(event_id)) == record.events.end())
    record.events.push_back(to_upper(event_id));
  record.since = WallClock::now();
  if (unconditional) {
    // An emergency drain at start-up comes before nodetool told the node's identity: the record would count
    // no rack and no host (issue 41). What this agent wrote in known/<dc>/<vm> at an earlier start names
    // them.
    if (record.host_id.empty()) {
      co_await identity_from_known();
      record.datacenter = self_.datacenter;
      record.rack = self_.rack;
      record.host_id = self_.host_id;
    }
    const std::string own_key = keys_.drain(record.datacenter, self_.vm);
    std::vector<EtcdOp> puts = rack_bump(record);
    puts.emplace_back(EtcdPut(own_key, boost::json::serialize(to_json(record))));
    auto put = co_await client_->txn({}, std::move(puts), {});
    if (!put) co_return AdmissionOutcome{CoordinationResult::unavailable, describe(put.error()), {}, 1};
    if (record.host_id.empty())
      log_line(
          LogLevel::warning, "drain_record_without_identity",
          {{"key", own_key}, {"reason", "nodetool has not named the node yet and known/ holds no record"}});
    co_return AdmissionOutcome{CoordinationResult::allowed, "recorded unconditionally", {}, 1};
  }
  const std::string own_key = keys_.drain(self_.datacenter, self_.vm);
  const std::string value = boost::json::serialize(to_json(record));
  const auto contended_until = std::chrono::steady_clock::now() + kAdmissionContention;
  // The first read is the member's own (serializable): in a wave, a read through the leader waits for the
  // other agents' commits to apply. Whatever such a read missed, the transaction's compares reject (the
  // racks' keys or the drains' revisions, and each stale record's); a refusal is given only on a read through
  // the leader, so that a record released just before is never taken for one still there.
  // Until a refusal the member keys are only counted: with every record counted live an admission can only be
  // harder than with the stale ones left out, so only a refusal needs their names (and an older agent's flat
  // key, which turns the racks' guard off, is found by the counts).
  AdmissionRead how{true, datacenters_};
  if (self_.datacenter.empty() || !datacenters_.count(self_.datacenter)) how.count_members_of.clear();
  for (int attempt = 1;; ++attempt) {
    auto snap = co_await read_admission_snapshot(*client_, keys_, how);
    if (!snap)
      co_return AdmissionOutcome{CoordinationResult::unavailable, describe(snap.error()), {}, attempt};
    AdmissionInput in;
    in.vm = self_.vm;
    in.datacenter = self_.datacenter;
    in.rack = self_.rack;
    in.replication_factor = replication_factor_;
    in.records = snap->drains;
    in.members_read = snap->members_read;
    for (const auto& m : snap->members) in.member_vms.insert(vm_identity(m.datacenter, m.vm));
    in.up_host_ids = std::move(up_host_ids);
    in.exact = exact;
    in.unavailable_racks = unavailable_racks;
    const AdmissionVerdict verdict = decide_admission(in);
    up_host_ids = std::move(in.up_host_ids);
    if (!verdict.admitted && (how.serializable || !snap->members_read)) {
      how = AdmissionRead{};
      continue;
    }
    if (!verdict.admitted)
      co_return AdmissionOutcome{CoordinationResult::refused, verdict.reason, verdict.out_racks, attempt};
    std::vector<EtcdCompare> compare = admission_compares(keys_, *snap, self_, guard, verdict.stale);
    std::vector<EtcdOp> success = rack_bump(record);
    success.emplace_back(EtcdPut(own_key, value));
    for (const auto& stale : verdict.stale) success.emplace_back(EtcdDelete(stale.key));
    for (const auto& old : verdict.own)  // written by this VM's agent before its upgrade (a flat key)
      if (old.key != own_key) success.emplace_back(EtcdDelete(old.key));
    std::vector<EtcdOp> failure;
    auto txn = co_await client_->txn(std::move(compare), std::move(success), std::move(failure));
    if (!txn) co_return AdmissionOutcome{CoordinationResult::unavailable, describe(txn.error()), {}, attempt};
    if (txn->succeeded) {
      for (const auto& stale : verdict.stale)
        log_line(LogLevel::warning, "stale_drain_record_removed",
                 {{"vm", stale.vm},
                  {"rack", stale.rack},
                  {"host_id", stale.host_id},
                  {"reason", "its agent has no member key and its node is UN"}});
      co_return AdmissionOutcome{CoordinationResult::allowed, verdict.reason, {}, attempt};
    }
    how.serializable = false;
    const auto pause = contention_pause(attempt);
    if (std::chrono::steady_clock::now() + pause >= contended_until)
      co_return AdmissionOutcome{CoordinationResult::refused,
                                 "other agents' drain records kept changing for " +
                                     std::to_string(kAdmissionContention.count()) + " s (" +
                                     std::to_string(attempt) + " transactions)",
                                 {},
                                 attempt};
    co_await sleep_for(ex_, pause);
  }
}

// VM names repeat across regions: a name known in two DCs names neither node.
asio::awaitable<void> Coordinator::identity_from_known() {
  if (!self_.datacenter.empty()) co_return;
  auto read = co_await client_->range(keys_.known(), prefix_range_end(keys_.known()));
  if (!read || !self_.datacenter.empty()) co_return;
  std::vector<KnownRecord> mine;
  for (const auto& kv : read->kvs)
    if (auto known = known_record_from_json(kv.value); known && iequals(known->vm, self_.vm))
      mine.push_back(std::move(*known));
  if (mine.empty()) co_return;
  const KnownRecord* known = &mine.front();
  if (std::any_of(mine.begin(), mine.end(),
                  [&](const KnownRecord& k) { return k.datacenter != known->datacenter; })) {
    log_line(
        LogLevel::warning, "identity_from_known_ambiguous",
        {{"vm", self_.vm}, {"reason", "known records of several DCs name this VM: waiting for nodetool"}});
    co_return;
  }
  self_.datacenter = known->datacenter;
  self_.rack = known->rack;
  self_.host_id = known->host_id;
  log_line(LogLevel::info, "identity_from_known",
           {{"datacenter", self_.datacenter}, {"rack", self_.rack}, {"host_id", self_.host_id}});
}

asio::awaitable<SharedOutcome> Coordinator::shared_verdict(std::string event_id,
                                                           std::vector<std::string> resources,
                                                           bool wait_for_unregistered) {
  auto members = co_await read_dc_members();
  if (!members)
    co_return SharedOutcome{CoordinationResult::unavailable, describe(members.error()), "", {}, {}};
  SharedApprovalInput in;
  in.vm = self_.vm;
  in.event_id = std::move(event_id);
  in.resources = std::move(resources);
  in.wait_for_unregistered = wait_for_unregistered;
  for (auto& m : *members)  // Resources name own-DC VMs
    if (!iequals(m.vm, self_.vm)) in.members.push_back(std::move(m));
  if (keeper_->lease() != 0) in.members.push_back(self_);  // this agent's own view is the newest
  const SharedVerdict v = decide_shared_approval(in);
  SharedOutcome out;
  out.result = v.this_agent_approves ? CoordinationResult::allowed : CoordinationResult::refused;
  out.approver = v.approver;
  out.waiting = v.waiting;
  out.unregistered = v.unregistered;
  out.detail = v.this_agent_approves ? "every listed member is drained"
               : v.ready             ? "every listed member is drained; " + v.approver + " approves"
                                     : "waiting for listed VMs to be drained";
  co_return out;
}

// Never a blind delete (issue 41): a retry that came after a later admission would delete that drain's
// record. An admission asked since this release supersedes it; otherwise the record is read and deleted only
// if its mod revision is still the one read, so a put landing between the two keeps its record. Both layouts:
// drains/<dc>/<vm>, and the flat drains/<vm> an older agent of this VM wrote (or this one, before nodetool
// named the DC), deleted only when its value names this VM in this DC or in none.
asio::awaitable<void> Coordinator::release() {
  const std::uint64_t admissions_before = admissions_asked_;
  std::vector<std::string> keys{keys_.drain(self_.datacenter, self_.vm)};
  if (!self_.datacenter.empty()) keys.push_back(keys_.drain("", self_.vm));
  for (const auto& key : keys)
    if (!co_await release_key(key, admissions_before)) co_return;
}

asio::awaitable<bool> Coordinator::release_key(const std::string& key, std::uint64_t admissions_before) {
  const auto superseded = [&] {
    if (admissions_asked_ == admissions_before) return false;
    log_line(LogLevel::info, "drain_record_release_superseded",
             {{"key", key}, {"reason", "a later drain was recorded since the release was asked"}});
    return true;
  };
  const auto mine = [&](const std::string& value) {
    auto record = drain_record_from_json(value);
    return record && names_vm(record->datacenter, record->vm, self_.datacenter, self_.vm);
  };
  for (auto delay = 1s; !stopped_; delay = std::min<std::chrono::seconds>(delay * 2, 10s)) {
    if (superseded()) co_return false;
    auto read = co_await client_->range(key);
    std::optional<EtcdFailure> failure;
    if (!read) {
      failure = read.error();
    } else if (read->kvs.empty() || !mine(read->kvs.front().value)) {
      co_return true;
    } else if (superseded()) {
      co_return false;
    } else {
      auto done = co_await guarded(*client_, key, read->kvs.front().mod_revision, EtcdDelete(key));
      if (done) {
        if (*done) log_line(LogLevel::info, "drain_record_removed", {{"key", key}});
        co_return true;
      }
      failure = done.error();
    }
    log_line(LogLevel::warning, "drain_record_removal_failed",
             {{"key", key}, {"detail", describe(*failure)}, {"retry_in_s", delay.count()}});
    co_await sleep_for(ex_, delay);
  }
  co_return false;
}

// Once known/<dc>/<vm> is written, an older agent's known/<vm> for this VM and DC is only a duplicate; one of
// another DC's VM of the same name (an older agent there) is left alone. Best effort: a failure leaves a
// duplicate that reads the same.
asio::awaitable<void> Coordinator::remove_flat_known() {
  if (self_.datacenter.empty()) co_return;
  const std::string key = keys_.known("", self_.vm);
  auto read = co_await client_->range(key);
  if (!read || read->kvs.empty()) co_return;
  auto known = known_record_from_json(read->kvs.front().value);
  if (!known || known->datacenter != self_.datacenter) co_return;
  auto done = co_await guarded(*client_, key, read->kvs.front().mod_revision, EtcdDelete(key));
  if (done && *done)
    log_line(LogLevel::info, "flat_record_removed",
             {{"key", key}, {"replaced_by", keys_.known(self_.datacenter, self_.vm)}});
}

asio::awaitable<void> Coordinator::shutdown() {
  stopped_ = true;
  keeper_->stop();
  lease_client_->cancel();
  const std::int64_t lease = keeper_->lease();
  if (lease == 0) co_return;
  auto revoked = co_await client_->lease_revoke(lease);
  log_line(revoked ? LogLevel::info : LogLevel::warning, "coordination_lease_revoked",
           {{"lease", lease}, {"ok", revoked.ok()}, {"detail", revoked ? "" : describe(revoked.error())}});
}

}  // namespace cla
