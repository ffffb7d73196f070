// Other VMs of this cluster whose maintenance has begun (SPEC 3.4, 9 "What the availability set tells every
// agent"): listed in an event that is Started, or that an agent approved (its member key lists the EventId:
// an approval does not show in other VMs' documents while the event stays Scheduled). Such a VM's node
// counts as unavailable for the gate and for admission even while gossip still shows it UN (a frozen node
// looks up for 10-20 s), until its event is gone from the document and a nodetool status taken after that
// shows its node UN again. Pure: the shell feeds documents, approvals and status reads, with their times.
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "state/scheduled_event.hpp"

namespace cla {

struct NeighbourImpact {
  std::string vm;        // as IMDS names it
  std::string event_id;  // the event that impacts it (the latest seen)
  std::string why;       // "Started", "approved", or "event gone, node not seen UN since"
  bool operator==(const NeighbourImpact&) const = default;
};

// Whether the events can make another VM unavailable: one listing another VM is Started, or is Scheduled
// without this VM (an agent may approve it; one that lists this VM cannot be approved before this node is
// drained for it). When not, a gate check needs no read of the other agents' records.
bool neighbours_possible(const std::vector<ScheduledEvent>& events, const std::string& self);
// The other VMs the events list (upper case), of Started events only when `started_only`: the VMs whose
// nodes the fleet view must map to host ids (a Started one's before the next check).
std::set<std::string> listed_neighbours(const std::vector<ScheduledEvent>& events, const std::string& self,
                                        bool started_only);

class NeighbourImpacts {
 public:
  using Time = std::chrono::steady_clock::time_point;

  // The current document's events (every VM's), `approved` the upper-case EventIds that some agent says it
  // approved, at `now`. Every VM but `self` listed in a Started or approved event is impacted; one whose
  // impacting events have all left the document stays impacted, from `now`, until observe_up releases it.
  void observe_events(const std::vector<ScheduledEvent>& events, const std::set<std::string>& approved,
                      const std::string& self, Time now);
  // A nodetool status read that started at `taken_at` shows the nodes of `up_vms` UN: those whose events left
  // the document before `taken_at` are released.
  void observe_up(const std::set<std::string>& up_vms, Time taken_at);

  std::vector<NeighbourImpact> current() const;  // by VM name
  bool empty() const { return by_vm_.empty(); }

 private:
  struct Entry {
    std::string vm;  // as the document spells it
    std::string event_id;
    std::string why;
    std::optional<Time> gone_at;  // the impacting event left the document
  };
  std::map<std::string, Entry> by_vm_;  // key: upper-case VM name
};

}  // namespace cla
