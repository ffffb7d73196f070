// The decision core's vocabulary: what it is told (observations) and what it asks for (actions).
#pragma once

#include <boost/json/object.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <variant>
#include <vector>

#include "state/scheduled_event.hpp"

namespace cla {

enum class Severity { debug, info, warning, error };

// One nodetool (or restart_command) step of a drain or a restore.
enum class Step {
  disable_binary,     // nodetool disablebinary
  disable_gossip,     // nodetool disablegossip
  flush,              // nodetool drain
  check_serving,      // nodetool statusgossip + statusbinary before a restart: both "running" = restarted
  restart_cassandra,  // cassandra.restart_command
  enable_gossip,      // nodetool enablegossip
  enable_binary,      // nodetool enablebinary
  confirm_restored,   // nodetool statusgossip + statusbinary both "running"
};
std::string_view to_string(Step step);
bool is_drain_step(Step step);

// repair_needed: NodeRepairNeeded (SPEC 3.10), after a restore past the hint window.
enum class MaintenancePhase { scheduled, starting, start, ended, repair_needed };
std::string_view to_string(MaintenancePhase phase);  // NodeMaintenanceScheduled, ...

struct LogAction {
  Severity severity = Severity::info;
  std::string msg;
  boost::json::object fields;
};
struct CheckSafety {};
// A platform event for this node was first seen Scheduled: the gate will be asked for it, so bring the
// schema and ring it answers from up to date (the shell makes at most one refresh an interval). Not for a
// user event or one first seen Started: their drains pass no gate, and a refresh's two nodetool JVMs would
// only slow them.
struct RefreshSchema {};
struct RunStep {
  Step step = Step::disable_binary;
  WallTime deadline;  // retry until then
};
struct Approve {
  std::string event_id;
};
struct Persist {};
// Coordinated mode (SPEC 9). Admit: record this node's drain in etcd in one transaction that proves the rack
// budget (forced: the impact is unavoidable, record it without the budget); answered by on_admission.
// awaited false: the record of a forced or emergency drain, written beside its first command (SPEC 3.9); the
// drain does not wait for it, and its answer comes back as on_drain_recorded.
struct Admit {
  std::string event_id;
  bool forced = false;
  bool awaited = true;
};
// Read the members and tell whether this agent may approve a shared event now; answered by on_shared_verdict.
struct CheckSharedApproval {
  std::string event_id;
};
// A forced or emergency drain is due (SPEC 3.9): stop waiting for the read-only calls in flight (the gate's
// check, the schema refresh, the start-up observation, an awaited etcd admission) and kill their processes;
// their answers, should any still come, are not the core's any more.
struct AbandonReads {};
// A drain is due while a restore's step runs (SPEC 3.9): the step is abandoned, its process killed (a
// restart_command's group, a nodetool enable*, a Jolokia request cancelled), and its answer, should one still
// come, is not the core's any more.
struct AbandonStep {
  Step step = Step::enable_gossip;
};
// Remove this node's drain record (idempotent): the node is back in service.
struct ReleaseDrain {};
// Read the replica stages' completed tasks (SPEC 3.10); answered by on_stages.
struct ReadStages {};
// Which nodes still hold hints for this one (SPEC 3.10); answered by on_catch_up.
struct ReadCatchUp {};
struct Notify {
  MaintenancePhase phase = MaintenancePhase::scheduled;
  std::string event_id;
  std::string event_type;
  std::optional<WallTime> start_time;
  boost::json::object event_fields;  // the correlation fields every line about an event carries (SPEC 2.4)
};

using Action =
    std::variant<LogAction, CheckSafety, RefreshSchema, RunStep, Approve, Persist, Notify, Admit,
                 CheckSharedApproval, ReleaseDrain, AbandonReads, AbandonStep, ReadStages, ReadCatchUp>;

bool operator==(const LogAction& a, const LogAction& b);
bool operator==(const CheckSafety&, const CheckSafety&);
bool operator==(const RefreshSchema&, const RefreshSchema&);
bool operator==(const RunStep& a, const RunStep& b);
bool operator==(const Approve& a, const Approve& b);
bool operator==(const Persist&, const Persist&);
bool operator==(const Notify& a, const Notify& b);
bool operator==(const Admit& a, const Admit& b);
bool operator==(const CheckSharedApproval& a, const CheckSharedApproval& b);
bool operator==(const ReleaseDrain&, const ReleaseDrain&);
bool operator==(const AbandonReads&, const AbandonReads&);
bool operator==(const AbandonStep& a, const AbandonStep& b);
bool operator==(const ReadStages&, const ReadStages&);
bool operator==(const ReadCatchUp&, const ReadCatchUp&);
std::ostream& operator<<(std::ostream& os, const Action& action);

// Observations fed back by the shell.
struct SafetyResult {
  bool safe = false;
  std::string reason;  // one line for people
  std::vector<std::string> down_racks;
  // unsafe_to_drain's exact fields (SPEC 3.4: keyspace, start_token, end_token, needed, available, down; or
  // reason) when the replication verdict decided; empty when the rack count did (down_racks and reason then).
  boost::json::object fields;
};

struct StepOutcome {
  bool ok = false;
  bool refused_after_drain = false;  // enable* refused: the node was drained, Cassandra needs a restart
  std::string detail;                // one line for the log when not ok
  bool timed_out = false;            // the last attempt was killed at its timeout (SPEC 3.9)
  // What a confirm_restored found (statusgossip, statusbinary); nullopt where the node could not tell.
  std::optional<bool> gossip_running{}, binary_running{};
};

// The replica stages' completed tasks (SPEC 3.10): what other nodes and clients still ask of this node. The
// counts only grow, so two equal readings mean that no task of these stages completed between them.
struct StageCounts {
  std::int64_t read = 0;              // ReadStage
  std::int64_t mutation = 0;          // MutationStage
  std::int64_t counter_mutation = 0;  // CounterMutationStage
  friend bool operator==(const StageCounts&, const StageCounts&) = default;
};
std::ostream& operator<<(std::ostream& os, const StageCounts& c);  // "{read R mutation M counter C}"
// ReadStages' answer: the counts, or why there are none.
struct StagesOutcome {
  std::optional<StageCounts> counts;
  std::string detail;
};

// ReadCatchUp's answer: the nodes still holding hints for this one, as the shell could read them.
// Coordinated, from the other members' keys (each publishes the host ids its node holds hints for);
// uncoordinated the shell sees no other node's hints: `holders` stays empty and only catch_up_min holds the
// node.
struct CatchUpOutcome {
  bool read = false;                 // false: not read (etcd unreachable...): `detail` says why
  std::vector<std::string> holders;  // e.g. "vm1 (2 hints files)"
  std::int64_t hint_files = 0;       // their hints files for this node, summed
  std::string detail;
};

enum class ApprovalResult { ok, retryable_failure, rejected };
struct ApprovalOutcome {
  ApprovalResult result = ApprovalResult::ok;
  std::string detail;
};

// etcd's answers. unavailable: etcd could not be asked (every member failed); `detail` says why.
enum class CoordinationResult { allowed, refused, unavailable };
struct AdmissionOutcome {
  CoordinationResult result = CoordinationResult::allowed;
  std::string detail;
  std::vector<std::string> out_racks;  // refused: the racks with a recorded drain
  int attempts = 0;                    // transactions tried (another agent's commit makes one try again)
};
struct SharedOutcome {
  CoordinationResult result = CoordinationResult::allowed;  // allowed: this agent approves now
  std::string detail;
  std::string approver;
  std::vector<std::string> waiting, unregistered;
};

enum class StateSource { loaded, missing, corrupt };
struct StartupInfo {
  StateSource source = StateSource::missing;
  std::string boot_id;
  std::optional<bool> gossip_running;  // nullopt: nodetool could not tell (Cassandra down?)
  std::optional<bool> binary_running;
};

}  // namespace cla
