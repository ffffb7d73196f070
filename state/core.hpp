// The decision core: a pure state machine over documents, results and time; it returns actions, never does
// I/O.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <vector>

#include "state/agent_state.hpp"
#include "state/coordination_decisions.hpp"
#include "state/core_io.hpp"

namespace cla {

using Actions = std::vector<Action>;

class Core {
 public:
  Core(CorePolicy policy, AgentState state);

  Actions start(const StartupInfo& info, WallTime now);
  // Before start(), while the start-up still observes the node (SPEC 3.9: a hung JMX never hides an event):
  // every Scheduled event of a polled document not recorded yet is recorded, logged (`event_seen`) and
  // announced (NodeMaintenanceScheduled); nothing is decided until start(). Only LogAction and Notify come
  // out. A Started event is left to on_document: it cannot wait, so it ends the observation.
  Actions note_before_start(const EventsDocument& doc, WallTime now);
  Actions on_document(const EventsDocument& doc, WallTime now);
  Actions on_timer(WallTime now);
  Actions on_safety(const SafetyResult& result, WallTime now);
  Actions on_step_done(Step step, const StepOutcome& outcome, WallTime now);
  Actions on_approval_done(const std::string& event_id, const ApprovalOutcome& outcome, WallTime now);
  // Coordinated mode (SPEC 9): etcd's answers to Admit and CheckSharedApproval.
  Actions on_admission(const AdmissionOutcome& outcome, WallTime now);
  // etcd's answer to an Admit that was not awaited (awaited false: a forced or emergency drain's record).
  Actions on_drain_recorded(const AdmissionOutcome& outcome, WallTime now);
  Actions on_shared_verdict(const std::string& event_id, const SharedOutcome& outcome, WallTime now);
  // The answer to ReadStages (SPEC 3.10).
  Actions on_stages(const StagesOutcome& outcome, WallTime now);
  // The answer to ReadCatchUp (SPEC 3.10).
  Actions on_catch_up(const CatchUpOutcome& outcome, WallTime now);
  // The node's max_hint_window as the shell last read it (SPEC 3.10).
  void note_hint_window(std::chrono::milliseconds window);

  // The wall time of a nodetool call that succeeded (the start-up's, the gate's, a step's): before this
  // node's first measured drain, what its drain is expected to take is derived from them (SPEC 3.3).
  void note_nodetool_call(std::chrono::milliseconds took);

  // The earliest instant after `now` at which the core wants on_timer; nullopt when nothing is timed.
  std::optional<WallTime> next_wakeup(WallTime now) const;

  const AgentState& state() const { return state_; }
  // Since when a restarted node's enablebinary waits for its catch-up (core_binary_hold.cpp); nullopt if not.
  std::optional<WallTime> binary_held_since() const;
  // The record of an event by its EventId (any case); nullptr when the core holds none.
  const EventRecord* record_of(const std::string& event_id) const;
  const CorePolicy& policy() const { return policy_; }
  bool busy() const { return step_in_flight_.has_value() || reads_in_flight(); }
  // A drain's step the shell runs and has not answered (a drain step is never abandoned: nothing pre-empts
  // it).
  bool drain_step_in_flight() const { return step_in_flight_ && is_drain_step(*step_in_flight_); }
  // A drain begun and not ended (a step out, or its event among drained_for with steps left): also after a
  // start from a state file written mid-drain, before the document that resumes it.
  bool drain_under_way() const;
  // A read-only call the core waits for: the gate's check, an awaited etcd admission.
  bool reads_in_flight() const { return safety_in_flight_ || admission_in_flight_; }
  // What this agent's member key says (SPEC 9): its phase and the upper-case EventIds it is drained for.
  MemberPhase member_phase() const;
  std::vector<std::string> member_events() const;
  // Upper-case EventIds this agent approved that it still holds (SPEC 9: its member key lists them).
  std::vector<std::string> member_approved() const;
  // The correlation fields of SPEC 2.4 (event_id, event_type, ..., document_incarnation) for an event.
  boost::json::object event_fields(const ScheduledEvent& event) const;

 private:
  enum class Safety { unknown, safe, unsafe };

  void advance(WallTime now, Actions& out);
  void note_event(const ScheduledEvent& event, WallTime now, Actions& out);
  void on_started(EventRecord& rec, Actions& out);
  void on_removed(EventRecord& rec, Actions& out);

  // drain (core_drain.cpp)
  bool drain_work(WallTime now, Actions& out);
  bool drain_event(const std::string& key, EventRecord& rec, bool first_pass, WallTime now, Actions& out);
  // Forced and emergency drains never wait for a read in flight (SPEC 3.9): stop waiting for it.
  void preempt_reads(WallTime now, Actions& out);
  // Nor for a restore's step in flight (SPEC 3.9): a drain due now abandons it (core_restore.cpp).
  void preempt_restore(WallTime now, Actions& out);
  // What a drain of `rec` due now is for ("emergency_drain", "forced_drain", "drain"), when it needs no gate
  // check first; empty when it is not due, or waits for a gate.
  std::string_view due_without_gate(const std::string& key, const EventRecord& rec, WallTime now) const;
  bool goes_first(const std::string& key, const EventRecord& rec) const;
  std::optional<WallTime> reads_asked_at() const;
  bool gate_allows(EventRecord& rec, WallTime now, Actions& out, bool& forced);
  bool local_gate_allows(EventRecord& rec, WallTime now, Actions& out, bool& forced);
  bool node_is_out() const {
    return state_.node.out_of_service && state_.node.binary_disabled && state_.node.gossip_disabled;
  }
  void begin_drain(EventRecord& rec, bool forced, WallTime now, Actions& out);
  std::optional<Step> next_drain_step(const EventRecord& rec) const;
  void drain_step_done(Step step, const StepOutcome& outcome, WallTime now, Actions& out);
  WallTime drain_at(const EventRecord& rec) const;
  // How long this node's gate and drain for `rec` are expected to take, x1.5 (SPEC 3.3): the longest of its
  // last few measured ones; before the first, the longest of the last few nodetool calls times the calls
  // on the path (the gate's round, disablebinary, disablegossip, and drain when it flushes); zero without
  // either.
  std::chrono::milliseconds expected_drain(const EventRecord& rec) const;
  std::chrono::milliseconds planned_drain(const EventRecord& rec) const;
  void record_drain_duration(WallTime now);
  bool rebooted_since_drain() const { return state_.node.boot_id_at_drain != boot_id_; }
  WallTime forced_at(const EventRecord& rec) const;
  WallTime impact_deadline(const EventRecord& rec, WallTime now) const;

  // restore and restarts (core_restore.cpp)
  void adopt_node_after_reboot(const StartupInfo& info, Actions& out);
  void defer_restore(WallTime now, Actions& out);
  bool restore_work(WallTime now, Actions& out);
  Step next_restore_step();
  void restore_step_done(Step step, const StepOutcome& outcome, WallTime now, Actions& out);
  void complete_restore(WallTime now, bool already_serving, Actions& out);
  bool redo_undone_steps(const StepOutcome& confirm, Actions& out);
  void emit_pending_ended(Actions& out);

  // approval (core_approval.cpp)
  void approval_work(WallTime now, Actions& out);
  bool wants_approval(EventRecord& rec, WallTime now, Actions& out);

  // quiet before approval (core_quiet.cpp, SPEC 3.10)
  bool node_quiet(const EventRecord& rec, WallTime now, Actions& out);
  void reset_quiet();

  // a restarted node's enablebinary after its catch-up (core_binary_hold.cpp, SPEC 3.3, 3.10)
  bool binary_held(WallTime now, Actions& out);  // true: not yet (a ReadCatchUp may be in `out`)
  void on_binary_hold_read(const CatchUpOutcome& outcome, WallTime now, Actions& out);
  void end_binary_hold(WallTime now, bool timed_out, Actions& out);
  void reset_binary_hold();

  // catching up after a restore (core_catch_up.cpp, SPEC 3.10); `since`: the node UN again
  void begin_catch_up(std::optional<WallTime> out_since, WallTime since, WallTime now, Actions& out);
  void catch_up_work(WallTime now, Actions& out);
  void end_catch_up(WallTime now, bool timed_out, Actions& out);
  void drop_catch_up();
  void reset_catch_up_reads();

  // the hint window (core_hint_window.cpp, SPEC 3.10)
  std::optional<WallTime> hint_window_closing_at() const;
  void hint_window_work(WallTime now, Actions& out);
  void judge_hint_window(std::optional<WallTime> out_since, WallTime now, Actions& out);

  // coordination (core_coordination.cpp)
  bool admission_allows(EventRecord& rec, WallTime now, Actions& out, bool unconditional);
  bool shared_approval_allows(EventRecord& rec, Actions& out);
  void note_coordination(CoordinationResult result, const std::string& detail, WallTime now, Actions& out);

  void log(Actions& out, Severity severity, std::string msg, boost::json::object fields = {}) const;
  void log_event(Actions& out, Severity severity, std::string msg, const EventRecord& rec,
                 boost::json::object extra = {}) const;
  Notify notification(MaintenancePhase phase, const ScheduledEvent& event,
                      std::optional<WallTime> start) const;
  EventRecord* find(const std::string& event_id);

  CorePolicy policy_;
  AgentState state_;
  std::string boot_id_;
  std::optional<std::int64_t> incarnation_;
  bool document_seen_ = false;
  bool adopt_disabled_node_ = false;
  // After a reboot the start-up could not tell whether gossip (binary) runs: a restore then runs the enable
  // step anyway (it is harmless on a serving node), a drain the disable step (SPEC 3.6).
  bool gossip_unknown_after_boot_ = false;
  bool binary_unknown_after_boot_ = false;

  // Drains found due (upper-case EventId -> the NotBefore it was due for, and since when): see drain_at.
  std::map<std::string, std::pair<WallTime, WallTime>> drain_due_;

  std::optional<Step> step_in_flight_;
  bool safety_in_flight_ = false;
  Safety safety_ = Safety::unknown;
  std::optional<WallTime> safety_at_;        // when the last verdict was taken
  std::optional<WallTime> safety_asked_at_;  // when the check behind it was asked
  std::optional<SafetyResult> last_unsafe_;

  std::optional<WallTime> drain_started_at_;
  std::optional<WallTime> drain_measured_from_;  // a gated drain of a serving node: its gate's start
  std::vector<std::int64_t> call_durations_ms_;  // the last few successful nodetool calls (not persisted)
  bool restoring_ = false;
  bool restart_done_ = false;
  bool serving_checked_ = false;  // this restore asked whether the flushed node serves already
  bool restore_failure_logged_ = false;
  bool steps_redone_ = false;  // this restore's confirm found a step undone and ran it again at once
  std::optional<WallTime> restore_retry_at_;

  bool admission_in_flight_ = false;
  std::optional<WallTime> admission_asked_at_;
  // Events whose forced instant came while the gate's answer was still out: forced without it (SPEC 3.9).
  std::set<std::string> forced_without_answer_;
  bool record_beside_ = false;  // the drain just begun writes its etcd record beside its first command
  std::optional<CoordinationResult> admission_;        // etcd's last verdict, until a drain uses it
  bool admission_unconditional_ = false;               // the verdict answered an unconditional Admit
  bool admission_stale_ = true;                        // ask again (a new poll came since the verdict)
  std::optional<AdmissionOutcome> admission_refusal_;  // the last refusal, until an admission or a drain
  std::set<std::string> admission_refused_logged_;
  std::optional<WallTime> unavailable_logged_at_;  // coordination_unavailable, rate-limited
  bool coordination_down_ = false;
  std::optional<std::string> shared_in_flight_;
  std::set<std::string> shared_ready_;                // shared events this agent may approve now
  std::set<std::string> shared_checked_;              // asked since the last poll
  std::map<std::string, std::string> shared_logged_;  // the last waiting line per event, logged on change

  // Quiet before approval: the node out of the request path (its replica stages' completed tasks unchanged
  // for policy_.quiet), proven once per drain.
  bool quiet_ = false;
  bool quiet_logged_ = false;
  bool stages_in_flight_ = false;
  bool stages_failure_logged_ = false;
  int stages_reads_ = 0;
  std::optional<WallTime> stages_asked_at_;
  std::optional<WallTime> stages_next_read_;
  std::optional<WallTime> quiet_wait_from_;  // the first approval that waited for it
  std::optional<WallTime> quiet_since_;      // the answer that first showed the counts of stages_last_
  std::optional<StageCounts> stages_last_;

  std::optional<std::chrono::milliseconds> hint_window_;
  bool hint_window_warned_ = false;  // hint_window_closing said for this outage

  // A restarted node's enablebinary held for its catch-up: since when, and its holders' reads.
  struct BinaryHold {
    WallTime since;
    bool reading = false;
    bool failure_logged = false;
    std::optional<WallTime> next_read{};
    std::vector<std::string> holders{};  // the last answer's
    std::int64_t hint_files = 0;
  };
  std::optional<BinaryHold> binary_hold_;
  bool binary_hold_done_ = false;     // this restore held and ended its hold
  std::optional<WallTime> un_since_;  // the ended hold's start: the node UN again from then
  std::int64_t held_hint_files_ = 0;  // the most hints files for it one of the hold's readings found

  // Catching up: the holders' read (state_.catch_up says whether the node catches up).
  bool catch_up_in_flight_ = false;
  bool catch_up_failure_logged_ = false;
  std::optional<WallTime> catch_up_next_read_;
  std::vector<std::string> catch_up_holders_;  // the last answer's

  std::optional<std::string> approval_in_flight_;
  std::map<std::string, WallTime> approval_retry_at_;
  std::map<std::string, int> approval_attempts_;
};

}  // namespace cla
