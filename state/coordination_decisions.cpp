// Coordinated mode's decisions (SPEC 9): rack budget, drain admission with the stale rule, shared approval.
#include "state/coordination_decisions.hpp"

#include <algorithm>

namespace cla {
namespace {

bool contains_id(const std::vector<std::string>& ids, const std::string& id) {
  return std::any_of(ids.begin(), ids.end(), [&](const std::string& e) { return ids_equal(e, id); });
}

const MemberRecord* member_of(const std::vector<MemberRecord>& members, const std::string& vm) {
  for (const auto& m : members)
    if (iequals(m.vm, vm)) return &m;
  return nullptr;
}

std::string joined(const std::vector<std::string>& values) {
  std::string out;
  for (const auto& v : values) out += (out.empty() ? "" : ", ") + v;
  return out;
}

}  // namespace

std::string vm_identity(const std::string& datacenter, const std::string& vm) {
  return datacenter + "/" + to_upper(vm);
}

bool names_vm(const std::string& record_dc, const std::string& record_vm, const std::string& datacenter,
              const std::string& vm) {
  return iequals(record_vm, vm) && (record_dc.empty() || record_dc == datacenter);
}

int rack_budget(int replication_factor) {
  return replication_factor - (replication_factor / 2 + 1);
}

bool is_stale(const DrainRecord& record, const std::set<std::string>& member_vms,
              const std::set<std::string>& up_host_ids) {
  // An older agent's member key may name no DC yet: its VM name alone then keeps the record live.
  const bool member = member_vms.count(vm_identity(record.datacenter, record.vm)) ||
                      member_vms.count(vm_identity("", record.vm));
  return !record.agentless && !member && !record.host_id.empty() && up_host_ids.count(record.host_id) > 0;
}

AdmissionVerdict decide_admission(const AdmissionInput& in) {
  AdmissionVerdict v;
  std::set<std::string> racks;
  for (const auto& r : in.records) {
    if (names_vm(r.datacenter, r.vm, in.datacenter, in.vm)) {
      v.own.push_back(r);  // this agent's own record, from before a restart
      continue;
    }
    if (in.members_read && is_stale(r, in.member_vms, in.up_host_ids)) {
      v.stale.push_back(r);
      continue;
    }
    v.counted.push_back(r);
    if (r.datacenter == in.datacenter && r.rack != in.rack) racks.insert(r.rack);
  }
  for (const auto& rack : in.unavailable_racks)
    if (rack != in.rack) racks.insert(rack);
  v.out_racks.assign(racks.begin(), racks.end());
  if (in.exact) {
    if (auto exact = in.exact(v.counted)) {
      v.admitted = exact->admitted;
      v.reason = exact->reason;
      return v;
    }
  }
  const int budget = rack_budget(in.replication_factor);
  const int out = static_cast<int>(racks.size()) + 1;  // the own rack counted once
  v.admitted = out <= budget;
  if (v.admitted) {
    v.reason =
        "racks out with this drain: " + std::to_string(out) + " of " + std::to_string(budget) + " allowed";
  } else {
    v.reason = "racks out (drains recorded, maintenance begun) " + joined(v.out_racks) + ": with rack " +
               in.rack + " that makes " + std::to_string(out) + " racks out, RF " +
               std::to_string(in.replication_factor) + " allows " + std::to_string(budget);
  }
  return v;
}

SharedVerdict decide_shared_approval(const SharedApprovalInput& in) {
  SharedVerdict v;
  for (const auto& vm : in.resources) {
    const MemberRecord* member = member_of(in.members, vm);
    if (!member) {
      v.unregistered.push_back(vm);
      continue;
    }
    if (v.approver.empty()) v.approver = member->vm;
    const bool drained = member->phase == MemberPhase::drained && contains_id(member->events, in.event_id);
    (drained ? v.drained : v.waiting).push_back(vm);
  }
  v.ready = !v.approver.empty() && v.waiting.empty() && (v.unregistered.empty() || !in.wait_for_unregistered);
  v.this_agent_approves = v.ready && iequals(v.approver, in.vm);
  return v;
}

}  // namespace cla
