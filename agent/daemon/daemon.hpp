// The shell: one coroutine loop that polls IMDS, feeds the decision core and carries out its actions.
#pragma once

#include <algorithm>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include "agent/config/config.hpp"
#include "agent/coordination/coordinator.hpp"
#include "agent/daemon/core_clock.hpp"
#include "agent/daemon/daemon_driver.hpp"
#include "agent/daemon/notification.hpp"
#include "agent/daemon/ticker.hpp"
#include "agent/http/metrics.hpp"
#include "cassandra/gate/replication_verdict.hpp"
#include "cassandra/node_backend.hpp"
#include "cassandra/nodetool_output/info_parser.hpp"
#include "cassandra/nodetool_output/status_parser.hpp"
#include "imds/imds_client.hpp"
#include "imds/process/process_runner.hpp"
#include "state/core.hpp"
#include "state/neighbour_impacts.hpp"
#include "state/state_store.hpp"
#include "state/undelivered_hints.hpp"
#include "state/watcher.hpp"

namespace cla {

class HttpEndpoint;
using SteadyTime = std::chrono::steady_clock::time_point;

// What the agent adds to the drain path beyond the nodetool commands (SPEC 4), for the log lines' fields.
struct DrainTiming {
  std::optional<SteadyTime> last_exit;   // of the last drain command
  std::optional<double> first_exec_ms;   // decision -> first exec
  double between_max_ms = 0;             // one command's exit -> the next one's exec
  std::optional<double> to_approval_ms;  // last exit -> the approval POST (includes persisting the state)
  double persist_ms = 0;                 // the state write before that approval
};

// Lives for the whole process (see agent_main.cpp): coroutines it started may still be suspended when the
// io_context is torn down, and must find it alive.
class Daemon {
 public:
  // While another member catches up, this node's pending hints are read at most this often (SPEC 3.10;
  // daemon_catch_up.cpp): every 10 s (Cassandra closes and dispatches hints files every 10 s), or three times
  // within catch_up_min when that is shorter, so that a file closed after a first empty read is published
  // before the catching-up node may count the empty answers.
  static std::chrono::milliseconds hints_read_interval(std::chrono::seconds catch_up_min) {
    return std::clamp<std::chrono::milliseconds>(catch_up_min / 3, std::chrono::seconds(1),
                                                 std::chrono::seconds(10));
  }

  // An agent without a watcher role steps (reads the roles and the catching_up/ keys) this often: every
  // lease_ttl (a missing secondary is replaced within it; only the secondary's own step, at every poll, has a
  // deadline), or sooner so that a peer's catching_up key is seen within catch_up_min / 2, but never more
  // often than lease_ttl / 3. At 450 agents every step is ~450 requests to etcd.
  static std::chrono::milliseconds idle_watch_interval(std::chrono::seconds lease_ttl,
                                                       std::chrono::seconds catch_up_min) {
    const std::chrono::milliseconds ttl = lease_ttl, min = catch_up_min;
    return std::min(ttl, std::max(ttl / 3, min / 2));
  }

  Daemon(boost::asio::io_context& io, Config config, bool dry_run);

  // Runs until stop(); returns the process exit code (0 clean stop, 1 fatal runtime error).
  boost::asio::awaitable<int> run();
  void stop();
  // After the io_context stopped: revoke the etcd lease (coordinated mode), running `io` for at most `limit`.
  void finish(std::chrono::milliseconds limit);
  // What the run loop must drive (run_with_ticks; DaemonLife::run): the poll's ticks, which no timer fires,
  // and the poll's answer, which no Asio operation reads.
  TickSource& ticks() { return driver_; }

 private:
  // start-up (daemon_startup.cpp)
  boost::asio::awaitable<bool> resolve_identity();
  boost::asio::awaitable<StartupInfo> observe_node(StateSource source);
  boost::asio::awaitable<void> start_core(StateSource source);
  void hold_document(EventsDocument doc);
  // loops (daemon.cpp)
  boost::asio::awaitable<void> poll_loop();
  boost::asio::awaitable<void> timer_loop();
  boost::asio::awaitable<void> watchdog_loop(std::chrono::microseconds period);
  void on_poll_failed(const ImdsFailure& failure);
  void rearm_timer();
  // actions (daemon_actions.cpp)
  void execute(Actions actions);
  void log_core(const LogAction& line);
  void count_core_line(const LogAction& line);
  std::vector<EventSeries> event_series() const;
  boost::asio::awaitable<void> check_safety();
  boost::asio::awaitable<void> read_stages();
  boost::asio::awaitable<void> check_shutdown_announce();
  boost::asio::awaitable<void> run_step(RunStep step, SteadyTime issued);
  // `generation`: steps_generation_ when the step began; an abandoned step makes no further attempt.
  boost::asio::awaitable<StepOutcome> run_node_step(NodeChange change, WallTime deadline,
                                                    std::uint64_t generation, NodeChangeAttempt& first,
                                                    NodeChangeAttempt& last);
  void time_drain_step(Step step, SteadyTime issued, const NodeChangeAttempt& first,
                       const NodeChangeAttempt& last);
  boost::asio::awaitable<StepOutcome> confirm_restored();
  boost::asio::awaitable<void> approve(std::string event_id, double persist_ms);
  // catching up (daemon_catch_up.cpp, SPEC 3.10)
  boost::asio::awaitable<void> read_catch_up();
  // `catching_up`: whether another member catches up, as this watcher step read it.
  boost::asio::awaitable<void> publish_hints(bool catching_up);
  bool another_catches_up(const std::vector<MemberRecord>& members) const;
  // Host id -> closed hints files, for each host this node holds hints for (empty when unreadable, said
  // once).
  boost::asio::awaitable<std::map<std::string, std::int64_t>> hints_held_for_gate();
  // the gate and the schema refresh (daemon_replication.cpp)
  struct ClusterView {
    ClusterStatus status;
    NodeInfo self;
    std::string address;  // this node's row in status
  };
  boost::asio::awaitable<Result<ClusterView>> read_cluster_view();
  boost::asio::awaitable<SafetyResult> evaluate_gate();
  boost::asio::awaitable<void> refresh_schema(std::string why);
  boost::asio::awaitable<Result<ReplicationSnapshot>> read_schema();
  boost::asio::awaitable<void> read_hint_window();
  void maybe_refresh_schema(const char* why);
  boost::asio::awaitable<void> schema_for_check();
  ExactAdmissionCheck exact_admission() const;
  AdmissionGuard admission_guard() const;
  // daemon_neighbours.cpp: other VMs of the set whose maintenance began (SPEC 3.4, 9), coordinated only.
  void observe_neighbours(const std::vector<ScheduledEvent>& events);
  void start_fleet_read();  // refresh_fleet_view, unless one is running
  boost::asio::awaitable<void> refresh_fleet_view();
  // `vm` (upper case) mapped to a host id that no row of `status` shows.
  bool mapped_node_missing(const std::string& vm, const ClusterStatus& status) const;
  // Some VM (upper case) not in host_by_vm_, or mapped to a host id that no row of the last status shows (its
  // node replaced while its agent was gone: its known record may name the new node).
  bool hosts_unknown(const std::set<std::string>& vms) const;
  // An impacted VM mapped to a host id that no row of `status` shows.
  bool impacted_mapping_stale(const ClusterStatus& status) const;
  // A gate check's fleet view: a read started (unless one is running) and awaited for at most
  // kFleetReadBudget, beside the check's nodetool status: a slow or unreachable etcd never holds the gate up
  // (the last records read then count).
  boost::asio::awaitable<void> fleet_view_for_check();
  // The impacted neighbours' nodes in `status` (after releasing those a status taken at `taken_at` shows UN
  // again): address, and the impact.
  std::vector<std::pair<std::string, NeighbourImpact>> impacted_nodes(const ClusterStatus& status,
                                                                      SteadyTime taken_at);
  std::set<std::string> impacted_host_ids() const;
  // Their racks in this node's DC, by the last status read (the rack count's, in admission).
  std::set<std::string> impacted_racks() const;
  // daemon_watcher.cpp: the watcher's role and, as its leader, agentless drain records (SPEC 9), each poll.
  boost::asio::awaitable<void> watch();
  // Whether another member catches up (publish_hints): from the catching_up/ keys, and, when the leader read
  // the whole prefix, from the member keys too (an older agent writes no catching_up/ key). Nothing when etcd
  // did not answer: what this node published stays.
  boost::asio::awaitable<std::optional<bool>> watch_roles();
  boost::asio::awaitable<std::optional<bool>> lead();
  void set_watcher_role(WatcherRole role);
  // The leader and the secondary step at every poll (the secondary must take over within lease_ttl_s + one
  // poll); an agent without a role every idle_watch_interval, so that 450 idle agents do not read etcd 450
  // times a second.
  bool watch_due();
  // coordinated mode (daemon_coordination.cpp)
  bool start_coordination(CorePolicy& policy);
  boost::asio::awaitable<void> read_identity();
  // An awaited admission, or (awaited false) a forced or emergency drain's record written beside it.
  boost::asio::awaitable<void> admit(Admit admit);
  // A forced or emergency drain's record that etcd did not take, written again until it does (or the node
  // serves again).
  boost::asio::awaitable<void> retry_drain_record(Admit admit);
  boost::asio::awaitable<void> check_shared(std::string event_id);
  void sync_member();
  void notify(const Notify& notification);
  boost::asio::awaitable<void> run_hooks();
  // Every call to the node, as it ends: its duration metric, the debug log, a timeout's warning.
  void on_node_call(const NodeCallRecord& call);
  // AbandonReads: the reads in flight are killed, and their answers, when they come, are dropped.
  void abandon_reads();
  bool abandoned_since(std::uint64_t generation) const { return generation != reads_generation_; }
  // While a drain is under way, no read that can wait starts beside it (a schema refresh, a hints read), so
  // that with nodetool its JVMs do not share the cores with theirs.
  bool drain_under_way() const { return core_ && core_->drain_under_way(); }
  // AbandonStep: a restore's step in flight is ended (its process group killed, its request cancelled) and
  // its answer dropped.
  void abandon_step(Step step);
  std::string state_json() const;
  // Runs `coroutine` on the loop; an exception escaping it is logged as internal_error, not lost.
  void spawn(boost::asio::awaitable<void> coroutine, const char* what);

  boost::asio::io_context& io_;
  Config config_;
  bool dry_run_;
  std::string resource_name_;
  int fault_domain_ = -1;
  std::string zone_;  // IMDS compute's zone ("" outside availability zones, or when it was not asked)
  // Polls and approvals share one kept-alive connection (SPEC 4); an approval queues behind a poll in flight.
  ImdsClient poll_client_;
  // Start-up only (compute metadata, before the poll's ticks run), then closed.
  std::optional<ImdsClient> compute_client_;
  std::unique_ptr<NodeBackend> node_;  // the node's reads and steps (cassandra.backend)
  std::optional<SteadyTime> jolokia_unreachable_logged_;
  std::uint64_t reads_generation_ = 0;  // counts abandons: a read started before the last one is stale
  std::uint64_t steps_generation_ = 0;  // the same for steps
  // A restart_command in flight, which AbandonStep kills.
  std::shared_ptr<ProcessGroups> restart_groups_ = std::make_shared<ProcessGroups>();
  StateStore store_;
  CoreClock clock_;            // the core's time: monotonic (SPEC 3.9); NotBefore converted at each sighting
  std::optional<Core> core_;   // built once the state file is loaded
  bool core_started_ = false;  // Core::start ran: documents go to the core, not to held_document_
  CorePolicy policy_;
  std::optional<EventsDocument> held_document_;  // polled before the core started
  bool startup_abandoned_ = false;
  std::unique_ptr<Coordinator> coordinator_;
  std::set<std::string> up_host_ids_;    // hosts UN in the last nodetool status (the stale-record rule)
  std::optional<WallTime> up_taken_at_;  // when that status was started, in the core's time
  NeighbourImpacts neighbours_;
  std::vector<ScheduledEvent> last_events_;         // the last document's (every VM's), for neighbours_
  std::set<std::string> approved_by_members_;       // upper-case EventIds the member keys list as approved
  std::map<std::string, std::string> host_by_vm_;   // upper-case VM -> host id (member keys, known/<vm>)
  std::set<std::string> neighbour_unknown_logged_;  // "VM EVENTID" whose node no record names
  bool fleet_reading_ = false;
  boost::asio::steady_timer fleet_read_done_;  // cancelled when a fleet read ends
  bool watching_ = false;                      // a watcher step is under way (one at a time)
  std::optional<WatcherRole> watcher_role_;    // as last logged
  AgentlessWatch agentless_;
  SteadyTime watched_at_{};          // the last watcher step's start
  SteadyTime hints_published_at_{};  // the last read of this node's pending hints for a member catching up
  bool agentless_pending_ = false;   // the leader's last read had an agentless record (to release)
  std::string own_host_id_;          // from nodetool info once; forgotten when Cassandra is restarted
  bool gate_hints_unreadable_logged_ = false;
  UndeliveredHints undelivered_hints_;  // the gate's and the published hints' undelivered counts, bounded
  bool hint_window_unreadable_logged_ = false;
  // The configured and the reported rack of the last topology_mismatch (logged once per change).
  std::optional<std::pair<std::string, std::string>> topology_mismatch_logged_;
  std::string ring_change_refreshed_;  // the ring change (verdict detail) a refresh was last read for
  // The schema and ring of the last refresh (nullptr: none could be read, the rack count decides), when it
  // was attempted, and the last check's view of the cluster (admission judges by it).
  std::shared_ptr<const ReplicationSnapshot> snapshot_;
  std::optional<SteadyTime> refresh_attempted_at_;
  bool refreshing_ = false;
  boost::asio::steady_timer refresh_done_;  // cancelled when a refresh ends: what a gate check waits on
  std::optional<ClusterView> last_view_;
  Metrics metrics_;
  std::shared_ptr<HttpEndpoint> http_;
  boost::asio::steady_timer poll_timer_;
  Ticker ticker_;
  boost::asio::steady_timer wake_timer_;
  std::chrono::steady_clock::time_point wake_at_ = std::chrono::steady_clock::time_point::max();
  DaemonDriver driver_;
  bool stopping_ = false;
  std::optional<WallTime> last_poll_success_;
  int poll_failures_ = 0;
  std::string last_failure_kind_;
  std::optional<WallTime> last_failure_logged_;
  int failures_since_logged_ = 0;
  std::chrono::milliseconds throttle_backoff_{0};
  DrainTiming drain_timing_;
  std::deque<Notification> hook_queue_;  // hooks run one at a time, in the order announced
  bool hooks_running_ = false;
};

}  // namespace cla
