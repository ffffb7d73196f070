// Coordinated mode's decisions (SPEC 9) as pure functions of what etcd and nodetool said: the records kept in
// etcd, the rack budget, drain admission with its stale-record rule, and shared-event approval.
#pragma once

#include <boost/json/object.hpp>
#include <functional>
#include <map>
#include <optional>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "state/result.hpp"
#include "state/scheduled_event.hpp"

namespace cla {

enum class MemberPhase { serving, draining, drained, restoring, catching_up };
std::string_view to_string(MemberPhase phase);
std::optional<MemberPhase> member_phase_from(std::string_view text);
std::ostream& operator<<(std::ostream& os, MemberPhase phase);

// <prefix>/members/<dc>/<vm>: bound to the agent's lease, so it disappears when the agent is gone. Records
// are keyed by DC and VM because VM names are unique only within a region (SPEC 9, "Several regions"); each
// value names its DC as well, so the flat keys of older agents (<prefix>/members/<vm>) read the same way.
struct MemberRecord {
  std::string vm;
  int fault_domain = -1;
  std::string datacenter, rack, host_id;
  MemberPhase phase = MemberPhase::serving;
  std::vector<std::string> events;  // upper-case EventIds the node is drained (or draining) for
  // Upper-case EventIds this agent approved that are still in its document: an approval does not show in the
  // other VMs' documents while the event stays Scheduled (SPEC 9). Absent in older agents' keys: empty.
  std::vector<std::string> approved;
  // Host ids this agent's node holds hints for, with their closed hints files (SPEC 3.10): read while another
  // member is catching_up. Absent in older agents' keys: empty.
  std::map<std::string, std::int64_t> hints_for;
  WallTime since{};  // when the agent registered
  bool operator==(const MemberRecord&) const = default;
};

// <prefix>/known/<dc>/<vm>: no lease, so it outlives the agent: which node a VM of this cluster runs, for
// every agent to map a VM named in an event to its node (SPEC 9), also when that VM's agent is gone.
struct KnownRecord {
  std::string vm;
  int fault_domain = -1;
  std::string datacenter, rack, address, host_id;
  bool operator==(const KnownRecord&) const = default;
};

// <prefix>/drains/<dc>/<vm>: no lease; written in the admitting transaction, removed after restore_completed.
// Or written by the watcher's leader (SPEC 9) for a VM without an agent listed in a pending event:
// `agentless`, removed by the leader once the events are gone and the node is UN again.
struct DrainRecord {
  std::string vm;
  std::string datacenter, rack, host_id;
  std::vector<std::string> events;
  WallTime since{};
  bool agentless = false;         // "agentless": true in the JSON; absent in agents' own records
  std::int64_t mod_revision = 0;  // etcd's, filled when read (not part of the JSON)
  std::string key;                // where it was read: deleted or guarded there (not part of the JSON)
  bool operator==(const DrainRecord&) const = default;
};

// A VM's identity across regions: "<dc>/<VM in upper case>" (VM names compare case-insensitively, as Azure's
// do).
std::string vm_identity(const std::string& datacenter, const std::string& vm);

// Whether a record naming (record_dc, record_vm) is about the VM `vm` of DC `datacenter`: the same VM name,
// in that DC or in none (an older agent's record, or one written before nodetool named the DC).
bool names_vm(const std::string& record_dc, const std::string& record_vm, const std::string& datacenter,
              const std::string& vm);

// The records of one DC (SPEC 9: an event's Resources are resolved against the own DC's VMs). A record that
// names no DC (an older agent's member key written before nodetool answered, a drain recorded before it did)
// is kept in every DC's view: it cannot be placed, and dropping it could hide a node that is out. An empty
// `datacenter` (this agent's own DC not known yet) keeps everything.
template <typename Record>
std::vector<Record> in_datacenter(std::vector<Record> records, const std::string& datacenter) {
  if (datacenter.empty()) return records;
  std::erase_if(records,
                [&](const Record& r) { return !r.datacenter.empty() && r.datacenter != datacenter; });
  return records;
}

boost::json::object to_json(const MemberRecord& member);
boost::json::object to_json(const DrainRecord& record);
boost::json::object to_json(const KnownRecord& record);
Result<MemberRecord> member_from_json(std::string_view text);
Result<KnownRecord> known_record_from_json(std::string_view text);
Result<DrainRecord> drain_record_from_json(std::string_view text);

// Racks that may be out at once while a quorum of RF replicas stays up: RF - (RF/2 + 1).
int rack_budget(int replication_factor);

// SPEC 9's admission by the replication verdict of 3.4, the counted records' nodes unavailable: the shell
// judges it from the last schema refresh and status; nullopt when it cannot (no schema: the rack count
// decides).
struct ExactAdmission {
  bool admitted = false;
  std::string reason;
};
using ExactAdmissionCheck =
    std::function<std::optional<ExactAdmission>(const std::vector<DrainRecord>& counted)>;

struct AdmissionInput {
  std::string vm, datacenter, rack;  // this agent's node, as nodetool info reports it
  int replication_factor = 3;
  std::vector<DrainRecord> records;   // every drain record under the cluster's prefix
  std::set<std::string> member_vms;   // vm_identity of every live member key, of every DC
  bool members_read = true;           // false: member_vms not read, so no record is judged stale
  std::set<std::string> up_host_ids;  // host ids UN in this agent's own nodetool status
  ExactAdmissionCheck exact;          // empty, or answering nullopt: the rack count decides
  // Racks of this DC with a node out whatever the records say: a neighbour whose maintenance began (SPEC 9,
  // frozen and still UN in gossip). The rack count counts them as it counts recorded drains.
  std::set<std::string> unavailable_racks;
};

struct AdmissionVerdict {
  bool admitted = false;
  std::vector<std::string> out_racks;  // racks of the own DC with a counted drain record (own rack excluded)
  std::vector<DrainRecord> stale;      // to delete in the admitting transaction (never counted)
  std::vector<DrainRecord> counted;    // whose revisions the transaction compares
  std::vector<DrainRecord> own;        // this agent's records as read (a flat key to delete on upgrade)
  std::string reason;                  // one line for the log
};

// A drain record is stale when its agent has no member key and its node is UN in this agent's own nodetool
// status: the agent died after its node came back (or never drained it) and cannot remove the record itself.
// A record whose agent is gone but whose node is still down keeps counting: that rack is out. An agentless
// record is never stale: its VM has no agent by definition and its node may show UN until the impact begins;
// the watcher's leader removes it.
// `member_vms` holds vm_identity values: a member of the same VM name in another DC is not this record's
// agent.
bool is_stale(const DrainRecord& record, const std::set<std::string>& member_vms,
              const std::set<std::string>& up_host_ids);

// Admitted when `exact` admits with the counted records; without its answer, when the racks of the own DC
// with a counted record, plus the own rack, are within the budget (out_racks is filled either way). The
// agent's own records (left by its previous run, under either layout: its VM in its DC, or with no DC) are
// neither counted against it nor stale; they are listed in `own` for the transaction to replace.
AdmissionVerdict decide_admission(const AdmissionInput& input);

struct SharedApprovalInput {
  std::string vm;  // this agent's VM
  std::string event_id;
  std::vector<std::string> resources;  // the VMs the event lists
  std::vector<MemberRecord> members;   // every live member key
  bool wait_for_unregistered = true;   // false: listed VMs without a member key are not waited for
};

struct SharedVerdict {
  bool ready = false;                     // every listed VM that must be is drained for the event
  bool this_agent_approves = false;       // ready, and this agent is the approver
  std::string approver;                   // the first listed VM with a member key ("" when none)
  std::vector<std::string> drained;       // listed VMs whose member is drained for the event
  std::vector<std::string> waiting;       // listed VMs with a member key, not drained for it yet
  std::vector<std::string> unregistered;  // listed VMs without a member key
};

SharedVerdict decide_shared_approval(const SharedApprovalInput& input);

}  // namespace cla
