// What `cassandra-lifecycle-agent fleet` shows, from etcd's records and IMDS's events.
#include "state/fleet_view.hpp"

#include <algorithm>
#include <boost/json.hpp>
#include <set>
#include <sstream>

namespace cla {
namespace {

namespace json = boost::json;

json::array strings(const std::vector<std::string>& values) {
  return json::array(values.begin(), values.end());
}

std::int64_t age_s(WallTime since, WallTime now) {
  return std::chrono::duration_cast<std::chrono::seconds>(now - since).count();
}

json::value holder_json(const std::optional<RoleHolder>& holder) {
  if (!holder) return nullptr;
  return to_json(*holder);
}

std::string holder_text(const json::value& v) {
  if (v.is_null()) return "none";
  const std::string rack(v.at("rack").as_string());
  return std::string(v.at("vm").as_string()) + " (" + (rack.empty() ? "" : "rack " + rack + ", ") + "fd " +
         std::to_string(v.at("fault_domain").as_int64()) + ")";
}

// The member key of the record's VM in the record's DC (one that names no DC matches by name).
bool has_member(const std::vector<MemberRecord>& members, const std::string& datacenter,
                const std::string& vm) {
  return std::any_of(members.begin(), members.end(),
                     [&](const MemberRecord& m) { return names_vm(m.datacenter, m.vm, datacenter, vm); });
}

std::string str(const json::value& v) {
  return std::string(v.as_string());
}

std::string joined(const json::value& array) {
  std::string out;
  for (const auto& v : array.as_array()) out += (out.empty() ? "" : ",") + std::string(v.as_string());
  return out.empty() ? "-" : out;
}

// SPEC 3.10: the hints a member's node holds, per target: the target's VM when a member key names its host.
json::array hints_of(const MemberRecord& m, const std::vector<MemberRecord>& members) {
  json::array out;
  for (const auto& [host_id, files] : m.hints_for) {
    std::string target = host_id;
    for (const auto& other : members)
      if (other.host_id == host_id) target = other.vm;
    out.push_back(json::object{{"for", target}, {"host_id", host_id}, {"files", files}});
  }
  return out;
}

}  // namespace

json::object fleet_view(const FleetInput& in) {
  json::array members, drains, known, events;
  for (const auto& m : in.members)
    members.push_back(json::object{{"vm", m.vm},
                                   {"phase", to_string(m.phase)},
                                   {"datacenter", m.datacenter},
                                   {"rack", m.rack},
                                   {"fault_domain", m.fault_domain},
                                   {"events", strings(m.events)},
                                   {"hints", hints_of(m, in.members)},
                                   {"age_s", age_s(m.since, in.now)}});
  for (const auto& d : in.drains) {
    const bool alive = has_member(in.members, d.datacenter, d.vm);
    drains.push_back(json::object{{"vm", d.vm},
                                  {"datacenter", d.datacenter},
                                  {"rack", d.rack},
                                  {"host_id", d.host_id},
                                  {"events", strings(d.events)},
                                  {"age_s", age_s(d.since, in.now)},
                                  {"member_alive", alive},
                                  {"agentless", d.agentless}});
  }
  for (const auto& k : in.known) {
    const bool agent = has_member(in.members, k.datacenter, k.vm);
    known.push_back(json::object{{"vm", k.vm},
                                 {"fault_domain", k.fault_domain},
                                 {"datacenter", k.datacenter},
                                 {"rack", k.rack},
                                 {"address", k.address},
                                 {"host_id", k.host_id},
                                 {"agent", agent}});
  }
  std::vector<ScheduledEvent> pending;
  if (in.events) {
    pending = *in.events;
  } else {
    std::set<std::string> ids;
    for (const auto& m : in.members) ids.insert(m.events.begin(), m.events.end());
    for (const auto& d : in.drains) ids.insert(d.events.begin(), d.events.end());
    for (const auto& id : ids) {
      ScheduledEvent e;
      e.id = id;
      for (const auto& m : in.members)  // the listed VMs are unknown: those whose records name the event
        if (std::find(m.events.begin(), m.events.end(), id) != m.events.end()) e.resources.push_back(m.vm);
      for (const auto& d : in.drains)
        if (std::find(d.events.begin(), d.events.end(), id) != d.events.end() &&
            std::find(e.resources.begin(), e.resources.end(), d.vm) == e.resources.end())
          e.resources.push_back(d.vm);
      pending.push_back(std::move(e));
    }
  }
  for (const auto& e : pending) {
    SharedApprovalInput q;
    q.event_id = e.id;
    q.resources = e.resources;
    q.members = in.members;
    const SharedVerdict v = decide_shared_approval(q);
    events.push_back(json::object{{"event_id", e.id},
                                  {"event_type", e.type},
                                  {"status", e.status_text},
                                  {"resources", strings(e.resources)},
                                  {"drained", strings(v.drained)},
                                  {"not_drained", strings(v.waiting)},
                                  {"without_member_key", strings(v.unregistered)}});
  }
  json::object watchers;
  for (const auto& [dc, roles] : in.watchers)
    watchers[dc] =
        json::object{{"leader", holder_json(roles.leader)}, {"secondary", holder_json(roles.secondary)}};
  return {{"members", std::move(members)}, {"drains", std::move(drains)},
          {"known", std::move(known)},     {"watcher", std::move(watchers)},
          {"events", std::move(events)},   {"events_source", in.events ? "imds" : "etcd records"}};
}

std::string fleet_text(const json::object& view) {
  std::ostringstream out;
  out << "members (" << view.at("members").as_array().size() << "):\n";
  for (const auto& v : view.at("members").as_array()) {
    const auto& m = v.as_object();
    out << "  " << str(m.at("vm")) << "  " << str(m.at("phase")) << "  dc " << str(m.at("datacenter"))
        << "  rack " << str(m.at("rack")) << "  fd " << m.at("fault_domain").as_int64() << "  age "
        << m.at("age_s").as_int64() << " s  events " << joined(m.at("events"));
    for (const auto& h : m.at("hints").as_array())
      out << "  holds hints for " << str(h.at("for")) << " (" << h.at("files").as_int64() << " files)";
    out << "\n";
  }
  out << "drain records (" << view.at("drains").as_array().size() << "):\n";
  for (const auto& v : view.at("drains").as_array()) {
    const auto& d = v.as_object();
    out << "  " << str(d.at("vm")) << "  dc " << str(d.at("datacenter")) << "  rack " << str(d.at("rack"))
        << "  age " << d.at("age_s").as_int64() << " s  events " << joined(d.at("events"))
        << (d.at("agentless").as_bool()      ? "  (agentless: written by the watcher)"
            : d.at("member_alive").as_bool() ? ""
                                             : "  (agent gone)")
        << "\n";
  }
  out << "known VMs (" << view.at("known").as_array().size() << "):\n";
  for (const auto& v : view.at("known").as_array()) {
    const auto& k = v.as_object();
    out << "  " << str(k.at("vm")) << "  dc " << str(k.at("datacenter")) << "  rack " << str(k.at("rack"))
        << "  fd " << k.at("fault_domain").as_int64() << "  " << str(k.at("address"))
        << (k.at("agent").as_bool() ? "" : "  (no agent)") << "\n";
  }
  if (view.at("watcher").as_object().empty()) out << "watcher: none\n";
  for (const auto& [dc, roles] : view.at("watcher").as_object())
    out << "watcher" << (dc.empty() ? std::string(" (older agents' key)") : " of " + std::string(dc))
        << ": leader " << holder_text(roles.at("leader")) << ", secondary "
        << holder_text(roles.at("secondary")) << "\n";
  out << "pending events (from " << str(view.at("events_source")) << "):\n";
  for (const auto& v : view.at("events").as_array()) {
    const auto& e = v.as_object();
    out << "  " << str(e.at("event_id")) << "  " << str(e.at("event_type")) << "  " << str(e.at("status"))
        << "  drained " << joined(e.at("drained")) << "  not drained " << joined(e.at("not_drained"))
        << "  without member key " << joined(e.at("without_member_key")) << "\n";
  }
  return out.str();
}

}  // namespace cla
