// imds-emulator's event model: the Scheduled Events of each region's availability set, advanced by injected
// time.
#pragma once

#include <compare>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "state/scheduled_event.hpp"

namespace cla {

// How an approval by one listed VM acts on a shared event (SPEC 5). any: the first approval by any listed VM
// starts it for all (Azure's docs); all: only once every listed VM approved (the case study's reading).
enum class SharedApproval { any, all };

// A VM as the event model knows it. Its region stands for its availability set: the VM sees that region's
// events only. "" is the default region (one availability set, when no VM names a region).
struct ModelVm {
  std::string name;
  std::string region = "";

  auto operator<=>(const ModelVm&) const = default;
};

// What the admin API asks for. default_event_spec() fills what Azure documents for the type.
struct EventSpec {
  std::string type;                    // Freeze, Reboot, Redeploy, Preempt, Terminate, or any text
  std::vector<std::string> resources;  // VM names; need not be emulated VMs (other tenants never approve)
  std::int64_t not_before_in_s = 900;  // notice: NotBefore = creation + this
  std::int64_t duration_s = -1;        // DurationInSeconds
  std::string source = "Platform";     // EventSource
  std::string description;
  bool started = false;                // true plays a hardware failure: Started at once, no Scheduled phase
  std::int64_t complete_after_s = 10;  // Started -> removed after max(duration_s, 0) + this
  std::string region = "";             // whose VMs see it and may approve it (ModelVm::region)
};

// Documented minimum notice (Freeze/Reboot 15 min, Redeploy 10, Terminate 5, Preempt 30 s), a 5 s Freeze,
// -1 duration otherwise, and the descriptions Azure writes.
EventSpec default_event_spec(std::string type, std::vector<std::string> resources,
                             std::string source = "Platform");

struct EmulatedEvent {
  std::string id;  // uppercase GUID
  EventSpec spec;
  EventStatus status = EventStatus::scheduled;
  WallTime created_at;  // when the admin API added it: the document changed then
  WallTime not_before;
  std::optional<WallTime> started_at;
  std::vector<std::string> approved_by;  // the listed VMs that approved, spelled as in spec.resources
  std::size_t distinct_resources = 0;    // names in spec.resources, compared case-insensitively

  bool approved_by_all() const { return !spec.resources.empty() && approved_by.size() >= distinct_resources; }
  bool approved_by_any() const { return !approved_by.empty(); }
  WallTime removal_time() const;  // meaningful once started
};

// An event that became Started (its impact begins) or that left the document after it started (the impact is
// over). What imds-emulator --impact-hook plays on the machine, per listed VM.
struct ImpactTransition {
  enum class Phase { start, end };
  Phase phase = Phase::start;
  std::string event_id;
  std::string type;
  std::string source;
  std::int64_t duration_s = -1;
  std::vector<std::string> resources;
  std::string region = "";  // the event's: only that region's VMs named in resources are impacted

  bool operator==(const ImpactTransition&) const = default;
};
const char* phase_name(ImpactTransition::Phase phase);  // "start" | "end"

// A random version-4 GUID in uppercase, as Azure writes EventIds.
std::string random_guid(std::mt19937_64& random);

// Every VM sees every event of its region (an availability set), and only those; each keeps its own
// DocumentIncarnation, raised by one on every change of its region's events: an event added, started, removed
// or cancelled. Scheduled -> Started when a listed VM approved (SharedApproval::any) or every listed VM
// approved (SharedApproval::all), or NotBefore passed; Started -> removed after max(duration_s, 0) +
// complete_after_s. Approvals from VMs not listed are accepted and recorded by the caller but count for
// nothing; a listed name that is no VM of the event's region never approves (another tenant). No clock is
// read here.
class EventModel {
 public:
  EventModel(std::vector<ModelVm> vms, std::uint64_t seed, SharedApproval shared = SharedApproval::any);

  std::string add(EventSpec spec, WallTime now);  // returns the new EventId
  bool cancel(std::string_view id);               // false: no such event
  // Approval by vms()[vm]; false when its region has no event with that id (compared case-insensitively).
  // Approving a started event, or approving twice, is accepted and changes nothing.
  bool approve(std::size_t vm, std::string_view id, WallTime now);
  void advance(WallTime now);

  // The transitions since the last call, oldest first: Started (on add with started, approval or NotBefore),
  // and removal of a started event (completed or cancelled). A cancelled Scheduled event had no impact.
  std::vector<ImpactTransition> take_transitions();

  const EmulatedEvent* find(std::string_view id) const;  // in any region
  // The event with that id as vms()[vm] sees it: nullptr when its region has none.
  const EmulatedEvent* find_for(std::size_t vm, std::string_view id) const;
  const std::vector<EmulatedEvent>& events() const { return events_; }  // every region's, oldest first
  const std::vector<ModelVm>& vms() const { return vms_; }
  std::int64_t incarnation(std::size_t vm) const { return incarnations_.at(vm); }
  // Raised with every change of any region's events (what raises the incarnations); approvals alone do not
  // change it.
  std::uint64_t version() const { return version_; }

 private:
  void changed(const std::string& region);
  std::string new_id();
  void record(ImpactTransition::Phase phase, const EmulatedEvent& event);

  std::vector<ModelVm> vms_;
  SharedApproval shared_;
  std::vector<std::int64_t> incarnations_;
  std::uint64_t version_ = 0;
  std::vector<EmulatedEvent> events_;
  std::vector<ImpactTransition> transitions_;
  std::mt19937_64 random_;
};

}  // namespace cla
