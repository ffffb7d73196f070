// The state file's JSON format: times are Unix milliseconds, EventIds upper-case keys, a schema version.
#include "state/state_codec.hpp"

#include <boost/json.hpp>

namespace cla {

namespace json = boost::json;

namespace {

std::int64_t to_ms(WallTime t) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
}
// Throws (caught in decode_state) for a time a WallTime cannot hold: converting it would overflow.
WallTime from_ms(std::int64_t ms) {
  constexpr auto kMaxMs =
      std::chrono::duration_cast<std::chrono::milliseconds>(WallTime::duration::max()).count();
  if (ms > kMaxMs || ms < -kMaxMs)
    throw std::runtime_error("time " + std::to_string(ms) + " ms is out of range");
  return WallTime(std::chrono::milliseconds(ms));
}
json::value opt_ms(const std::optional<WallTime>& t) {
  return t ? json::value(to_ms(*t)) : json::value(nullptr);
}

EventPlan plan_from(std::string_view s) {
  for (EventPlan p :
       {EventPlan::other_vm, EventPlan::no_impact, EventPlan::user_drain, EventPlan::platform_drain})
    if (to_string(p) == s) return p;
  return EventPlan::platform_drain;
}

json::object encode_event(const ScheduledEvent& e) {
  json::array resources;
  for (const auto& r : e.resources) resources.emplace_back(r);
  return {{"id", e.id},
          {"type", e.type},
          {"status", e.status_text},
          {"source", e.source_text},
          {"resources", std::move(resources)},
          {"not_before", e.not_before_text},
          {"not_before_ms", opt_ms(e.not_before)},
          {"duration_s", e.duration_s}};
}

// Reading helpers: a missing or mistyped field throws std::exception, caught once in decode_state.
const json::value& at(const json::object& o, std::string_view key) {
  if (auto* v = o.if_contains(key)) return *v;
  throw std::runtime_error("missing field " + std::string(key));
}
std::string str(const json::object& o, std::string_view key) {
  return json::value_to<std::string>(at(o, key));
}
bool flag(const json::object& o, std::string_view key) {
  return at(o, key).as_bool();
}
// A field added after the first release: a state file written before it lacks it.
bool flag_or_false(const json::object& o, std::string_view key) {
  const json::value* v = o.if_contains(key);
  return v && v->as_bool();
}
std::optional<WallTime> opt_time(const json::object& o, std::string_view key) {
  const json::value& v = at(o, key);
  if (v.is_null()) return std::nullopt;
  return from_ms(v.as_int64());
}

ScheduledEvent decode_event(const json::object& o) {
  ScheduledEvent e;
  e.id = str(o, "id");
  e.type = str(o, "type");
  e.status_text = str(o, "status");
  e.status = e.status_text == "Started"     ? EventStatus::started
             : e.status_text == "Scheduled" ? EventStatus::scheduled
                                            : EventStatus::unknown;
  e.source_text = str(o, "source");
  e.source = e.source_text == "User"       ? EventSource::user
             : e.source_text == "Platform" ? EventSource::platform
                                           : EventSource::unknown;
  for (const auto& r : at(o, "resources").as_array()) e.resources.push_back(json::value_to<std::string>(r));
  e.not_before_text = str(o, "not_before");
  e.not_before = opt_time(o, "not_before_ms");
  e.duration_s = at(o, "duration_s").as_int64();
  return e;
}

const char* const kRecordFlags[] = {"started_seen",       "drain_complete",    "drain_failed",
                                    "forced_unsafe",      "approved",          "approval_rejected",
                                    "approval_withheld",  "unsafe_logged",     "impact_warned",
                                    "notified_scheduled", "notified_starting", "notified_start"};

bool* record_flag(EventRecord& r, std::string_view name) {
  bool* fields[] = {&r.started_seen,  &r.drain_complete,     &r.drain_failed,      &r.forced_unsafe,
                    &r.approved,      &r.approval_rejected,  &r.approval_withheld, &r.unsafe_logged,
                    &r.impact_warned, &r.notified_scheduled, &r.notified_starting, &r.notified_start};
  for (std::size_t i = 0; i < std::size(kRecordFlags); ++i)
    if (name == kRecordFlags[i]) return fields[i];
  return nullptr;
}

}  // namespace

json::value encode_state(const AgentState& state) {
  json::object events;
  for (const auto& [key, rec] : state.events) {
    json::object r{{"event", encode_event(rec.event)},
                   {"plan", to_string(rec.plan)},
                   {"first_seen_ms", to_ms(rec.first_seen)},
                   {"drained_at_ms", opt_ms(rec.drained_at)},
                   {"approved_at_ms", opt_ms(rec.approved_at)}};
    EventRecord copy = rec;
    for (const char* name : kRecordFlags) r[name] = *record_flag(copy, name);
    r["emergency"] = rec.emergency;
    r["rebooted_through"] = rec.rebooted_through;
    events[key] = std::move(r);
  }
  const NodeDrainState& n = state.node;
  json::array drained_for;
  for (const auto& id : n.drained_for) drained_for.emplace_back(id);
  json::array pending;
  for (const auto& p : state.pending_ended) pending.push_back(encode_event(p.event));
  json::array durations(state.drain_durations_ms.begin(), state.drain_durations_ms.end());
  return json::object{
      {"schema_version", AgentState::schema_version},
      {"last_incarnation",
       state.last_incarnation ? json::value(*state.last_incarnation) : json::value(nullptr)},
      {"boot_id", state.boot_id},
      {"node",
       {{"drained", n.out_of_service},
        {"binary_disabled", n.binary_disabled},
        {"gossip_disabled", n.gossip_disabled},
        {"memtables_flushed", n.flushed},
        {"drained_for", std::move(drained_for)},
        {"out_since_ms", opt_ms(n.out_since)},
        {"boot_id_at_drain", n.boot_id_at_drain},
        {"started_afresh", n.started_afresh}}},
      {"events", std::move(events)},
      {"pending_ended", std::move(pending)},
      {"drain_durations_ms", std::move(durations)},
      {"repair_needed", state.repair_needed},
      {"catch_up", state.catch_up ? json::value(json::object{{"since_ms", to_ms(state.catch_up->since)},
                                                             {"out_s", state.catch_up->out_s},
                                                             {"hint_files", state.catch_up->hint_files}})
                                  : json::value(nullptr)}};
}

Result<AgentState> decode_state(std::string_view text) {
  boost::system::error_code ec;
  json::value v = json::parse(text, ec);
  if (ec) return make_error("not valid JSON: " + ec.message());
  try {
    const json::object& o = v.as_object();
    const auto version = at(o, "schema_version").as_int64();
    if (version != AgentState::schema_version)
      return make_error("unsupported schema_version " + std::to_string(version));
    AgentState s;
    const json::value& inc = at(o, "last_incarnation");
    if (!inc.is_null()) s.last_incarnation = inc.as_int64();
    s.boot_id = str(o, "boot_id");
    const json::object& n = at(o, "node").as_object();
    s.node.out_of_service = flag(n, "drained");
    s.node.binary_disabled = flag(n, "binary_disabled");
    s.node.gossip_disabled = flag(n, "gossip_disabled");
    s.node.flushed = flag(n, "memtables_flushed");
    for (const auto& id : at(n, "drained_for").as_array())
      s.node.drained_for.insert(json::value_to<std::string>(id));
    s.node.out_since = opt_time(n, "out_since_ms");
    s.node.boot_id_at_drain = str(n, "boot_id_at_drain");
    s.node.started_afresh = flag_or_false(n, "started_afresh");  // absent in files written before it
    for (const auto& [key, value] : at(o, "events").as_object()) {
      const json::object& r = value.as_object();
      EventRecord rec;
      rec.event = decode_event(at(r, "event").as_object());
      rec.plan = plan_from(str(r, "plan"));
      rec.first_seen = from_ms(at(r, "first_seen_ms").as_int64());
      rec.drained_at = opt_time(r, "drained_at_ms");
      rec.approved_at = opt_time(r, "approved_at_ms");
      for (const char* name : kRecordFlags) *record_flag(rec, name) = flag(r, name);
      rec.emergency = flag_or_false(r, "emergency");
      rec.rebooted_through = flag_or_false(r, "rebooted_through");
      s.events.emplace(std::string(key), std::move(rec));
    }
    for (const auto& p : at(o, "pending_ended").as_array())
      s.pending_ended.push_back(PendingEnded{decode_event(p.as_object())});
    if (const json::value* durations = o.if_contains("drain_durations_ms"))
      for (const auto& d : durations->as_array()) {
        const std::int64_t ms = d.as_int64();
        if (ms < 0) throw std::runtime_error("negative drain duration");
        s.drain_durations_ms.push_back(ms);
      }
    // Absent in files written before SPEC 3.10's catch-up and hint window.
    s.repair_needed = flag_or_false(o, "repair_needed");
    if (const json::value* c = o.if_contains("catch_up"); c && !c->is_null()) {
      const json::object& co = c->as_object();
      s.catch_up = CatchUpState{from_ms(at(co, "since_ms").as_int64()), at(co, "out_s").as_int64(),
                                at(co, "hint_files").as_int64()};
    }
    return s;
  } catch (const std::exception& e) {
    return make_error(std::string("unexpected content: ") + e.what());
  }
}

}  // namespace cla
