// Names, equality and printing for the core's actions, so that tests compare and report them readably.
#include "state/core_io.hpp"

#include <boost/json/serialize.hpp>
#include <chrono>

namespace cla {

std::string_view to_string(Step step) {
  switch (step) {
    case Step::disable_binary:
      return "disablebinary";
    case Step::disable_gossip:
      return "disablegossip";
    case Step::flush:
      return "drain";
    case Step::check_serving:
      return "check_serving";
    case Step::restart_cassandra:
      return "restart_command";
    case Step::enable_gossip:
      return "enablegossip";
    case Step::enable_binary:
      return "enablebinary";
    case Step::confirm_restored:
      return "confirm_restored";
  }
  return "unknown";
}

bool is_drain_step(Step step) {
  return step == Step::disable_binary || step == Step::disable_gossip || step == Step::flush;
}

std::string_view to_string(MaintenancePhase phase) {
  switch (phase) {
    case MaintenancePhase::scheduled:
      return "NodeMaintenanceScheduled";
    case MaintenancePhase::starting:
      return "NodeMaintenanceStarting";
    case MaintenancePhase::start:
      return "NodeMaintenanceStart";
    case MaintenancePhase::ended:
      return "NodeMaintenanceEnded";
    case MaintenancePhase::repair_needed:
      return "NodeRepairNeeded";
  }
  return "unknown";
}

bool operator==(const LogAction& a, const LogAction& b) {
  return a.severity == b.severity && a.msg == b.msg && a.fields == b.fields;
}
bool operator==(const CheckSafety&, const CheckSafety&) {
  return true;
}
bool operator==(const RefreshSchema&, const RefreshSchema&) {
  return true;
}
bool operator==(const RunStep& a, const RunStep& b) {
  return a.step == b.step && a.deadline == b.deadline;
}
bool operator==(const Approve& a, const Approve& b) {
  return a.event_id == b.event_id;
}
bool operator==(const Persist&, const Persist&) {
  return true;
}
bool operator==(const Notify& a, const Notify& b) {
  return a.phase == b.phase && a.event_id == b.event_id && a.event_type == b.event_type &&
         a.start_time == b.start_time && a.event_fields == b.event_fields;
}

bool operator==(const Admit& a, const Admit& b) {
  return a.event_id == b.event_id && a.forced == b.forced && a.awaited == b.awaited;
}
bool operator==(const CheckSharedApproval& a, const CheckSharedApproval& b) {
  return a.event_id == b.event_id;
}
bool operator==(const ReleaseDrain&, const ReleaseDrain&) {
  return true;
}
bool operator==(const AbandonReads&, const AbandonReads&) {
  return true;
}
bool operator==(const AbandonStep& a, const AbandonStep& b) {
  return a.step == b.step;
}
bool operator==(const ReadStages&, const ReadStages&) {
  return true;
}
bool operator==(const ReadCatchUp&, const ReadCatchUp&) {
  return true;
}
std::ostream& operator<<(std::ostream& os, const StageCounts& c) {
  return os << "{read " << c.read << " mutation " << c.mutation << " counter " << c.counter_mutation << "}";
}

namespace {
long long unix_ms(WallTime t) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
}
struct Printer {
  std::ostream& os;
  void operator()(const LogAction& a) const {
    os << "log{" << static_cast<int>(a.severity) << "," << a.msg << "," << boost::json::serialize(a.fields)
       << "}";
  }
  void operator()(const CheckSafety&) const { os << "check_safety"; }
  void operator()(const RefreshSchema&) const { os << "refresh_schema"; }
  void operator()(const RunStep& a) const {
    os << "run{" << to_string(a.step) << ", deadline_ms=" << unix_ms(a.deadline) << "}";
  }
  void operator()(const Approve& a) const { os << "approve{" << a.event_id << "}"; }
  void operator()(const Persist&) const { os << "persist"; }
  void operator()(const Admit& a) const {
    os << "admit{" << a.event_id << (a.forced ? ",forced" : "") << (a.awaited ? "" : ",beside") << "}";
  }
  void operator()(const CheckSharedApproval& a) const { os << "check_shared_approval{" << a.event_id << "}"; }
  void operator()(const ReleaseDrain&) const { os << "release_drain"; }
  void operator()(const AbandonReads&) const { os << "abandon_reads"; }
  void operator()(const AbandonStep& a) const { os << "abandon_step{" << to_string(a.step) << "}"; }
  void operator()(const ReadStages&) const { os << "read_stages"; }
  void operator()(const ReadCatchUp&) const { os << "read_catch_up"; }
  void operator()(const Notify& a) const {
    os << "notify{" << to_string(a.phase) << "," << a.event_id << "," << a.event_type << "}";
  }
};
}  // namespace

std::ostream& operator<<(std::ostream& os, const Action& action) {
  std::visit(Printer{os}, action);
  return os;
}

}  // namespace cla
