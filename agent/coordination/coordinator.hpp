// The coordinated mode's shell (SPEC 9): this agent's member key on a lease, drain admission as one etcd
// transaction, the reads behind shared-event approval, and the drain record's removal. Decisions are made by
// state/coordination_decisions; this class only reads and writes etcd.
#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "agent/config/config.hpp"
#include "agent/coordination/etcd/etcd_client.hpp"
#include "agent/coordination/etcd/etcd_lease_keeper.hpp"
#include "state/coordination_decisions.hpp"
#include "state/core_io.hpp"
#include "state/watcher.hpp"

namespace cla {

// The client's options: the endpoints, the password read from password_file (one trailing newline dropped),
// and a request timeout derived from the lease TTL: TTL/5 within 1-5 s, so that a keepalive every TTL/3 can
// fail over across two unresponsive members before the lease runs out. Fails when the password file cannot
// be read (the config check already read it once; it may have changed since).
Result<EtcdClientOptions> etcd_client_options(const CoordinationConfig& coordination);

// "/cassandra-lifecycle-agent/<cluster>/" and the keys under it, by DC and VM (SPEC 9, "Several regions"):
// members/<dc>/<vm>, drains/<dc>/<vm>, known/<dc>/<vm>, watcher/<dc>/{leader,secondary}. An empty DC gives
// the flat key of older agents (members/<vm>, watcher/leader): what they wrote, and where a drain is recorded
// when nodetool has not named the node's DC yet.
struct CoordinationKeys {
  std::string prefix;
  std::string members() const { return prefix + "members/"; }
  std::string drains() const { return prefix + "drains/"; }
  std::string known() const { return prefix + "known/"; }
  std::string watcher() const { return prefix + "watcher/"; }
  // racks/<dc>/<rack>: put beside every drain record written in that rack, so that its mod revision changes
  // with each of them; an admission that guards other racks only compares theirs (issue 40).
  std::string racks() const { return prefix + "racks/"; }
  // catching_up/<dc>/<vm>: under the member's lease while its node catches up (SPEC 3.10), so that every
  // agent's watcher step learns who does from a range of a few keys, not from every member key.
  std::string catching_up() const { return prefix + "catching_up/"; }
  std::string catching_up(const std::string& dc, const std::string& vm) const {
    return catching_up() + dc + "/" + vm;
  }
  std::string rack(const std::string& dc, const std::string& rack) const { return racks() + dc + "/" + rack; }
  std::string member(const std::string& dc, const std::string& vm) const { return under(members(), dc) + vm; }
  // A key under members/ of an older agent: members/<vm>, its DC only in its value.
  bool flat_member(const std::string& key) const {
    return key.find('/', members().size()) == std::string::npos;
  }
  std::string drain(const std::string& dc, const std::string& vm) const { return under(drains(), dc) + vm; }
  std::string known(const std::string& dc, const std::string& vm) const { return under(known(), dc) + vm; }
  std::string watcher(const std::string& dc) const { return under(watcher(), dc); }
  std::string watcher_role(const std::string& dc, WatcherRole role) const {
    return watcher(dc) + std::string(to_string(role));
  }

 private:
  static std::string under(const std::string& base, const std::string& dc) {
    return dc.empty() ? base : base + dc + "/";
  }
};
CoordinationKeys coordination_keys(const std::string& cluster);

// Everything under the prefix, both layouts, decoded; values that do not decode are skipped (and counted).
// Records carry their DC in the value, so a flat key reads as a keyed one.
struct CoordinationSnapshot {
  std::vector<MemberRecord> members;
  std::vector<DrainRecord> drains;
  std::vector<KnownRecord> known;
  std::map<std::string, WatcherRoles> roles;  // by DC; "": older agents' watcher/leader and watcher/secondary
  std::map<std::string, std::int64_t> rack_revisions;  // racks/<dc>/<rack> key -> its mod revision
  bool older_agents = false;                           // a member key without a DC (members/<vm>)
  bool members_read = true;                            // false: only counted (AdmissionRead)
  std::int64_t revision = 0;
  int undecodable = 0;
  // The members, drains and known VMs of one DC (in_datacenter), roles kept whole.
  CoordinationSnapshot of_datacenter(const std::string& datacenter) const;
};
boost::asio::awaitable<Result<CoordinationSnapshot, EtcdFailure>> read_snapshot(EtcdClient& client,
                                                                                const CoordinationKeys& keys);
// `gets` in one read-only transaction: one range per get, in order (an answer of another count is
// wrong_shape).
boost::asio::awaitable<Result<EtcdTxnResult, EtcdFailure>> read_ranges(EtcdClient& client,
                                                                       std::vector<EtcdOp> gets);
struct AdmissionRead {
  bool serializable = false;  // the member's own answer (EtcdGet::serializable)
  // Empty: the member keys' names are read, to judge stale records. Else they are only counted, under
  // members/ and under each of these DCs' members/<dc>/: unequal counts mean an older agent's flat key
  // (older_agents), and no record can be judged stale (members_read false).
  std::set<std::string> count_members_of;
};
// What an admission decides on, in one transaction: the drain records, the racks' keys, and the member keys'
// names only (members: VM and DC from the key; an older agent's flat key gives DC ""), or their counts. At
// 450 agents a fault domain's 150 admissions each reading the whole prefix (every member and known record)
// kept etcd busy for seconds.
boost::asio::awaitable<Result<CoordinationSnapshot, EtcdFailure>> read_admission_snapshot(
    EtcdClient& client, const CoordinationKeys& keys, AdmissionRead how = {});

// `op` (a put or delete of `key`, with `also` beside it) in one transaction, only if `key`'s mod revision is
// still `revision` (0: absent): a record written since it was read is never overwritten or deleted. True
// when applied.
boost::asio::awaitable<Result<bool, EtcdFailure>> guarded(EtcdClient& client, std::string key,
                                                          std::int64_t revision, EtcdOp op,
                                                          std::vector<EtcdOp> also = {});

// What the admitting transaction guards against (issue 40). By default every drain record: any other
// agent's commit since the read makes it read and decide again, so a rack's agents, admitted together in a
// wave, commit one after the other. `rack_batched`: this node's rack holds one replica of every range at most
// (rack_holds_one_replica_per_range, or the rack count decides), so its rack's other drains cannot short a
// range its verdict counted on, and only the other racks' racks/<dc>/<rack> keys are compared: of this DC
// when `cross_dc` is false (a LOCAL_ level), of every DC otherwise. Never batched while a member key is flat
// (an older agent's admissions bump no rack key).
struct AdmissionGuard {
  bool rack_batched = false;
  bool cross_dc = true;
  // Every (DC, rack) of the node's last nodetool status: a rack that no drain has named yet has no
  // racks/<dc>/<rack> key, and its first drain must still be compared (its key absent, MOD == 0).
  std::set<std::pair<std::string, std::string>> racks;
};

// The admitting transaction's compares. Unbatched: no record under drains/ changed since the read. Batched:
// the racks/<dc>/<rack> key of every other rack the guard, a record or a key names (this DC's only when not
// cross_dc) still at the revision read (0: still absent), so that a drain recorded in another rack since the
// read makes this one read and decide again, and one in this rack does not. Either way each record in
// `removing` (stale ones the transaction deletes) still at the revision read: its agent, back since the read,
// may have written it again, and a record written since it was read is never deleted.
std::vector<EtcdCompare> admission_compares(const CoordinationKeys& keys, const CoordinationSnapshot& snap,
                                            const MemberRecord& self, AdmissionGuard guard,
                                            const std::vector<DrainRecord>& removing = {});

// A watcher step's read: this DC's roles, and whether a catching_up/<dc>/<vm> key names another VM (any DC:
// every node holds hints for a peer that was out).
struct WatchRead {
  WatcherRoles roles;
  bool another_catching_up = false;
};

class Coordinator {
 public:
  Coordinator(boost::asio::any_io_executor ex, const CoordinationConfig& config, EtcdClientOptions options,
              int replication_factor, MemberRecord self);

  void start();  // the lease keeper; the member key is put at each grant
  // The member key's phase, events and approvals; written (in the background) when they change.
  void set_member(MemberPhase phase, std::vector<std::string> events, std::vector<std::string> approved);
  // SPEC 3.10: the host ids this node holds hints for, with their files (empty: none, or nobody catches up).
  void set_hints_for(std::map<std::string, std::int64_t> hints_for);
  // The node's DC, rack, host id and address, as nodetool reports them: the member key and known/<dc>/<vm>.
  // Until the DC is known (from nodetool, or this VM's known record) no member key is written: its key names
  // the DC.
  void set_identity(const std::string& datacenter, const std::string& rack, const std::string& host_id,
                    const std::string& address);
  // Every DC of the node's last nodetool status: what proves a DC's own ranges complete (read_dc_scoped).
  void set_datacenters(std::set<std::string> datacenters) { datacenters_ = std::move(datacenters); }
  // Everything under the cluster's prefix (members, drains, known VMs), read now.
  boost::asio::awaitable<Result<CoordinationSnapshot, EtcdFailure>> read();
  // This DC's member records, and its known records `with_known` (members/<dc>/, known/<dc>/;
  // read_dc_scoped), or, beside an older agent's flat key, the whole prefix's of this DC: the fleet view's
  // read, before a gate check. At 450 agents the whole prefix (~400 KB) read by every agent of a DC at once
  // was most of what etcd served in a wave.
  boost::asio::awaitable<Result<CoordinationSnapshot, EtcdFailure>> read_dc_view(bool with_known);
  // Every DC's member keys (one range over members/): who holds hints for whom (SPEC 3.10), read by a
  // catching-up agent every few seconds, without the known records beside them.
  boost::asio::awaitable<Result<std::vector<MemberRecord>, EtcdFailure>> read_members();
  // The node's DC as nodetool last named it ("" until then).
  const std::string& datacenter() const { return self_.datacenter; }
  // This agent as a watcher role's value: VM, fault domain, rack.
  RoleHolder role_holder() const { return {self_.vm, self_.fault_domain, self_.rack}; }

  // Records this node's drain: when `exact` (the replication verdict with the recorded drains' nodes
  // unavailable) admits it, or within the rack budget when it cannot judge (stale records deleted in the same
  // transaction); or unconditionally. `up_host_ids`: the hosts UN in this agent's nodetool status.
  // `unavailable_racks`: racks of this DC out whatever the records (AdmissionInput).
  boost::asio::awaitable<AdmissionOutcome> admit(std::string event_id, bool unconditional,
                                                 std::set<std::string> up_host_ids, ExactAdmissionCheck exact,
                                                 std::set<std::string> unavailable_racks = {},
                                                 AdmissionGuard guard = {});
  boost::asio::awaitable<SharedOutcome> shared_verdict(std::string event_id,
                                                       std::vector<std::string> resources,
                                                       bool wait_for_unregistered);
  // The watcher of this agent's DC (coordinator_watcher.cpp). Who holds the roles (watcher/<dc>/) and
  // whether another VM's node catches up (catching_up/), in one request of a few keys.
  boost::asio::awaitable<Result<WatchRead, EtcdFailure>> read_watch();
  // Takes the role's key under this agent's lease if nobody holds it (create_revision == 0); the leader's
  // key taken by the secondary drops its secondary key in the same transaction. True when taken.
  boost::asio::awaitable<bool> try_role(WatcherRole role, bool release_secondary);
  // The leader's plan: each agentless record put, or deleted, only if unchanged since it was read. Returns
  // the records put.
  boost::asio::awaitable<std::vector<DrainRecord>> apply_watcher(WatcherPlan plan);
  // Removes this node's drain record, retrying until etcd answers (a left record would block other racks),
  // unless an admission was asked since (its record is the node's now).
  boost::asio::awaitable<void> release();
  // On SIGTERM: stop keeping the lease and revoke it (the member key goes at once).
  boost::asio::awaitable<void> shutdown();

 private:
  // This DC's member keys (read_dc_view without the known records): the shared approval's read, made by each
  // drained agent of a shared event, 150 at once in a fault domain of the case study's DCs.
  boost::asio::awaitable<Result<std::vector<MemberRecord>, EtcdFailure>> read_dc_members();
  boost::asio::awaitable<void> write_member();
  // racks/<dc>/<rack> put beside a drain record of that rack (nothing when the record names no rack).
  std::vector<EtcdOp> rack_bump(const DrainRecord& record) const;
  // release() of one key; false when superseded by a later admission or stopped (nothing more to release).
  boost::asio::awaitable<bool> release_key(const std::string& key, std::uint64_t admissions_before);
  // While nodetool has not named the node (JMX hung at start-up): its DC, rack and host id from this VM's
  // known record of an earlier run, when the known records naming this VM are all of one DC. Without a DC no
  // member key can be written, and without a member key other agents would take this node's drain record
  // for stale once its node is UN (catching up, say).
  boost::asio::awaitable<void> identity_from_known();
  // An older agent's known/<vm> of this VM and DC, deleted once known/<dc>/<vm> is written (if unchanged).
  boost::asio::awaitable<void> remove_flat_known();
  // This DC's ranges under `bases` (members/, known/), one per base in order, in one transaction beside the
  // count of every key under each base and of each other DC's keys there (count_only: no values). When the
  // DCs' counts add up to the base's, no older agent's flat key (members/<vm>, its DC in its value only) is
  // left out; when they do not (a flat key, a DC the last status did not name, no DC known yet): none, and
  // the caller reads the whole prefix.
  boost::asio::awaitable<Result<std::optional<std::vector<EtcdRange>>, EtcdFailure>> read_dc_scoped(
      std::vector<std::string> bases);
  // `options` with TLS failures logged as tls_error: at most once a minute per member and reason.
  EtcdClientOptions logging_tls_failures(EtcdClientOptions options);

  boost::asio::any_io_executor ex_;
  std::map<std::string, std::chrono::steady_clock::time_point> tls_logged_;  // "<endpoint> <reason>"
  CoordinationKeys keys_;
  int replication_factor_;
  MemberRecord self_;
  std::string address_;                       // the node's, for known/<dc>/<vm>
  std::set<std::string> datacenters_;         // set_datacenters
  std::unique_ptr<EtcdClient> client_;        // admission, reads, member writes
  std::unique_ptr<EtcdClient> lease_client_;  // keepalives never queue behind a transaction
  std::unique_ptr<EtcdLeaseKeeper> keeper_;
  bool member_dirty_ = false;
  bool known_dirty_ = false;  // known/<dc>/<vm> needs writing (no lease: once per identity)
  bool member_writing_ = false;
  bool stopped_ = false;
  std::uint64_t admissions_asked_ = 0;  // admit() calls so far: a release older than the last one is void
};

}  // namespace cla
