// The JSON of coordinated mode's etcd values (SPEC 9): member keys, drain records and known VMs. Times as
// Unix ms.
#include <boost/json.hpp>

#include "state/coordination_decisions.hpp"

namespace cla {
namespace {

namespace json = boost::json;

std::int64_t unix_ms(WallTime t) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
}

json::array strings(const std::vector<std::string>& values) {
  json::array out;
  for (const auto& v : values) out.emplace_back(v);
  return out;
}

// Reads the fields of a record; any missing or mistyped field makes the whole value invalid.
struct Reader {
  const json::object& o;
  std::string missing;
  std::string str(const char* key) {
    const auto* v = o.if_contains(key);
    if (v && v->is_string()) return std::string(v->get_string());
    if (missing.empty()) missing = key;
    return {};
  }
  bool optional_flag(const char* key) {  // absent is false
    const auto* v = o.if_contains(key);
    if (!v) return false;
    if (v->is_bool()) return v->get_bool();
    if (missing.empty()) missing = key;
    return false;
  }
  std::int64_t num(const char* key) {
    const auto* v = o.if_contains(key);
    if (v && v->is_int64()) return v->get_int64();
    if (missing.empty()) missing = key;
    return 0;
  }
  // A list that older writers leave out: absent is empty; present, it must be a list of strings.
  std::vector<std::string> optional_list(const char* key) {
    return o.contains(key) ? list(key) : std::vector<std::string>{};
  }
  std::vector<std::string> list(const char* key) {
    std::vector<std::string> out;
    const auto* v = o.if_contains(key);
    if (!v || !v->is_array()) {
      if (missing.empty()) missing = key;
      return out;
    }
    for (const auto& e : v->get_array()) {
      if (!e.is_string()) {
        if (missing.empty()) missing = key;
        return {};
      }
      out.emplace_back(e.get_string());
    }
    return out;
  }
};

Result<json::object> parse_object(std::string_view text, const char* what) {
  boost::system::error_code ec;
  json::value v = json::parse(text, ec);
  if (ec || !v.is_object()) return make_error(std::string(what) + ": not a JSON object");
  return std::move(v.as_object());
}

}  // namespace

std::string_view to_string(MemberPhase phase) {
  switch (phase) {
    case MemberPhase::serving:
      return "serving";
    case MemberPhase::draining:
      return "draining";
    case MemberPhase::drained:
      return "drained";
    case MemberPhase::restoring:
      return "restoring";
    case MemberPhase::catching_up:
      return "catching_up";
  }
  return "serving";
}

std::optional<MemberPhase> member_phase_from(std::string_view text) {
  for (auto p : {MemberPhase::serving, MemberPhase::draining, MemberPhase::drained, MemberPhase::restoring,
                 MemberPhase::catching_up})
    if (to_string(p) == text) return p;
  return std::nullopt;
}

std::ostream& operator<<(std::ostream& os, MemberPhase phase) {
  return os << to_string(phase);
}

json::object to_json(const MemberRecord& m) {
  json::object o{{"vm", m.vm},
                 {"fault_domain", m.fault_domain},
                 {"datacenter", m.datacenter},
                 {"rack", m.rack},
                 {"host_id", m.host_id},
                 {"phase", to_string(m.phase)},
                 {"events", strings(m.events)},
                 {"approved", strings(m.approved)},
                 {"since_ms", unix_ms(m.since)}};
  if (!m.hints_for.empty()) {
    json::object hints;
    for (const auto& [host_id, files] : m.hints_for) hints[host_id] = files;
    o["hints_for"] = std::move(hints);
  }
  return o;
}

json::object to_json(const KnownRecord& r) {
  return {{"vm", r.vm},     {"fault_domain", r.fault_domain}, {"datacenter", r.datacenter},
          {"rack", r.rack}, {"address", r.address},           {"host_id", r.host_id}};
}

Result<KnownRecord> known_record_from_json(std::string_view text) {
  auto object = parse_object(text, "known record");
  if (!object) return object.error();
  Reader in{*object, {}};
  KnownRecord r;
  r.vm = in.str("vm");
  r.fault_domain = static_cast<int>(in.num("fault_domain"));
  r.datacenter = in.str("datacenter");
  r.rack = in.str("rack");
  r.address = in.str("address");
  r.host_id = in.str("host_id");
  if (!in.missing.empty()) return make_error("known record: field " + in.missing + " missing or mistyped");
  return r;
}

json::object to_json(const DrainRecord& r) {
  json::object o{{"vm", r.vm},           {"datacenter", r.datacenter},  {"rack", r.rack},
                 {"host_id", r.host_id}, {"events", strings(r.events)}, {"since_ms", unix_ms(r.since)}};
  if (r.agentless) o["agentless"] = true;
  return o;
}

Result<MemberRecord> member_from_json(std::string_view text) {
  auto object = parse_object(text, "member key");
  if (!object) return object.error();
  Reader in{*object, {}};
  MemberRecord m;
  m.vm = in.str("vm");
  m.fault_domain = static_cast<int>(in.num("fault_domain"));
  m.datacenter = in.str("datacenter");
  m.rack = in.str("rack");
  m.host_id = in.str("host_id");
  const std::string phase = in.str("phase");
  m.events = in.list("events");
  m.approved = in.optional_list("approved");
  if (const auto* hints = object->if_contains("hints_for")) {
    if (!hints->is_object()) return make_error("member key: field hints_for missing or mistyped");
    for (const auto& [host_id, files] : hints->get_object()) {
      if (!files.is_int64()) return make_error("member key: field hints_for missing or mistyped");
      m.hints_for.emplace(std::string(host_id), files.get_int64());
    }
  }
  m.since = WallTime{} + std::chrono::milliseconds(in.num("since_ms"));
  if (!in.missing.empty()) return make_error("member key: field " + in.missing + " missing or mistyped");
  const auto parsed = member_phase_from(phase);
  if (!parsed) return make_error("member key: unknown phase \"" + phase + "\"");
  m.phase = *parsed;
  return m;
}

Result<DrainRecord> drain_record_from_json(std::string_view text) {
  auto object = parse_object(text, "drain record");
  if (!object) return object.error();
  Reader in{*object, {}};
  DrainRecord r;
  r.vm = in.str("vm");
  r.datacenter = in.str("datacenter");
  r.rack = in.str("rack");
  r.host_id = in.str("host_id");
  r.events = in.list("events");
  r.since = WallTime{} + std::chrono::milliseconds(in.num("since_ms"));
  r.agentless = in.optional_flag("agentless");
  if (!in.missing.empty()) return make_error("drain record: field " + in.missing + " missing or mistyped");
  return r;
}

}  // namespace cla
