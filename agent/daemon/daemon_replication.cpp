// The gate's I/O (SPEC 3.4): each check's `nodetool status` (+ `info` once), and the schema refresh
// (`describecluster` and `ring`) at start, on an event seen, and before a check when older than
// topology.schema_refresh_s. The answer itself is decide_gate's (cassandra/gate/replication_gate.hpp, pure).
#include <boost/asio.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>

#include "agent/daemon/daemon.hpp"
#include "agent/daemon/failpoint.hpp"
#include "agent/daemon/on_exit.hpp"
#include "agent/log.hpp"
#include "cassandra/gate/rack_batching.hpp"
#include "cassandra/gate/replication_gate.hpp"
#include "cassandra/node_identity.hpp"
#include "cassandra/nodetool_output/describecluster_parser.hpp"
#include "cassandra/nodetool_output/info_parser.hpp"
#include "cassandra/nodetool_output/ring_parser.hpp"
#include "cassandra/nodetool_output/status_parser.hpp"

namespace cla {

namespace asio = boost::asio;
using namespace boost::asio::experimental::awaitable_operators;

namespace {

constexpr std::string_view kFailClosed = " (fail closed)";

// unsafe_to_drain's `down` names each impacted neighbour's VM and why beside its address (SPEC 9), e.g.
// "127.0.1.2 (vm1: event 6F1C... Started)".
void name_neighbours(SafetyResult& result,
                     const std::vector<std::pair<std::string, NeighbourImpact>>& neighbours) {
  auto* down = result.fields.if_contains("down");
  if (!down || !down->is_array() || neighbours.empty()) return;
  for (auto& entry : down->get_array()) {
    if (!entry.is_string()) continue;
    for (const auto& [address, impact] : neighbours)
      if (entry.get_string() == address)
        entry = address + " (" + impact.vm + ": event " + impact.event_id + " " + impact.why + ")";
  }
}

// SPEC 3.10: the peers this node still holds hints for catch up, and count as unavailable: the verdict that
// they make unsafe says so (`reason: "catching_up"`, each with its hints files held here; 0: hints the
// counters see, in a file Cassandra has not closed yet).
void name_catching_up(SafetyResult& result,
                      const std::vector<std::pair<std::string, std::string>>& catching_up,
                      const std::map<std::string, std::int64_t>& held) {
  if (result.safe || catching_up.empty()) return;
  boost::json::array nodes;
  for (const auto& [address, host_id] : catching_up)
    nodes.push_back(
        boost::json::object{{"address", address}, {"host_id", host_id}, {"hints_files", held.at(host_id)}});
  result.fields["reason"] = "catching_up";
  result.fields["catching_up"] = std::move(nodes);
  if (auto* down = result.fields.if_contains("down"); down && down->is_array())
    for (auto& entry : down->get_array())
      for (const auto& [address, host_id] : catching_up)
        if (entry.is_string() && entry.get_string() == address)
          entry = address + " (catching up: " +
                  (held.at(host_id) > 0 ? std::to_string(held.at(host_id)) + " hints files held here)"
                                        : std::string("hints held here, not yet in a closed file)"));
}

}  // namespace

// `status` at every check; `info` beside the first one only (the host id does not change while Cassandra
// runs, and each nodetool is a JVM start), or when the node is not in the status under its id (restarted as
// another?).
asio::awaitable<Result<Daemon::ClusterView>> Daemon::read_cluster_view() {
  NodeRead<ClusterStatus> cluster = NodeReadFailure{};
  NodeRead<NodeInfo> info = NodeReadFailure{};
  const WallTime taken_at = clock_.now();
  const bool info_ran = own_host_id_.empty();
  auto read_status = [&]() -> asio::awaitable<void> { cluster = co_await node_->status(); };
  auto read_info = [&]() -> asio::awaitable<void> { info = co_await node_->info(); };
  if (info_ran)
    co_await (read_status() && read_info());
  else
    co_await read_status();
  if (!cluster) co_return make_error(cluster.error().message(kFailClosed));
  std::optional<NodeInfo> self = identity_in_status(*cluster, own_host_id_);
  if (!self) {
    if (!info_ran) info = co_await node_->info();
    if (!info) co_return make_error(info.error().message(kFailClosed));
    self = info.value();
    own_host_id_ = self->host_id;
  }
  up_host_ids_.clear();
  for (const auto& row : cluster->rows)
    if (row.up_normal() && !row.host_id.empty()) up_host_ids_.insert(row.host_id);
  up_taken_at_ = taken_at;
  if (coordinator_) {
    coordinator_->set_identity(self->datacenter, self->rack, self->host_id,
                               address_of_host_id(*cluster, self->host_id));
    std::set<std::string> datacenters;
    for (const auto& row : cluster->rows) datacenters.insert(row.datacenter);
    coordinator_->set_datacenters(std::move(datacenters));
  }
  ClusterView view{std::move(*cluster), *self, ""};
  view.address = address_of_host_id(view.status, self->host_id);
  last_view_ = view;
  co_return view;
}

// Reads the node's view of the cluster and asks the gate; a status that cannot be read is unsafe (fail
// closed).
asio::awaitable<SafetyResult> Daemon::evaluate_gate() {
  const std::uint64_t generation = reads_generation_;
  co_await schema_for_check();
  // Given up while it waited for the refresh: no new nodetool run for an answer nobody waits for.
  if (abandoned_since(generation)) co_return SafetyResult{false, "abandoned", {}, {}};
  const SteadyTime status_taken_at = std::chrono::steady_clock::now();
  Result<ClusterView> view = make_error("not read");
  std::map<std::string, std::int64_t> held;
  auto read_view = [&]() -> asio::awaitable<void> { view = co_await read_cluster_view(); };
  auto read_hints = [&]() -> asio::awaitable<void> { held = co_await hints_held_for_gate(); };
  if (coordinator_ && neighbours_possible(last_events_, resource_name_))
    co_await (fleet_view_for_check() && read_view() && read_hints());
  else
    co_await (read_view() && read_hints());
  if (!view) co_return SafetyResult{false, view.error().message, {}, {}};
  // An impacted VM whose mapped node this status does not show (replaced while its agent was gone): its
  // records read again now (hosts_unknown sees it against this status), not at the next check, which might
  // come after a drain this one let through.
  if (coordinator_ && impacted_mapping_stale(view->status)) co_await fleet_view_for_check();
  const std::string configured = config_.topology.rack_for(fault_domain_, zone_);
  // Once per change, not at every check (issue 40): a recheck every unsafe_recheck_s would repeat it.
  const std::optional<std::pair<std::string, std::string>> mismatch =
      configured == view->self.rack ? std::nullopt : std::optional{std::pair{configured, view->self.rack}};
  if (mismatch && mismatch != topology_mismatch_logged_)
    log_line(LogLevel::error, "topology_mismatch",
             {{"fault_domain", fault_domain_},
              {"zone", zone_},
              {"rack_source", to_string(config_.topology.rack_source)},
              {"configured_rack", configured},
              {"cassandra_rack", view->self.rack},
              {"note", "the gate uses the rack nodetool reports; said again only when either changes"}});
  topology_mismatch_logged_ = mismatch;
  const auto neighbours = impacted_nodes(view->status, status_taken_at);
  std::vector<std::string> unavailable;
  for (const auto& [address, impact] : neighbours) unavailable.push_back(address);
  std::vector<std::pair<std::string, std::string>> catching_up;  // address, host id
  for (const auto& [host_id, files] : held) {
    const auto addresses = addresses_of_host_ids(view->status, {host_id});
    if (addresses.empty() || host_id == view->self.host_id) continue;
    catching_up.emplace_back(addresses.front(), host_id);
    unavailable.push_back(addresses.front());
  }
  const auto decide = [&] {
    return decide_gate({view->status, view->self, view->address, snapshot_.get(),
                        config_.topology.consistency, config_.topology.replication_factor, unavailable});
  };
  GateDecision d = decide();
  // The status shows a ring the last refresh did not (a join or a move finished, a node joined): read the
  // schema again now and judge again, once per such change, instead of saying ring_changing until
  // schema_refresh_s passes (issue 40). A change the refresh does not resolve (a join under way) waits.
  if (d.verdict && d.verdict->reason == VerdictReason::ring_changing &&
      d.verdict->detail != ring_change_refreshed_ && !abandoned_since(generation)) {
    ring_change_refreshed_ = d.verdict->detail;
    log_line(LogLevel::info, "schema_refresh_for_ring_change", {{"ring_change", d.verdict->detail}});
    if (!refreshing_) co_await refresh_schema("ring_change");
    co_await schema_for_check();  // waits for a refresh under way
    if (abandoned_since(generation)) co_return SafetyResult{false, "abandoned", {}, {}};
    d = decide();
  }
  name_neighbours(d.result, neighbours);
  name_catching_up(d.result, catching_up, held);
  if (d.result.safe && d.verdict)
    log_line(LogLevel::debug, "safe_to_drain",
             {{"consistency", to_string(config_.topology.consistency)},
              {"keyspaces_checked", d.verdict->keyspaces_checked},
              {"ranges_checked", d.verdict->ranges_checked}});
  co_return d.result;
}

// describecluster and ring at once (2 runs whatever the number of keyspaces; status and, the first time, info
// beside them while this node's address is not known yet). Every keyspace that cannot be protected is
// reported once per refresh.
asio::awaitable<void> Daemon::refresh_schema(std::string why) {
  const std::uint64_t generation = reads_generation_;
  refreshing_ = true;
  // However the refresh ends, a gate check waiting for it goes on.
  const OnExit refreshed([this] {
    refreshing_ = false;
    refresh_done_.cancel();
  });
  refresh_attempted_at_ = std::chrono::steady_clock::now();
  failpoint("schema_refresh");
  std::optional<Result<ReplicationSnapshot>> schema;
  auto read_into = [&]() -> asio::awaitable<void> { schema.emplace(co_await read_schema()); };
  auto view = [&]() -> asio::awaitable<void> { (void)co_await read_cluster_view(); };
  if (last_view_)
    co_await (read_into() && read_hint_window());
  else
    co_await (read_into() && view() && read_hint_window());
  Result<ReplicationSnapshot> snapshot = std::move(*schema);
  if (stopping_) co_return;
  if (abandoned_since(generation)) {
    // Killed for a forced or emergency drain: the last snapshot stands, and the next trigger reads again.
    refresh_attempted_at_.reset();
    log_line(LogLevel::info, "schema_refresh_abandoned", {{"trigger", why}});
    co_return;
  }
  if (!snapshot) {
    snapshot_.reset();
    log_line(
        LogLevel::warning, "gate_fallback",
        {{"reason", snapshot.error().message},
         {"trigger", why},
         {"replication_factor", config_.topology.replication_factor},
         {"note", "the gate counts racks against topology.replication_factor until a refresh succeeds"}});
    co_return;
  }
  snapshot_ = std::make_shared<const ReplicationSnapshot>(std::move(*snapshot));
  std::vector<UnprotectableKeyspace> unprotectable;
  if (last_view_)
    unprotectable =
        find_unprotectable(*snapshot_, VerdictNode{last_view_->address, last_view_->self.datacenter},
                           config_.topology.consistency);
  for (const auto& keyspace : unprotectable)
    log_line(LogLevel::warning, "keyspace_unprotectable", unprotectable_log_fields(keyspace));
  metrics_.set_unprotectable_keyspaces(unprotectable.size());
  log_line(LogLevel::info, "schema_refreshed",
           {{"trigger", why},
            {"keyspaces", snapshot_->cluster.keyspaces ? snapshot_->cluster.keyspaces->size() : 0},
            {"unprotectable", unprotectable.size()},
            {"consistency", to_string(config_.topology.consistency)}});
}

// SPEC 3.10: max_hint_window, with the schema (a restart of Cassandra may change it). Unreadable, the last
// reading stands; said once until a reading succeeds.
asio::awaitable<void> Daemon::read_hint_window() {
  if (dry_run_ && !core_) co_return;
  auto window = co_await node_->max_hint_window();
  if (stopping_ || !core_) co_return;
  if (!window) {
    if (!hint_window_unreadable_logged_)
      log_line(LogLevel::warning, "hint_window_unreadable",
               {{"detail", window.error().message()},
                {"note", "repair_needed and hint_window_closing judge by the last window read, if any"}});
    hint_window_unreadable_logged_ = true;
    co_return;
  }
  hint_window_unreadable_logged_ = false;
  core_->note_hint_window(*window);
}

// describecluster and ring (independent reads; with nodetool, each a JVM start: at once) into a snapshot; why
// not, when either cannot be read.
asio::awaitable<Result<ReplicationSnapshot>> Daemon::read_schema() {
  auto [cluster, table] = co_await (node_->describe_cluster() && node_->ring());
  if (stopping_) co_return make_error("stopping");
  if (!cluster) co_return make_error(cluster.error().message());
  if (!table) co_return make_error(table.error().message());
  co_return make_replication_snapshot(std::move(*cluster), *table);
}

// At most once per topology.schema_refresh_s (an attempt counts), never two at once, and not while a drain is
// under way (issue 41: an emergency drain resumed at start-up ran its disablebinary beside the start's
// refresh, five nodetool JVMs on two loaded cores, and did not finish before the impact; a drain resumed from
// the state file has no step out until the first document, which may come after the start's trigger). A
// trigger skipped for it leaves the refresh due: the next trigger, or the next gate check (schema_for_check),
// reads it.
void Daemon::maybe_refresh_schema(const char* why) {
  if (refreshing_ || stopping_ || drain_under_way() ||
      !schema_refresh_due(refresh_attempted_at_, std::chrono::steady_clock::now(),
                          config_.topology.schema_refresh_s))
    return;
  refreshing_ = true;  // before the coroutine runs: a second trigger in this pass must not start another
  spawn(refresh_schema(why), "refresh_schema");
}

// Before a gate check: a refresh under way is waited for, and one that is due is made first.
asio::awaitable<void> Daemon::schema_for_check() {
  if (!refreshing_ && schema_refresh_due(refresh_attempted_at_, std::chrono::steady_clock::now(),
                                         config_.topology.schema_refresh_s)) {
    refreshing_ = true;
    co_await refresh_schema("check");
  }
  while (refreshing_ && !stopping_) co_await refresh_done_.async_wait(asio::as_tuple(asio::use_awaitable));
}

// Issue 40: a rack's agents admitted together when its other drains cannot short a range this node's verdict
// counted on (the rack count, without a schema, judges racks whole).
AdmissionGuard Daemon::admission_guard() const {
  AdmissionGuard guard;
  if (!last_view_) return guard;
  guard.rack_batched = !snapshot_ || rack_holds_one_replica_per_range(*snapshot_, last_view_->self.datacenter,
                                                                      last_view_->self.rack);
  const Consistency level = config_.topology.consistency;
  guard.cross_dc = level != Consistency::local_quorum && level != Consistency::local_one;
  for (const StatusRow& row : last_view_->status.rows) guard.racks.emplace(row.datacenter, row.rack);
  return guard;
}

// Admission (SPEC 9) by the same verdict over the last refresh and check, the recorded drains' nodes counted
// unavailable; nullopt (the rack count) without a schema, or with a record that names no host.
ExactAdmissionCheck Daemon::exact_admission() const {
  if (!snapshot_ || !last_view_) return {};
  // Neighbours whose maintenance began count as the recorded drains do (SPEC 9).
  return [snapshot = snapshot_, view = *last_view_, consistency = config_.topology.consistency,
          rf = config_.topology.replication_factor, neighbours = impacted_host_ids()](
             const std::vector<DrainRecord>& counted) -> std::optional<ExactAdmission> {
    std::vector<std::string> host_ids;
    for (const auto& record : counted) {
      if (record.host_id.empty()) return std::nullopt;
      host_ids.push_back(record.host_id);
    }
    host_ids.insert(host_ids.end(), neighbours.begin(), neighbours.end());
    const GateDecision d = decide_gate({view.status, view.self, view.address, snapshot.get(), consistency, rf,
                                        addresses_of_host_ids(view.status, host_ids)});
    return ExactAdmission{d.result.safe, d.result.reason};
  };
}

}  // namespace cla
